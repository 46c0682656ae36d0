"""Browser actions for a web-browsing agent, driven through a page driver.

The driver is anything with ``goto``, ``click``, ``fill``, ``text`` and ``screenshot``
methods (a Playwright page fits). Each action returns a short text the model can read;
screenshots are saved to disk and only their path goes back into the conversation.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol
from urllib.parse import urlparse

SCREENSHOT_DIR = Path("screenshots")
PAGE_TEXT_LIMIT = 6_000
BLOCKED_SCHEMES = {"file", "chrome", "about", "javascript"}


class PageDriver(Protocol):
    def goto(self, url: str, timeout: float) -> None: ...
    def click(self, selector: str) -> None: ...
    def fill(self, selector: str, value: str) -> None: ...
    def text(self) -> str: ...
    def screenshot(self, path: str) -> None: ...


@dataclass
class BrowserSession:
    driver: PageDriver
    history: list[str] = field(default_factory=list)
    navigation_timeout: float = 15.0

    @property
    def current_url(self) -> str:
        return self.history[-1] if self.history else "about:blank"


def open_url(session: BrowserSession, url: str) -> str:
    scheme = urlparse(url).scheme
    if scheme in BLOCKED_SCHEMES or not scheme:
        return f"cannot open {url!r}: only http and https pages are allowed"
    started = time.monotonic()
    session.driver.goto(url, timeout=session.navigation_timeout)
    session.history.append(url)
    return f"opened {url} in {time.monotonic() - started:.1f}s"


def click(session: BrowserSession, selector: str) -> str:
    session.driver.click(selector)
    return f"clicked {selector} on {session.current_url}"


def type_text(session: BrowserSession, selector: str, text: str) -> str:
    session.driver.fill(selector, text)
    shown = text if len(text) <= 40 else text[:37] + "..."
    return f"typed {shown!r} into {selector}"


def read_page(session: BrowserSession) -> str:
    text = " ".join(session.driver.text().split())
    if len(text) > PAGE_TEXT_LIMIT:
        text = text[:PAGE_TEXT_LIMIT] + f" ... [{len(text) - PAGE_TEXT_LIMIT} chars more]"
    return f"{session.current_url}\n\n{text}"


def take_screenshot(session: BrowserSession) -> str:
    SCREENSHOT_DIR.mkdir(exist_ok=True)
    path = SCREENSHOT_DIR / f"shot-{len(session.history):03d}-{int(time.time())}.png"
    session.driver.screenshot(str(path))
    return f"screenshot saved to {path}"


def go_back(session: BrowserSession) -> str:
    if len(session.history) < 2:
        return "no earlier page to go back to"
    session.history.pop()
    previous = session.history.pop()
    return open_url(session, previous)


# Maps each tool name offered to the model onto the action that performs it.
ACTION_TABLE: dict[str, Callable[..., str]] = {
    "open_url": open_url,
    "click": click,
    "type_text": type_text,
    "read_page": read_page,
    "take_screenshot": take_screenshot,
    "go_back": go_back,
}


def perform(session: BrowserSession, tool_name: str, tool_input: dict[str, str]) -> str:
    """Carry out one browser tool call and describe the outcome in one or two lines."""
    action = ACTION_TABLE.get(tool_name)
    if action is None:
        return f"unknown browser action {tool_name!r}"
    try:
        return action(session, **tool_input)
    except TimeoutError:
        return f"{tool_name} timed out after {session.navigation_timeout:.0f}s"
    except Exception as error:  # noqa: BLE001 - report, let the model decide what next
        return f"{tool_name} failed: {type(error).__name__}: {error}"
