"""API faults through the real `anthropic` SDK against the local Messages API: the matrix.

Every fault the fake can inject (429 with `retry-after`, 529, 500, a read timeout, a dropped
connection, a malformed JSON body, a 400) is fired at a seeded random request of a real
agent run, once in the main call (the agent's own turn) and once in a summary call (the
`aux` summarizer's separate request, told apart by having no tools), and both within the
retry budget (one fault; `max_retries=1`) and past it (a fault on the retry too).

The outcome of each case is read from the evidence, not assumed:
- **retried**: the SDK sent the same request again (`x-stainless-retry-count: 1`) and the
  run finished as if nothing happened;
- **failed cleanly**: the run ended with one `Failed` event and a one-line message, the
  transcript (in memory and on disk) holds everything up to the failure, the request that
  failed carried exactly the live context, and `agent.resume(run)`, started from the
  stored session (the in-memory lists are wiped first), finished the task;
- **fallback**: the summary call failed, the turn was trimmed instead (keeping a fallback
  summary of the trimmed turns), and the `Compacted` event's note says so.

`test_fault_matrix` builds the whole matrix, prints it (`pytest -s`) and asserts it.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from jupyter_compaction import scenarios
from jupyter_compaction.agent import Agent, Run
from jupyter_compaction.events import Compacted, Failed, Finished
from jupyter_compaction.history import validate
from jupyter_compaction.models.anthropic import build_request
from jupyter_compaction.models.simulated import SimulatedModel
from jupyter_compaction.store import SessionStore
from jupyter_compaction.summarizers import SUMMARIZER_SYSTEM
from tests.support.fake_messages_api import (
    FAULT_KINDS,
    FakeMessagesAPI,
    Fault,
    model_responder,
    strip_cache_control,
)
from tests.support.needs import NEEDS_ANTHROPIC
from tests.support.scripted import Accepting

pytestmark = NEEDS_ANTHROPIC

KEY = "sk-ant-test-FAULTMATRIX-0006"
SCENARIO, STRATEGY, BUDGET, MAX_TURNS = "logistics", "summarize", 5000, 40
MAX_RETRIES = 1
CLIENT_TIMEOUT = 0.5  # seconds; the fake's "timeout" fault stays silent longer than this
FAKE_SLEEP = 0.7
RETRYABLE = ("429", "529", "500", "timeout", "disconnect")
ERROR_WORDS = {"429": "429 rate_limit_error", "529": "529 overloaded_error",
               "500": "500 api_error", "400": "400 invalid_request_error",
               "timeout": "timed out", "disconnect": "connection error",
               "malformed": "malformed response"}
PHASES = ("main call", "summary call")
RETRIED, FAILED, FALLBACK = "retried", "failed cleanly -> resumed", "fallback (trimmed)"
NOT_RETRIED = "n/a (never retried)"


def is_summary_request(body: dict[str, Any] | None) -> bool:
    """The `aux` summarizer's request: no tools and the summarizer's own system prompt."""
    if not body:
        return False
    system = body.get("system") or ""
    if isinstance(system, list):
        system = "".join(block.get("text", "") for block in system)
    return not body.get("tools") and system == SUMMARIZER_SYSTEM


def served(api: FakeMessagesAPI) -> list[list[dict[str, Any]]]:
    """The contents of the 200 answers the fake sent to main calls, in order (a reply the
    client timed out on is among them, so this is a superset of what it accepted)."""
    return [r["response"]["content"] for r in api.message_requests
            if r["status"] == 200 and r["fault"] is None and not is_summary_request(r["body"])]


def in_order_within(part: list[Any], whole: list[Any]) -> bool:
    rest = iter(whole)
    return all(any(item == other for other in rest) for item in part)


def assert_nothing_lost(run: Run, model: Accepting, api: FakeMessagesAPI) -> None:
    """Every reply the client accepted is in the transcript once, in order, and nothing
    else is; and each of them is one the server really sent."""
    replies = [m["content"] for m in run.transcript if m["role"] == "assistant"]
    assert replies == model.replies(skip=is_summary_request)
    assert in_order_within(replies, served(api))


def sent_form(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`messages` as the adapter puts them on the wire, without cache markers."""
    return strip_cache_control(build_request(system="", messages=messages, tools=[],
                                             cache=True)["messages"])


class Case:
    """One agent run against a fresh fake, with a store on disk."""

    def __init__(self, tmp_path: Path, name: str, faults: list[Fault] = ()):
        self.root = tmp_path / name
        self.api = FakeMessagesAPI(model_responder(SimulatedModel(SCENARIO)),
                                   timeout_sleep=FAKE_SLEEP, retry_after_ms=10)
        self.api.faults.extend(faults)
        self.store = SessionStore(self.root / "sessions")
        spec = scenarios.load(SCENARIO)
        self.workspace = spec.prepare(self.root / "workspace")
        self.model: Accepting | None = None  # built on entry, pointed at the fake
        self.tools = spec.tools(self.workspace)

    def agent(self) -> Agent:
        return Agent(self.model, tools=self.tools, budget=BUDGET, strategy=STRATEGY,
                     summarizer="aux", store=self.store, workspace=self.workspace)

    def __enter__(self) -> Case:
        self.api.start()
        self.model = Accepting(api_key=KEY, base_url=self.api.base_url,
                               max_retries=MAX_RETRIES, timeout=CLIENT_TIMEOUT)
        return self

    def __exit__(self, *exc: object) -> None:
        self.api.stop()


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[int]]:
    """A clean run: which request indices are main calls and which are summary calls."""
    with Case(tmp_path_factory.mktemp("reference"), "clean") as case:
        run = case.agent().run(scenarios.load(SCENARIO).task, max_turns=MAX_TURNS)
    assert run.status == "finished" and scenarios.load(SCENARIO).is_correct(run.answer)
    indices = {"main call": [], "summary call": []}
    for request in case.api.message_requests:
        phase = "summary call" if is_summary_request(request["body"]) else "main call"
        indices[phase].append(request["index"])
    assert len(indices["summary call"]) >= 3, "the scenario must summarize a few times"
    return indices


def one_line(text: str | None) -> bool:
    return bool(text) and "\n" not in text and "Traceback" not in text and len(text) < 400


def play_case(tmp_path: Path, kind: str, phase: str, at: int, times: int) -> tuple[str, str]:
    """Run one fault case, check everything the outcome promises; return (outcome, detail)."""
    faults = [Fault(kind, at=at + k) for k in range(times)]
    task = scenarios.load(SCENARIO).task
    with Case(tmp_path, f"{kind}-{phase.split()[0]}-{times}", faults) as case:
        agent = case.agent()
        run = agent.run(task, max_turns=MAX_TURNS)
        api = case.api
        assert [i for i, _ in api.fired] == [at + k for k in range(times)], api.fired
        failed_request = api.message_requests[at + times - 1]
        outcome = None
        if run.status == "failed":
            outcome = FAILED
            check_clean_failure(case, run, kind, failed_request)
            run = resume_from_disk(agent, run, case)
        retry_counts = [r["headers"].get("x-stainless-retry-count") for r in api.message_requests]
        if outcome is None:
            fallbacks = [e for e in run.of(Compacted) if e.note.startswith("summary failed")]
            if fallbacks:
                outcome = FALLBACK
                check_fallback(run, fallbacks, kind)
            elif any(c not in (None, "0") for c in retry_counts):
                outcome = RETRIED
                check_retried(api, at)
            else:
                outcome = "no visible effect"
        assert run.status == "finished", (kind, phase, run.status, run.error)
        assert isinstance(run.events[-1], Finished)
        validate(run.messages)
        assert case.store.transcript(run.session_id) == run.transcript
        assert_nothing_lost(run, case.model, api)
        detail = next((e.error for e in run.of(Failed)), None) or next(
            (e.note for e in run.of(Compacted) if e.note.startswith("summary failed")), "")
    return outcome, detail


def check_clean_failure(case: Case, run: Run, kind: str, failed_request: dict) -> None:
    failures = run.of(Failed)
    assert len(failures) == 1 and run.events[-1] is failures[0]
    assert failures[0].reason == "model"
    assert one_line(run.error) and run.error == failures[0].error
    assert ERROR_WORDS[kind] in run.error, run.error
    # Everything up to the failure is kept, in memory and on disk ...
    assert case.store.transcript(run.session_id) == run.transcript
    assert case.store.context(run.session_id) == run.messages
    assert [e["kind"] for e in case.store.events(run.session_id)] == [e.kind for e in run.events]
    # ... the failed call carried exactly the live context, whose last message is the newest
    # one of the transcript (the task, or the tool results the reply asked for) ...
    assert strip_cache_control(failed_request["body"]["messages"]) == sent_form(run.messages)
    assert run.transcript[-1] == run.messages[-1] and run.transcript[-1]["role"] == "user"
    # ... and every reply the client accepted before it is in the transcript, once, in order.
    assert_nothing_lost(run, case.model, case.api)


def resume_from_disk(agent: Agent, run: Run, case: Case) -> Run:
    """Resume with the in-memory lists wiped: the session store must supply them."""
    context, transcript = list(run.messages), list(run.transcript)
    sent_before = len(case.api.message_requests)
    run.messages, run.transcript = [], []
    run = agent.resume(run, max_turns=MAX_TURNS)
    first = case.api.message_requests[sent_before]
    assert strip_cache_control(first["body"]["messages"]) == sent_form(context), \
        "resume continues exactly where the run stopped"
    assert run.transcript[:len(transcript)] == transcript
    assert scenarios.load(SCENARIO).is_correct(run.answer)
    return run


def check_fallback(run: Run, fallbacks: list[Compacted], kind: str) -> None:
    assert len(fallbacks) == 1
    event = fallbacks[0]
    assert event.strategy == "trim" and event.summary is None
    assert event.note.startswith("summary failed (ModelError: ")
    assert event.note.endswith("; trimmed instead; a fallback summary keeps the trimmed "
                               "turns' calls, files and identifiers") and one_line(event.note)
    assert ERROR_WORDS[kind] in event.note
    assert event.tokens_after < event.tokens_before
    assert not run.of(Failed)


def check_retried(api: FakeMessagesAPI, at: int) -> None:
    first, again = api.message_requests[at], api.message_requests[at + 1]
    assert first["fault"] is not None and again["fault"] is None
    assert again["headers"]["x-stainless-retry-count"] == "1"
    assert again["body"] == first["body"], "the SDK sends the very same request again"


def expected(kind: str, phase: str, times: int) -> str:
    if kind not in RETRYABLE and times > 1:
        return NOT_RETRIED
    if kind in RETRYABLE and times <= MAX_RETRIES:
        return RETRIED
    return FAILED if phase == "main call" else FALLBACK


@pytest.mark.slow
def test_fault_matrix(tmp_path: Path, reference: dict[str, list[int]]) -> None:
    rng = random.Random(6)
    rows, got, want = [], {}, {}
    for kind in FAULT_KINDS:
        for phase in PHASES:
            at = rng.choice(reference[phase])
            for times in (1, MAX_RETRIES + 1):
                key = (kind, phase, times)
                want[key] = expected(kind, phase, times)
                if want[key] == NOT_RETRIED:
                    got[key], detail = NOT_RETRIED, ""
                else:
                    got[key], detail = play_case(tmp_path, kind, phase, at, times)
                rows.append((kind, phase, f"#{at}", f"{times}x", got[key], detail))
    print_table(rows)
    assert got == want


def print_table(rows: list[tuple[str, ...]]) -> None:
    header = ("fault", "phase", "request", "fired", "outcome", "message / note")
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(5)]
    line = "  ".join(f"{{:{w}}}" for w in widths) + "  {}"
    print(f"\n\nFault matrix (max_retries={MAX_RETRIES}, client timeout {CLIENT_TIMEOUT} s, "
          f"{STRATEGY} on '{SCENARIO}' with the aux summarizer)")
    print(line.format(*header))
    print(line.format(*("-" * w for w in widths), "-" * 14))
    for row in rows:
        print(line.format(*row[:5], row[5][:90]))


@pytest.mark.parametrize("kind", RETRYABLE)
def test_retries_follow_the_sdk_policy(tmp_path: Path, kind: str) -> None:
    """`max_retries=2`: two faults in a row are absorbed, the third attempt answers."""
    with Case(tmp_path, kind, [Fault(kind, at=0), Fault(kind, at=1)]) as case:
        case.model = Accepting(api_key=KEY, base_url=case.api.base_url, max_retries=2,
                               timeout=CLIENT_TIMEOUT)
        run = case.agent().run(scenarios.load(SCENARIO).task, max_turns=MAX_TURNS)
    counts = [r["headers"].get("x-stainless-retry-count") for r in case.api.message_requests[:3]]
    assert counts == ["0", "1", "2"]
    assert run.status == "finished" and not run.of(Failed)


@pytest.mark.parametrize("kind", ["400", "malformed"])
def test_permanent_faults_are_never_retried(tmp_path: Path, kind: str) -> None:
    with Case(tmp_path, kind, [Fault(kind, at=0)]) as case:
        run = case.agent().run(scenarios.load(SCENARIO).task, max_turns=MAX_TURNS)
    assert run.status == "failed" and len(case.api.message_requests) == 1
    assert run.transcript == [{"role": "user", "content": scenarios.load(SCENARIO).task}]
    assert one_line(run.error) and ERROR_WORDS[kind] in run.error


def test_a_failure_on_every_resume_still_loses_nothing(tmp_path: Path) -> None:
    """Three failures in a row at different turns, three resumes: one unbroken transcript."""
    # each index hits a main call (a fault on a summary call is a fallback, not a failure)
    with Case(tmp_path, "chain", [Fault("500", at=1), Fault("500", at=2),
                                  Fault("400", at=7), Fault("malformed", at=10)]) as case:
        agent = case.agent()
        run = agent.run(scenarios.load(SCENARIO).task, max_turns=MAX_TURNS)
        failures = 0
        while run.status == "failed" and failures < 5:
            failures += 1
            run = agent.resume(run, max_turns=MAX_TURNS)
    assert failures == 3 and run.status == "finished"
    assert [e.reason for e in run.of(Failed)] == ["model"] * 3
    assert case.store.transcript(run.session_id) == run.transcript
    assert_nothing_lost(run, case.model, case.api)
    assert scenarios.load(SCENARIO).is_correct(run.answer)


def test_a_429_waits_as_long_as_retry_after_says(tmp_path: Path, monkeypatch) -> None:
    """The fake asks for 700 ms; the SDK's own backoff would be at most 500 ms. The SDK's
    sleep is recorded, not timed, so the test reads no clock."""
    import anthropic._base_client as sdk

    slept: list[float] = []
    monkeypatch.setattr(sdk.time, "sleep", slept.append)
    with Case(tmp_path, "retry-after", [Fault("429", at=0)]) as case:
        case.api.retry_after_ms = 700
        run = case.agent().run(scenarios.load(SCENARIO).task, max_turns=1)
    assert run.status == "max_turns" and not run.of(Failed)
    assert case.api.fired == [(0, "429")] and slept == [0.7]
