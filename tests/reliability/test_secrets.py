"""The API key never shows up anywhere: a marker key is used and everything is scanned.

A fresh marker key (`sk-ant-api03-MARKER-<random>`) drives Claude-path runs through the
real `anthropic` SDK against the local Messages API, given as an argument and through
`ANTHROPIC_API_KEY`, each with a failure and a resume, including a server that echoes the
key back in an error body. Then every place a key could leak to is scanned for it:

- `repr()` of the model, the agent, the run, the store and every event; every event's
  `to_dict()` as JSON; the transcript and the live context;
- every byte of every file the session store and the workspace hold;
- our exceptions: message, `repr`, `args`, and the formatted traceback with its cause
  chain (when the server did not echo the key itself);
- the magics' captured stdout/stderr and display outputs for `%%agent --model
  claude-haiku-4-5` (the SDK is pointed at the fake through `ANTHROPIC_BASE_URL`),
  `--resume`, `%context`, `%summary`, and the state of every widget created (live chart,
  event log, the lab);
- a notebook executed by nbclient with the key in the kernel's environment: the whole
  `.ipynb` JSON, outputs and saved widget state.
"""

from __future__ import annotations

import json
import os
import secrets
import sys
import traceback
from pathlib import Path
from typing import Any

import pytest

from jupyter_compaction import scenarios
from jupyter_compaction.agent import Agent, Run
from jupyter_compaction.models.anthropic import AnthropicModel, ModelError
from jupyter_compaction.models.simulated import SimulatedModel
from jupyter_compaction.store import SessionStore
from tests.support import shell
from tests.support.fake_messages_api import FakeMessagesAPI, Fault, model_responder
from tests.support.needs import NEEDS_ANTHROPIC

pytestmark = NEEDS_ANTHROPIC

TOKEN = f"MARKER-{secrets.token_hex(8)}"
KEY = f"sk-ant-api03-{TOKEN}-AAAA"
SCENARIO = "logistics"


def assert_clean(*things: Any, where: str = "") -> None:
    for thing in things:
        text = thing.decode("utf-8", "replace") if isinstance(thing, bytes) else str(thing)
        assert TOKEN not in text, f"the key leaked into {where or text[:200]}"


def files_under(*roots: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for root in roots for p in Path(root).rglob("*")
            if p.is_file()}


def scan_run(run: Run, agent: Agent, store: SessionStore, *roots: Path) -> None:
    assert_clean(repr(run), repr(agent.model), repr(store), repr(run.messages),
                 repr(run.transcript), run.error or "", run.answer or "", where="reprs")
    for event in run.events:
        assert_clean(repr(event), json.dumps(event.to_dict(), default=str), where=event.kind)
    for path, data in files_under(store.root, *roots).items():
        assert_clean(data, where=path)
    assert_clean(json.dumps(vars(agent.model), default=repr), where="vars(model)")


class EchoingResponder:
    """The simulated model behind the fake, except that `times` calls in a row fail with an
    error that quotes the key (as a misconfigured proxy might). `make_model` builds the
    magics' Claude model with the SDK's default of 2 retries, so they need 3."""

    def __init__(self, fail_from: int, times: int = 2):
        self.inner = model_responder(SimulatedModel(SCENARIO))
        self.calls, self.fail_from, self.times = 0, fail_from, times

    def __call__(self, body: dict[str, Any]) -> dict[str, Any]:
        self.calls += 1
        if self.fail_from <= self.calls < self.fail_from + self.times:
            raise PermissionError(f"key {KEY} is not allowed for this model")
        return self.inner(body)


def claude_run(tmp_path: Path, api: FakeMessagesAPI, **model_args: Any) -> tuple[Run, Agent,
                                                                                SessionStore]:
    spec = scenarios.load(SCENARIO)
    workspace = spec.prepare(tmp_path / "workspace")
    store = SessionStore(tmp_path / "sessions")
    model = AnthropicModel("claude-haiku-4-5", base_url=api.base_url, max_retries=1,
                           timeout=2.0, **model_args)
    agent = Agent(model, tools=spec.tools(workspace), budget=5000, strategy="progressive",
                  notes=True, workspace=workspace, store=store)
    run = agent.run(spec.task, max_turns=40)
    assert run.status == "failed", run.status
    failures = 1
    while run.status == "failed" and failures < 5:
        run = agent.resume(run, max_turns=40)
        failures += run.status == "failed"
    assert run.status == "finished" and spec.is_correct(run.answer)
    return run, agent, store


@pytest.mark.parametrize("via", ["argument", "environment"])
def test_a_failing_and_resumed_claude_run_never_shows_the_key(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, via: str) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    args: dict[str, Any] = {}
    if via == "argument":
        args["api_key"] = KEY
    else:
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    with FakeMessagesAPI(EchoingResponder(fail_from=4)) as api:
        api.faults += [Fault("500", at=8), Fault("500", at=9), Fault("malformed", at=13),
                       Fault("timeout", at=16), Fault("disconnect", at=17)]
        run, agent, store = claude_run(tmp_path, api, **args)
        assert api.fired and all(r["auth"] for r in api.requests)
        echoed = [r for r in api.requests if KEY in json.dumps(r["response"])]
        assert echoed, "the fake did echo the key in an error body"
    assert len(run.of(type(run.events[0]))) > 0
    failed = [e for e in run.events if e.kind == "failed"]
    # the echoing error ends a turn (failed) or a summary call (the compaction's note)
    shown = [e.error for e in failed] + [e.note for e in run.events if e.kind == "compacted"]
    assert failed and any("[redacted]" in text for text in shown)
    scan_run(run, agent, store)
    assert_clean(json.dumps([{k: v for k, v in r.items() if k != "response"}
                             for r in api.requests], default=str), where="requests sent")


@pytest.mark.parametrize("kind", ["429", "529", "500", "400", "timeout", "disconnect",
                                  "malformed"])
def test_our_exceptions_and_their_tracebacks_hold_no_key(kind: str) -> None:
    with FakeMessagesAPI(timeout_sleep=0.5) as api:
        api.faults.append(Fault(kind))
        model = AnthropicModel(api_key=KEY, base_url=api.base_url, max_retries=0, timeout=0.3)
        with pytest.raises(ModelError) as info:
            model.create(system="s", messages=[{"role": "user", "content": "hi"}], tools=[],
                         max_tokens=16)
    err = info.value
    assert_clean(str(err), repr(err), *map(repr, err.args), where="the exception")
    assert_clean("".join(traceback.format_exception(err)), where="the traceback and its cause")


def test_a_key_echoed_by_the_server_is_redacted_in_our_message() -> None:
    with FakeMessagesAPI(EchoingResponder(fail_from=1)) as api:
        model = AnthropicModel(api_key=KEY, base_url=api.base_url, max_retries=0, timeout=2)
        with pytest.raises(ModelError) as info:
            model.create(system="s", messages=[{"role": "user", "content": "hi"}], tools=[],
                         max_tokens=16)
    assert "[redacted]" in str(info.value)
    assert_clean(str(info.value), repr(info.value), *map(repr, info.value.args))
    # The SDK's own error, kept as __cause__ for debugging, carries the server's words as
    # they came; SECURITY.md says so. Ours never does.
    assert TOKEN in str(info.value.__cause__)


# -- the magics and the widgets -------------------------------------------------------------------

ip = shell.ip  # the shared fixture


@pytest.fixture
def shell_text() -> bool:
    """`ip` leaves the output mode to each test: it sets plain text or rich itself."""
    return False


@pytest.fixture
def shell_names() -> tuple[str, ...]:
    return ("claude_run",)


def all_widget_states() -> str:
    from ipywidgets.widgets import widget

    states = {mid: w.get_state() for mid, w in list(widget._instances.items())}
    return json.dumps(states, default=repr)


@pytest.mark.parametrize("rich", [False, True], ids=["text", "widgets"])
def test_the_magics_never_show_the_key(ip: Any, monkeypatch: pytest.MonkeyPatch,
                                       tmp_path: Path, rich: bool) -> None:
    from IPython.utils.capture import capture_output

    from jupyter_compaction.jupyter import magics as magics_module

    if rich:
        pytest.importorskip("ipywidgets")
        pytest.importorskip("plotly")
        monkeypatch.setattr(magics_module, "widgets_enabled", lambda shell=None: True)
    else:
        monkeypatch.setenv("JUPYTER_COMPACTION_TEXT", "1")
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    outputs = []
    with FakeMessagesAPI(EchoingResponder(fail_from=2, times=3)) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        with capture_output() as out:
            ip.run_cell(f"%%agent --scenario {SCENARIO} --model claude-haiku-4-5 --budget 5000 "
                        "--out claude_run\nFind out what the customer on ticket TCK-5521 is owed.")
        outputs.append(out)
        run = ip.user_ns["_agent_run"]
        assert run.status == "failed" and "[redacted]" in run.error
        assert len(api.message_requests) >= 3, "the SDK honoured ANTHROPIC_BASE_URL"
        for source in ("%agent --resume", "%context --full", "%summary claude_run",
                       "_agent_run", "_agent_run.events", "%compaction_budget"):
            with capture_output() as out:
                ip.run_cell(source)
            outputs.append(out)
        if rich:
            with capture_output() as out:
                ip.run_cell("%compaction_lab")
                ip.run_cell("_lab.run()")
            outputs.append(out)
    assert run.status == "finished"
    for out in outputs:
        assert "Traceback" not in out.stdout + out.stderr
        assert_clean(out.stdout, out.stderr, where="cell output")
        for output in out.outputs:
            assert_clean(json.dumps(output.data, default=repr), where="display output")
    session = ip.magics_manager.registry["CompactionMagics"].session
    assert_clean(repr(session), repr(ip.user_ns["_agent_run"]), where="session")
    scan_run(run, session.agent, SessionStore(tmp_path / "none"))
    if rich:
        assert_clean(all_widget_states(), where="widget state")
        assert "_lab" in ip.user_ns


# -- a real notebook ---------------------------------------------------------------------------

NOTEBOOK_CELLS = [
    "%load_ext jupyter_compaction",
    "CONTEXT_BUDGET = 5000",
    f"%%agent --scenario {SCENARIO} --model claude-haiku-4-5\n"
    "Find out what the customer on ticket TCK-5521 is owed.",
    "%agent --resume",
    "%context",
    "%summary",
    "_agent_run",
    "[e.to_dict() for e in _agent_run.events][-3:]",
    "%compaction_lab",
    "_lab.run()",
]


@pytest.mark.slow
def test_an_executed_notebook_holds_no_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")

    repo = Path(__file__).resolve().parents[2]
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in NOTEBOOK_CELLS]
    with FakeMessagesAPI(EchoingResponder(fail_from=2, times=3)) as api:
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        monkeypatch.delenv("JUPYTER_COMPACTION_TEXT", raising=False)
        monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
            [str(repo), *filter(None, [os.environ.get("PYTHONPATH")])]))
        client = nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                                         resources={"metadata": {"path": str(tmp_path)}},
                                         store_widget_state=True)
        client.execute()
        requests = len(api.message_requests)
    path = tmp_path / "executed.ipynb"
    nbformat.write(nb, str(path))
    raw = path.read_bytes()
    assert requests >= 5, "the kernel's run went to the fake"
    text = raw.decode("utf-8")
    assert "Run failed at turn" in text and "[redacted]" in text  # it did fail, then resumed
    assert "Resuming _agent_run" in text
    assert "application/vnd.jupyter.widget-state+json" in text or "widget-view" in text
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors, errors
    assert_clean(raw, where="the executed notebook")
    assert sys.executable  # the kernel ran with this environment's python
