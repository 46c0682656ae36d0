"""200 seeded random fault runs through the real SDK: not one transcript message is lost.

Each seed (0..199) draws a scenario, a strategy, a budget, a turn limit, a summarizer
(`aux` or `same`), task state and notes on or off, `max_retries` 0 or 1, and up to four
faults of random kinds at random request indices; the simulated model answers behind the
local Messages API. After the run, and after resuming it from the session store each time
it failed with a model error, these must hold:

- the run's transcript equals the one rebuilt from disk, and so do its context and events;
- every assistant reply the client accepted (one the SDK handed back to the library)
  appears in the transcript exactly once, in order, the transcript holds no other
  assistant message, and each of them is a 200 the fake really sent;
- every message the fake received was made of transcript material: each `tool_use` and
  `tool_result` it was sent exists in the transcript (a result with the same content, or
  the "cleared" placeholder), and each text block is a transcript text or a summary;
- the live context is a valid history, and every failure was one line.

Totals are printed at the end (`pytest -s`): runs, requests, faults fired, failures and
resumes, replies accepted, messages lost (0).

Timing: client timeout 0.3 s, the fake's 429/529/500 ask for a 10 ms `retry-after-ms`,
and the SDK's own backoff for timeouts and dropped connections (0.5 s and up) is cut to
20 ms by patching its `INITIAL_RETRY_DELAY`; which errors are retried, and how often, is
still the SDK's decision.
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from jupyter_compaction import scenarios
from jupyter_compaction.agent import Agent
from jupyter_compaction.events import Compacted, Failed
from jupyter_compaction.history import blocks, validate
from jupyter_compaction.models.simulated import SimulatedModel
from jupyter_compaction.store import SessionStore
from jupyter_compaction.strategies import PLACEHOLDER, STRATEGIES
from jupyter_compaction.summaries import INSTRUCTIONS, is_summary
from tests.support.fake_messages_api import (
    FAULT_KINDS,
    FakeMessagesAPI,
    Fault,
    model_responder,
    strip_cache_control,
)
from tests.support.needs import NEEDS_ANTHROPIC
from tests.support.quick import quick_first
from tests.support.scripted import Accepting

pytestmark = NEEDS_ANTHROPIC

SEEDS = range(200)
KEY = "sk-ant-test-FUZZ-0006"
TOTALS: Counter[str] = Counter()


@pytest.fixture(scope="module")
def api():
    """One fake server for every seed (each run gets a fresh responder)."""
    with pytest.MonkeyPatch.context() as patch:
        import anthropic._base_client as sdk

        patch.setattr(sdk, "INITIAL_RETRY_DELAY", 0.02)
        with FakeMessagesAPI(timeout_sleep=0.4, retry_after_ms=10) as server:
            yield server
    print_totals()


def print_totals() -> None:
    if not TOTALS["runs"]:
        return
    kinds = ", ".join(f"{k} {TOTALS['fault_' + k]}" for k in FAULT_KINDS)
    print(f"\n\nSeeded fault runs: {TOTALS['runs']} runs, {TOTALS['requests']} requests "
          f"({TOTALS['summary_requests']} summary calls), {TOTALS['faults']} faults fired "
          f"({kinds}), "
          f"{TOTALS['failures']} Failed events ({TOTALS['resumes']} resumed, the rest stuck), "
          f"{TOTALS['fallbacks']} summary fallbacks, {TOTALS['accepted']} replies accepted, "
          f"{TOTALS['transcript']} transcript messages; lost messages: {TOTALS['lost']}, "
          f"duplicated: {TOTALS['duplicated']}, unknown blocks sent: {TOTALS['unknown']}; "
          f"ended: finished {TOTALS['end_finished']}, max_turns {TOTALS['end_max_turns']}, "
          f"stuck {TOTALS['end_failed']}")


def draw(seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    plan = {
        "scenario": rng.choice(scenarios.names()),
        "strategy": rng.choice(sorted(STRATEGIES)),
        "budget": rng.choice([3500, 4500, 5000, 6000, 8000, 12000]),
        "max_turns": rng.randint(6, 16),
        "summarizer": rng.choice(["aux", "same"]),
        "task_state": rng.random() < 0.7,
        "notes": rng.random() < 0.3,
        "max_retries": rng.choice([0, 1]),
    }
    plan["faults"] = [Fault(rng.choice(FAULT_KINDS), at=rng.randrange(0, 24))
                      for _ in range(rng.randint(0, 4))]
    return plan


def is_summary_request(body: dict[str, Any] | None) -> bool:
    """A summary call: `aux` sends one user message that opens with the instructions,
    `same` appends them as the last text block of the history's last user message."""
    messages = (body or {}).get("messages") or []
    if not messages:
        return False
    content = messages[-1]["content"]
    if isinstance(content, str):
        text = content
    elif len(messages) == 1:
        text = "".join(b.get("text", "") for b in content if isinstance(b, dict))
    else:
        text = content[-1].get("text", "") if content and isinstance(content[-1], dict) else ""
    return text.startswith(INSTRUCTIONS[:60])


def in_order_within(part: list[Any], whole: list[Any]) -> bool:
    rest = iter(whole)
    return all(any(item == other for other in rest) for item in part)


def texts(message: dict[str, Any]) -> list[str]:
    return [b["text"] for b in blocks(message) if b.get("type") == "text"]


def unknown_blocks(sent: list[dict[str, Any]], transcript: list[dict[str, Any]]) -> list[str]:
    """What a request carried that is not transcript material (nor a summary/placeholder)."""
    uses = {b["id"] for m in transcript for b in blocks(m) if b.get("type") == "tool_use"}
    results = {b["tool_use_id"]: b["content"] for m in transcript for b in blocks(m)
               if b.get("type") == "tool_result"}
    known_texts = {t for m in transcript for t in texts(m)}
    problems = []
    for message in strip_cache_control(sent):
        for block in blocks(message):
            kind = block.get("type")
            if kind == "tool_use" and block["id"] not in uses:
                problems.append(f"tool_use {block['id']}")
            elif kind == "tool_result" and results.get(block["tool_use_id"], object()) not in (
                    block["content"], ) and block["content"] != PLACEHOLDER:
                problems.append(f"tool_result {block['tool_use_id']}")
            elif kind == "text" and block["text"] not in known_texts and not is_summary(
                    block["text"]):
                problems.append(f"text {block['text'][:40]!r}")
    return problems


@pytest.mark.parametrize("seed", quick_first(SEEDS, keep=10))
def test_seeded_fault_run_loses_nothing(seed: int, api: FakeMessagesAPI, tmp_path: Path) -> None:
    plan = draw(seed)
    spec = scenarios.load(plan["scenario"])
    api.requests.clear()
    api.fired.clear()
    api.reset_cache()
    api.responder = model_responder(SimulatedModel(spec))
    base = api._message_index  # noqa: SLF001 - the fake numbers requests across runs
    api.faults[:] = [Fault(f.kind, at=base + f.at) for f in plan["faults"]]

    workspace = spec.prepare(tmp_path / "workspace")
    store = SessionStore(tmp_path / "sessions")
    model = Accepting(api_key=KEY, base_url=api.base_url,
                      max_retries=plan["max_retries"], timeout=0.3)
    agent = Agent(model, tools=spec.tools(workspace), budget=plan["budget"],
                  strategy=plan["strategy"], summarizer=plan["summarizer"],
                  task_state=plan["task_state"], notes=plan["notes"], workspace=workspace,
                  store=store)
    run = agent.run(spec.task, max_turns=plan["max_turns"])
    resumes = 0
    while run.status == "failed" and run.events[-1].reason == "model" and resumes < 8:
        assert store.transcript(run.session_id) == run.transcript  # kept up to the failure
        resumes += 1
        run = agent.resume(run, max_turns=plan["max_turns"])

    where = f"seed {seed}: {plan}"
    assert run.status in ("finished", "max_turns") or run.events[-1].reason == "stuck", where
    assert store.transcript(run.session_id) == run.transcript, where
    assert store.context(run.session_id) == run.messages, where
    assert [e["kind"] for e in store.events(run.session_id)] == [e.kind for e in run.events]
    assert store.problems == [], where
    validate(run.messages)
    for failure in run.of(Failed):
        assert failure.error and "\n" not in failure.error, where

    requests = api.message_requests
    main = [r for r in requests if not is_summary_request(r["body"])]
    served = [r["response"]["content"] for r in main
              if r["status"] == 200 and r["fault"] is None]
    accepted = model.replies(skip=is_summary_request)  # what the SDK handed back
    replies = [m["content"] for m in run.transcript if m["role"] == "assistant"]
    lost = sum(1 for content in accepted if content not in replies)
    duplicated = len(replies) - len(accepted) + lost
    unknown = [p for r in main if r["body"] for p in unknown_blocks(r["body"]["messages"],
                                                                     run.transcript)]
    TOTALS.update(runs=1, requests=len(requests), summary_requests=len(requests) - len(main),
                  faults=len(api.fired), failures=len(run.of(Failed)), resumes=resumes,
                  accepted=len(accepted), transcript=len(run.transcript), lost=lost,
                  duplicated=duplicated, unknown=len(unknown),
                  fallbacks=sum(e.note.startswith("summary failed") for e in run.of(Compacted)))
    TOTALS.update(f"fault_{kind}" for _, kind in api.fired)
    TOTALS[f"end_{run.status}"] += 1
    assert replies == accepted, where  # every accepted reply exactly once, in order
    assert in_order_within(replies, served), where  # and each one the server really sent
    assert not unknown, (where, unknown[:5])
