"""Client-side rate limiting, so the agent slows down before the provider says 429.

Two buckets are checked before each request: one counts requests per minute, the other
input tokens per minute. A request waits until both buckets hold enough; the wait is
computed, not polled, so an idle agent uses no CPU.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class TokenBucket:
    """A bucket of ``capacity`` units that refills at ``rate`` units per second."""

    capacity: float
    rate: float
    clock: Callable[[], float] = time.monotonic
    level: float = field(init=False)
    updated: float = field(init=False)

    def __post_init__(self) -> None:
        self.level = self.capacity
        self.updated = self.clock()

    def _refill(self) -> None:
        now = self.clock()
        self.level = min(self.capacity, self.level + (now - self.updated) * self.rate)
        self.updated = now

    def wait_time(self, amount: float) -> float:
        """Seconds until ``amount`` units are available (0 when they are now)."""
        if amount > self.capacity:
            raise ValueError(f"asked for {amount} units; the bucket holds {self.capacity}")
        self._refill()
        missing = amount - self.level
        return 0.0 if missing <= 0 else missing / self.rate

    def take(self, amount: float) -> None:
        self._refill()
        self.level -= amount


class RequestLimiter:
    """Requests-per-minute and tokens-per-minute limits for one API key."""

    def __init__(
        self,
        requests_per_minute: int = 50,
        tokens_per_minute: int = 40_000,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.requests = TokenBucket(requests_per_minute, requests_per_minute / 60)
        self.tokens = TokenBucket(tokens_per_minute, tokens_per_minute / 60)
        self.sleep = sleep
        self.lock = threading.Lock()
        self.total_waited_s = 0.0

    def acquire(self, estimated_tokens: int) -> float:
        """Block until one request of ``estimated_tokens`` may go out; return the wait."""
        estimated_tokens = min(estimated_tokens, int(self.tokens.capacity))
        with self.lock:
            wait = max(self.requests.wait_time(1), self.tokens.wait_time(estimated_tokens))
            if wait > 0:
                self.sleep(wait)
                self.total_waited_s += wait
            self.requests.take(1)
            self.tokens.take(estimated_tokens)
        return wait

    def report(self) -> str:
        return (
            f"requests bucket {self.requests.level:.1f}/{self.requests.capacity:.0f}, "
            f"tokens bucket {self.tokens.level:.0f}/{self.tokens.capacity:.0f}, "
            f"waited {self.total_waited_s:.1f}s in total"
        )
