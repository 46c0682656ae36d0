"""Helpers for tests of the Jupyter layer: a real IPython shell with the extension
loaded (`ip`, the one fixture that hands it to a test), the one-line UsageError check,
and hostile HTML to feed the renderers.

They live here rather than in a conftest so that test modules can import them by name
(two conftest modules would shadow each other)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from jupyter_compaction.jupyter import MAGICS_CLASS, load_ipython_extension

HOSTILE = ('<script>alert(1)</script> <img src=x onerror=alert(1)> '
           '<a href="javascript:alert(1)">click</a>')


def fresh_shell(monkeypatch: pytest.MonkeyPatch, names: Iterable[str], *,
                text: bool) -> InteractiveShell:
    """The shared shell, no API key, `text` forcing plain-text output or not, `names`
    removed from its namespace and no remembered `%%agent` session."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    if text:
        monkeypatch.setenv("JUPYTER_COMPACTION_TEXT", "1")
    else:
        monkeypatch.delenv("JUPYTER_COMPACTION_TEXT", raising=False)
    shell = InteractiveShell.instance()
    load_ipython_extension(shell)
    for name in names:
        shell.user_ns.pop(name, None)
    shell.magics_manager.registry[MAGICS_CLASS].session = None
    return shell


MAGIC_NAMES = ("_agent_run", "_lab", "_replay", "CONTEXT_BUDGET")  # what the magics leave


@pytest.fixture
def shell_text() -> bool:
    """Whether `ip` forces plain-text output; a conftest or module may override it."""
    return True


@pytest.fixture
def shell_names() -> tuple[str, ...]:
    """Names `ip` clears besides the magics'; a conftest or module may override it."""
    return ()


@pytest.fixture
def ip(monkeypatch: pytest.MonkeyPatch, shell_text: bool,
       shell_names: tuple[str, ...]) -> Iterator[InteractiveShell]:
    """The one IPython fixture: `fresh_shell`, its names cleared before and after. A test
    module imports it with `shell_text` and `shell_names`, which it may override."""
    names = MAGIC_NAMES + tuple(shell_names)
    shell = fresh_shell(monkeypatch, names, text=shell_text)
    yield shell
    for name in names:
        shell.user_ns.pop(name, None)


def usage_error(call: Any, *args: Any) -> str:
    """The message of the UsageError `call(*args)` raises (exactly UsageError, one line)."""
    with pytest.raises(UsageError) as info:
        call(*args)
    assert type(info.value) is UsageError
    message = str(info.value)
    assert message and "\n" not in message
    return message
