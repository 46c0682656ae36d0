"""This library's knobs, written as the Messages API's own context management.

The Claude API can do four of the things this course builds by hand, on its side (the
sources in brackets are listed in the comment below this docstring):

- **context editing** (`clear_tool_uses_20250919`): replace old tool results with a
  placeholder once the input passes a trigger; the counterpart of `ClearToolResults`,
  whose `keep_last`, `exclude_tools`, `clear_at_least` and `clear_inputs` are the edit's
  `keep`, `exclude_tools`, `clear_at_least` and `clear_tool_inputs`. The API's
  `clear_tool_inputs` takes `true` (every cleared call's input) or a list of tool names
  (only those tools' inputs); `ClearToolResults` has only the first.
  `clear_tool_edit()` writes one from the other. [3]
- **compaction at a threshold** (`compact_20260112`): summarize the conversation once the
  input passes a trigger, with the same model, and carry on from a `compaction` block;
  the counterpart of `CompactAll` (and of `SummarizeMiddle` without a kept tail).
  `compact_edit()` writes it; its optional `instructions` replace the API's summary
  prompt, as `summaries.INSTRUCTIONS` is ours; `pause_after_compaction` ends the reply
  after the block, with stop reason "compaction". [1][3]
- **compaction on demand** (top-level `compaction: {"type": "summarize"}`, beta
  `compact-2026-09-04`): the whole `messages` is summarized into one `compaction` block,
  returned alone (stop reason "compaction"), which the caller puts first in `messages` in
  place of what it summarized; it cannot go with `context_management`, and its cost is
  only in `usage.iterations`. The documentation recommends it wherever it is available.
  `compaction_param()` writes it; `AnthropicModel.compact()` sends it;
  `strategies.ServerSummarize` is the strategy around it. [1][2][4][5]
- **thinking clearing** (`clear_thinking_20251015`): drop the thinking blocks of older
  assistant turns, keeping the newest `keep` thinking turns (or "all"); the counterpart
  of `history.drop_old_thinking(messages, keep)`, which does the same on our side (lesson
  9's real session is full of thinking blocks). `clear_thinking_edit()` writes one. [3]
- the **memory tool** (`memory_20250818`): files under `/memories` that the model reads
  and writes with tool calls, which the client executes (`memory_tool.MemoryFolder`);
  the counterpart of the notes file and the task state kept outside the messages.
  `memory_tool()` is its definition. [3]

How the three ways to compact differ [1] (the same comparison, as a table, with OpenAI's
in `docs/api_context.md`):

- who decides when: on demand, you (by sending the request); at a threshold, the API
  (at the trigger); with your own summarizer (this course), you;
- where the summary goes: on demand, the block first in `messages`; at a threshold, the
  reply is appended as usual and the API ignores what precedes its block; yours, a
  message you write;
- in the background: on demand, yes: keep working on the full history, then replace
  exactly the messages the request held [2]; at a threshold, no;
- recent turns kept verbatim: on demand, yes, you choose the cut; at a threshold, no;
  yours, yes (`SummarizeMiddle`'s tail).

The `compaction` block [4]: `content` (the summary; null when the compaction failed, a
no-op the API accepts back), `encrypted_content` (opaque), `signature` and
`tool_changes`, all sent back unchanged: a changed block is refused with a 400 whose
`error.details.error_code` names it (`compaction_signature_invalid`,
`compaction_content_mismatch`, `compaction_tool_changes_mismatch`,
`compaction_block_misplaced`, `compaction_block_ambiguous`,
`compaction_nothing_to_summarize`, `compaction_incomplete_turn`) [5].
A mid-conversation `{"role": "system"}` message (right after a user message) restates
instructions without touching the cached prefix; one inside a summarized range is
summarized away [6]. Which models accept what is reported by the Models API, per model:
`capabilities.compaction` and `capabilities.context_management` [7].

OpenAI's Responses API has the same ideas under other names [8][9][10]:

- `context_management=[{"type": "compaction", "compact_threshold": N}]` on
  `responses.create`: the server compacts when the rendered input passes N; here
  `compact_edit(N)`, or the agent's own trigger (`compact_at`);
- `POST /responses/compact`: compacts the given window at once and returns the compacted
  items; here the on-demand `compaction` parameter (`ServerSummarize`), or `CompactAll`;
- the `compaction` output item, whose `encrypted_content` is opaque: append it and what
  follows, and what precedes it may be dropped; here the `compaction` block, whose
  `content` is readable, with `encrypted_content` and `signature` beside it;
- the `compaction_trigger` input item (it must be the last input item): asks for a
  compaction inside an ordinary request; here the on-demand `compaction` parameter, a
  request of its own.

`context_request()` puts the edits together as the keyword arguments of
`client.beta.messages.create()`: the `betas` each feature needs, `context_management`
with its `edits`, and the tools.

Left out: the `context_management` report that comes back, and capability discovery
itself (it needs a live Models API).
"""

# Sources (docs pages under platform.claude.com/docs/en/; SDK types of `anthropic` 2.16):
# [1] build-with-claude/compaction ("Choose how to compact": who decides, what you send
#     back, "Use on-demand compaction wherever it is available")
# [2] build-with-claude/compaction-background (the swap: drop exactly the messages sent)
# [3] build-with-claude/context-editing; SDK `BetaContextManagementConfigParam`
# [4] SDK `BetaCompactionBlock`, `BetaCompactionBlockParam`, `BetaCompactionConfigParam`,
#     `MessageCreateParams.compaction`, `BetaIterationsUsage`
# [5] SDK `anthropic.types.compaction_*_error` (`CompactionSignatureInvalidError`, ...)
# [6] build-with-claude/mid-conversation-system-messages; SDK `BetaSystemMessageParam`
# [7] SDK `BetaModelCapabilities.compaction` / `.context_management`
# [8] developers.openai.com/api/docs/guides/compaction (`compact_threshold`,
#     `/responses/compact`, the encrypted compaction item)
# [9] OpenAI OpenAPI `CompactionTriggerItemParam` ("Must be the final input item")
# [10] openai-agents-js `RunCompactionItem` (`encrypted_content`)

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .memory_tool import MEMORY_TOOL_NAME
from .strategies.clear import ClearToolResults
from .vocab import COMPACT, SUMMARIZE

CONTEXT_EDITING_BETA = "context-management-2025-06-27"  # context editing and the memory tool
COMPACTION_BETA = "compact-2026-01-12"
# On-demand compaction's beta: anthropic SDK 2.16, `lib/tools/_beta_runner.py`
# (`compact_before_next_turn()` "Requires the `compact-2026-09-04` beta"); docs page
# build-with-claude/compaction-background (its `betaHeader`).
ON_DEMAND_BETA = "compact-2026-09-04"
CLEAR_TOOL_USES = "clear_tool_uses_20250919"
CLEAR_THINKING = "clear_thinking_20251015"
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


def compact_edit(trigger: int, instructions: str | None = None, *,
                 pause_after_compaction: bool = False) -> dict[str, Any]:
    """A `compact_20260112` edit firing above `trigger` input tokens (at least 50,000).
    `pause_after_compaction` ends the reply right after the `compaction` block (stop
    reason "compaction"), so the client can add to the turn before the model goes on
    (SDK `BetaCompact20260112EditParam.pause_after_compaction`)."""
    if trigger < MIN_COMPACT_TRIGGER:
        raise ValueError(f"the API's compaction trigger must be at least "
                         f"{MIN_COMPACT_TRIGGER:_} tokens, not {trigger:_}")
    if not isinstance(pause_after_compaction, bool):
        raise TypeError(f"pause_after_compaction takes True or False, not "
                        f"{pause_after_compaction!r}")
    edit: dict[str, Any] = {"type": COMPACT, "trigger": _tokens("input_tokens", trigger)}
    if instructions:
        edit["instructions"] = instructions
    if pause_after_compaction:
        edit["pause_after_compaction"] = True
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
    return {"type": MEMORY_TOOL, "name": MEMORY_TOOL_NAME}


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
