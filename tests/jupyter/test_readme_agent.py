"""The README's own `%agent`/`%%agent` snippets run in a real IPython shell, and each run
is answered correctly against the truth of its workspace (issue 21, item 7)."""

from __future__ import annotations

import re
from pathlib import Path

from IPython.core.interactiveshell import InteractiveShell

README = Path(__file__).resolve().parents[2] / "README.md"
AGENT = re.compile(r"```python\n(%%?agent [^\n]*)\n(.*?)```", re.S)


def test_the_readme_agent_snippets_are_answered_correctly(ip: InteractiveShell) -> None:
    snippets = AGENT.findall(README.read_text())
    assert any(line.startswith("%%agent") for line, _ in snippets)
    for line, body in snippets:
        if line.startswith("%%agent"):
            ip.run_cell_magic("agent", line.removeprefix("%%agent ") + " --quiet", body)
        else:
            ip.run_line_magic("agent", line.removeprefix("%agent ") + " --quiet")
        run = ip.user_ns["_agent_run"]
        assert run.outcome == "correct", (line, run.outcome, run.answer)
