"""Retry model calls that fail for passing reasons, waiting longer after each failure.

Rate limits (429), overloaded servers (529) and dropped connections usually clear up
on their own; bad requests (400) and authentication errors (401) never do. Only the
first kind is retried, with exponential backoff plus jitter so that many workers
hitting the same limit do not all come back at the same instant.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")
log = logging.getLogger("agents.retry")

RETRYABLE_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504, 529})


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 5
    base_delay_s: float = 1.0
    max_delay_s: float = 30.0
    jitter: float = 0.25  # +/- this fraction of the delay

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait before attempt number ``attempt + 1``."""
        if retry_after is not None:
            return min(retry_after, self.max_delay_s)
        raw = min(self.base_delay_s * 2 ** (attempt - 1), self.max_delay_s)
        return max(0.0, raw * (1 + random.uniform(-self.jitter, self.jitter)))


class GiveUp(Exception):
    """Every attempt failed; ``__cause__`` holds the last error."""


def status_of(exc: BaseException) -> int | None:
    for attribute in ("status_code", "status", "code"):
        value = getattr(exc, attribute, None)
        if isinstance(value, int):
            return value
    return None


def is_retryable(exc: BaseException) -> bool:
    if isinstance(exc, (ConnectionError, TimeoutError)):
        return True
    status = status_of(exc)
    return status is not None and status in RETRYABLE_STATUS


def retry_after_seconds(exc: BaseException) -> float | None:
    headers = getattr(getattr(exc, "response", None), "headers", None) or {}
    value = headers.get("retry-after")
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def with_backoff(
    call: Callable[[], T],
    policy: RetryPolicy | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """Run ``call`` until it succeeds, retrying passing failures under ``policy``."""
    policy = policy or RetryPolicy()
    for attempt in range(1, policy.max_attempts + 1):
        try:
            return call()
        except Exception as exc:
            if not is_retryable(exc):
                raise
            if attempt == policy.max_attempts:
                raise GiveUp(f"gave up after {attempt} attempts") from exc
            wait = policy.delay(attempt, retry_after_seconds(exc))
            log.warning(
                "attempt %d/%d failed (%s: %s); retrying in %.1fs",
                attempt,
                policy.max_attempts,
                type(exc).__name__,
                status_of(exc) or exc,
                wait,
            )
            sleep(wait)
    raise AssertionError("unreachable")
