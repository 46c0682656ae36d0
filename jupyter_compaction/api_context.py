"""This library's knobs, written as the Messages API's own context management.

The Claude API can do three of the things this course builds by hand, on its side:

- **context editing** (`clear_tool_uses_20250919`): replace old tool results with a
  placeholder once the input passes a trigger; the counterpart of `ClearToolResults`,
  whose `keep_last`, `exclude_tools`, `clear_at_least` and `clear_inputs` are the edit's
  `keep`, `exclude_tools`, `clear_at_least` and `clear_tool_inputs`. The API's
  `clear_tool_inputs` takes `true` (every cleared call's input) or a list of tool names
  (only those tools' inputs); `ClearToolResults` has only the first.
  `clear_tool_edit()` writes one from the other.
- **server-side compaction** (`compact_20260112`): summarize the conversation once the
  input passes a trigger, with the same model, and carry on from a `compaction` block;
  the counterpart of `CompactAll` (and of `SummarizeMiddle` without a kept tail).
  `compact_edit()` writes it; its optional `instructions` replace the API's summary
  prompt, as `summaries.INSTRUCTIONS` is ours.
- **thinking clearing** (`clear_thinking_20251015`): drop the thinking blocks of older
  assistant turns, keeping the newest `keep` thinking turns (or "all"); the counterpart
  of `history.drop_old_thinking(messages, keep)`, which does the same on our side (lesson
  9's real session is full of thinking blocks). `clear_thinking_edit()` writes one.
- the **memory tool** (`memory_20250818`): files under `/memories` that the model reads
  and writes with tool calls, which the client executes (`memory_tool.MemoryFolder`);
  the counterpart of the notes file and the task state kept outside the messages.
  `memory_tool()` is its definition.

`context_request()` puts them together as the keyword arguments of
`client.beta.messages.create()`: the `betas` each feature needs, `context_management`
with its `edits`, and the tools.

Left out: reading the `compaction` blocks and `context_management` report that come
back (the caller appends the reply as usual).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .strategies.clear import ClearToolResults

CONTEXT_EDITING_BETA = "context-management-2025-06-27"  # context editing and the memory tool
COMPACTION_BETA = "compact-2026-01-12"
# On-demand compaction's beta: anthropic SDK 2.16, `lib/tools/_beta_runner.py`
# (`compact_before_next_turn()` "Requires the `compact-2026-09-04` beta"); docs page
# build-with-claude/compaction-background (its `betaHeader`).
ON_DEMAND_BETA = "compact-2026-09-04"
SUMMARIZE = "summarize"  # SDK `BetaCompactionConfigParam.type`, the parameter's one type
CLEAR_TOOL_USES = "clear_tool_uses_20250919"
CLEAR_THINKING = "clear_thinking_20251015"
COMPACT = "compact_20260112"
MEMORY_TOOL = "memory_20250818"
MIN_COMPACT_TRIGGER = 50_000  # the API refuses a smaller compaction trigger


def _tokens(kind: str, value: int) -> dict[str, Any]:
    return {"type": kind, "value": value}


def clear_tool_edit(clear: ClearToolResults, trigger: int, *,
                    clear_inputs: bool | Sequence[str] = False) -> dict[str, Any]:
    """A `clear_tool_uses_20250919` edit with the knobs of `clear`, firing above `trigger`
    input tokens. `clear_tool_inputs` is set when `clear.clear_inputs` or `clear_inputs`
    is true (clear the inputs of every cleared call), or to `clear_inputs` when it is a
    list of tool names (clear only those tools' inputs)."""
    if isinstance(clear_inputs, str):
        raise ValueError(f"clear_inputs takes True or a list of tool names, not the string "
                         f"{clear_inputs!r}; write [{clear_inputs!r}]")
    edit: dict[str, Any] = {"type": CLEAR_TOOL_USES,
                            "trigger": _tokens("input_tokens", trigger),
                            "keep": _tokens("tool_uses", clear.keep_last)}
    if clear.clear_at_least:
        edit["clear_at_least"] = _tokens("input_tokens", clear.clear_at_least)
    if clear.exclude_tools:
        edit["exclude_tools"] = list(clear.exclude_tools)
    if clear_inputs is True or (clear.clear_inputs and not clear_inputs):
        edit["clear_tool_inputs"] = True
    elif clear_inputs:
        edit["clear_tool_inputs"] = list(clear_inputs)
    return edit


def clear_thinking_edit(keep: int | str = 1) -> dict[str, Any]:
    """A `clear_thinking_20251015` edit keeping the thinking of the newest `keep` thinking
    turns, or "all" of them (as `history.drop_old_thinking(messages, keep)` does here)."""
    if keep == "all":
        return {"type": CLEAR_THINKING, "keep": "all"}
    if not isinstance(keep, int) or isinstance(keep, bool) or keep < 1:
        raise ValueError(f"keep must be a positive number of thinking turns or 'all', "
                         f"not {keep!r}")
    return {"type": CLEAR_THINKING, "keep": _tokens("thinking_turns", keep)}


def compact_edit(trigger: int, instructions: str | None = None) -> dict[str, Any]:
    """A `compact_20260112` edit firing above `trigger` input tokens (at least 50,000)."""
    if trigger < MIN_COMPACT_TRIGGER:
        raise ValueError(f"the API's compaction trigger must be at least "
                         f"{MIN_COMPACT_TRIGGER:_} tokens, not {trigger:_}")
    edit: dict[str, Any] = {"type": COMPACT, "trigger": _tokens("input_tokens", trigger)}
    if instructions:
        edit["instructions"] = instructions
    return edit


def compaction_param(instructions: str | None = None) -> dict[str, str]:
    """The top-level `compaction` parameter of an on-demand compaction request (SDK
    `BetaCompactionConfigParam`): the whole conversation in `messages` is summarized into
    one `compaction` block; `instructions` replace the server's summary prompt for this
    request (empty or whitespace counts as absent). It cannot go with `context_management`
    (SDK `MessageCreateParams.compaction`)."""
    param = {"type": SUMMARIZE}
    if instructions and instructions.strip():
        param["instructions"] = instructions
    return param


def memory_tool() -> dict[str, str]:
    """The memory tool's definition (the client runs its commands on `/memories`)."""
    return {"type": MEMORY_TOOL, "name": "memory"}


def context_request(edits: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] = (),
                    *, memory: bool = False) -> dict[str, Any]:
    """The keyword arguments that switch the edits (and the memory tool) on for
    `client.beta.messages.create()`: `betas`, `context_management` and `tools`."""
    betas = []
    if memory or any(e["type"] != COMPACT for e in edits):
        betas.append(CONTEXT_EDITING_BETA)
    if any(e["type"] == COMPACT for e in edits):
        betas.append(COMPACTION_BETA)
    return {"betas": betas, "context_management": {"edits": list(edits)},
            "tools": [*tools, *([memory_tool()] if memory else [])]}
