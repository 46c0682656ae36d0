"""The agent loop: ask the model, run the tools it asks for, repeat until it answers.

The loop knows nothing about particular tools. It receives an ``execute`` callable that
takes a tool name and its arguments and returns (output, failed); whoever builds the
agent decides how names map to code. The loop stops on a final text answer, on the turn
limit, or when the model asks for the same failing call three times in a row.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

log = logging.getLogger("agents.loop")

Executor = Callable[[str, dict[str, Any]], tuple[str, bool]]
MAX_SAME_FAILURE = 3


class ModelClient(Protocol):
    def create(
        self,
        *,
        system: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        max_tokens: int,
    ) -> Any: ...


@dataclass
class LoopResult:
    answer: str
    turns: int
    stopped_because: str
    messages: list[dict[str, Any]] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0


def _call_key(block: dict[str, Any]) -> str:
    return block["name"] + json.dumps(block.get("input", {}), sort_keys=True)


def run_agent_loop(
    client: ModelClient,
    system: str,
    task: str,
    tools: list[dict[str, Any]],
    execute: Executor,
    max_turns: int = 30,
    max_tokens: int = 4096,
) -> LoopResult:
    """Run one task to completion (or to a limit) and return what happened."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": task}]
    result = LoopResult(answer="", turns=0, stopped_because="", messages=messages)
    last_failure, repeats = "", 0
    for turn in range(1, max_turns + 1):
        result.turns = turn
        reply = client.create(system=system, messages=messages, tools=tools, max_tokens=max_tokens)
        result.input_tokens += reply.usage.input_tokens
        result.output_tokens += reply.usage.output_tokens
        content = [
            block.model_dump() if hasattr(block, "model_dump") else block for block in reply.content
        ]
        messages.append({"role": "assistant", "content": content})
        calls = [b for b in content if b.get("type") == "tool_use"]
        if not calls:
            result.answer = "".join(b.get("text", "") for b in content)
            result.stopped_because = "answered"
            return result
        results = []
        for call in calls:
            output, failed = execute(call["name"], call.get("input") or {})
            log.info("turn %d: %s -> %s", turn, call["name"], "error" if failed else "ok")
            key = _call_key(call)
            repeats = repeats + 1 if failed and key == last_failure else int(failed)
            last_failure = key if failed else ""
            results.append(
                {
                    "type": "tool_result",
                    "tool_use_id": call["id"],
                    "content": output,
                    "is_error": failed,
                }
            )
        messages.append({"role": "user", "content": results})
        if repeats >= MAX_SAME_FAILURE:
            result.stopped_because = "the same call failed three times"
            return result
    result.stopped_because = f"reached {max_turns} turns"
    return result
