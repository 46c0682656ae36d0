"""System prompts for the coding agent, assembled from a template and the session state.

The template is deliberately plain: who the agent is, how to use tools, when to stop.
Anything that changes per session (the task, today's date, the tool list) is filled in
by ``render_system_prompt`` so that the stable part can be cached by the provider.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from string import Template

SYSTEM_TEMPLATE = Template(
    """You are a careful software engineer working in a local repository.

Today is $today. The user's task is below; work on it until it is done or you are stuck.

# How to work
- Look before you change: read the files involved and run the tests first.
- Make one small change at a time and run the relevant tests after each.
- When a tool fails, read its error and adjust; do not repeat the same call unchanged.
- Keep a short plan and update it as you learn.

# Tools
$tool_lines

# When you are done
Reply with a summary of what changed, which files, and how you checked it.
If you could not finish, say what is left and why.

# Task
$task
"""
)

STYLE_RULES = (
    "Follow the existing code style of each file.",
    "Prefer the standard library over new dependencies.",
    "Never commit secrets, tokens or credentials.",
)


@dataclass(frozen=True)
class ToolLine:
    name: str
    summary: str

    def render(self) -> str:
        return f"- {self.name}: {self.summary}"


def render_tool_lines(tools: Sequence[ToolLine]) -> str:
    if not tools:
        return "- (no tools: answer from what you know)"
    return "\n".join(t.render() for t in sorted(tools, key=lambda t: t.name))


def render_system_prompt(
    task: str,
    tools: Sequence[ToolLine],
    today: date | None = None,
    extra_rules: Sequence[str] = (),
) -> str:
    """The full system prompt for one session."""
    rules = "\n".join(f"- {rule}" for rule in (*STYLE_RULES, *extra_rules))
    body = SYSTEM_TEMPLATE.substitute(
        today=(today or date.today()).isoformat(),
        tool_lines=render_tool_lines(tools),
        task=task.strip(),
    )
    return f"{body}\n# Style\n{rules}\n"


FEW_SHOT_EXAMPLES = [
    {
        "user": "The CSV export drops the last row.",
        "assistant": (
            "I'll read exporters/csv.py and its test first, then reproduce the bug with a "
            "two-row file before changing anything."
        ),
    },
    {
        "user": "Rename the `cfg` parameter to `config` everywhere.",
        "assistant": (
            "I'll search for every use of `cfg`, change them file by file, and run the whole "
            "test suite at the end because the rename crosses modules."
        ),
    },
]


def few_shot_messages() -> list[dict[str, str]]:
    """The examples as alternating user/assistant messages."""
    messages: list[dict[str, str]] = []
    for example in FEW_SHOT_EXAMPLES:
        messages.append({"role": "user", "content": example["user"]})
        messages.append({"role": "assistant", "content": example["assistant"]})
    return messages
