"""Secrets and terminal safety at every sink: a matrix of secret kind x sink, and a
control-character check per plain-text view.

One world is built per module. A scripted model works through config files whose text
holds one secret of every kind `redact.py` knows, plus ANSI colours, an OSC 8 hyperlink
and the bell; the task and the model's own words (its notes, its summary, its answer, an
error it raises) carry them too. Its run compacts with summaries (the auxiliary
summarizer), fails once and is resumed with `%agent --resume`, then compacted again with
`%compact` and a focus that carries them as well. A session log made of the same turns is
replayed through the CLI and `%replay`. Every sink below then holds no secret (the
"value" part of each) and, where it shows the data, the `[REDACTED <kind>]` label in its
place, so the test cannot pass by showing nothing:

- the summary prompts the summarizer model received, the summaries, the fallback summary
  (written without a model, for trimmed turns), the `compacted` events (`to_dict()`);
- `%summary`, `%context --full`, `%agent` (its resume line, live rows and result) and
  `%compact`, each in plain text and (with widgets) in its HTML and text/plain forms;
- replay: the summarizer's input and output, the CLI's text and `--json` output, and
  `%replay`'s text and `--json`.

What the tools returned stays in the transcript and the session store (SECURITY.md).
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from jupyter_compaction import sessions
from jupyter_compaction.agent import Agent
from jupyter_compaction.cli import main
from jupyter_compaction.events import Compacted
from jupyter_compaction.fallback_summary import fallback_summary
from jupyter_compaction.models.base import Reply, Usage
from jupyter_compaction.replay import replay
from jupyter_compaction.settings import DEFAULTS
from jupyter_compaction.tokens import TokenCounter
from tests.support import shell

pytest.importorskip("IPython")
ip, shell_text, shell_names = shell.ip, shell.shell_text, shell.shell_names  # the shared fixtures

PEM = ("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7\n"
       "-----END RSA PRIVATE KEY-----")
JWT = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ."
       "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c")
# kind: (how it appears in a file, the part that must never be shown)
SECRETS: dict[str, tuple[str, str]] = {
    "private key": (PEM, "MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn"),
    "Anthropic key": ("sk-ant-api03-Qm9yZXN0LWdyZWVuLWtleS0wMDAx", "Qm9yZXN0LWdyZWVuLWtleS0wMDAx"),
    "OpenAI key": ("sk-proj-T3BlbkFJx9v2KqLmN4pR7sW1zY5bC8dE0fG", "T3BlbkFJx9v2KqLmN4pR7sW1zY5"),
    "GitHub token": ("ghp_R8fK2mN9pQ4sT7vW1xZ3bD6gH0jL5nP8rU2y", "R8fK2mN9pQ4sT7vW1xZ3bD6gH0"),
    "AWS key id": ("AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    "AWS secret": ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                   "wJalrXUtnFEMI/K7MDENG"),
    "bearer token": ("Authorization: Bearer 9f8e7d6c5b4a39281706f5e4d3c2b1a0",
                     "9f8e7d6c5b4a39281706f5e4d3c2b1a0"),
    "JWT": (JWT, "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV"),
    "Slack token": ("xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
                    "AbCdEfGhIjKlMnOpQrStUvWx"),
    "URL password": ("DATABASE_URL=postgres://app:Pw4qZ8rT2vLx@db.internal:5432/orders",
                     "Pw4qZ8rT2vLx"),
    "Google API key": ("AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY", "9tSrke72PouQMnMX"),
    "Stripe key": ("sk_live_4eC39HqLyjWDarjtT1zdp7dc", "4eC39HqLyjWDarjtT1zdp7dc"),
    "secret": ("export DB_PASSWORD=n0t4r3alPassw0rd", "n0t4r3alPassw0rd"),
    # kinds the hostile-input suite found leaking (issue 35), in our own samples, few and
    # short so that %context's cut still shows every label (all kinds: test_redact_kinds)
    "gitlab-pat": ("glpat-Hq4Vz8Lm2Xc6Bn0Rt5Yw", "Hq4Vz8Lm2Xc6Bn0Rt5Yw"),
    "huggingface-access-token": ("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", "KqWeRtYuIoPaSdFgHj"),
    "netrc password": ("machine h password Nrc-8x2Qw7Zp", "Nrc-8x2Qw7Zp"),
    "SAS signature": ("x?sig=Qw9Er7Ty5Ui3Op1As2Df4Gh6", "Qw9Er7Ty5Ui3Op1As2Df4Gh6"),
}
LEAK = "\n".join(text for text, _ in SECRETS.values())
ONE_LINE = " ".join(text for kind, (text, _) in SECRETS.items() if kind != "private key")
# An ANSI colour, an OSC 8 hyperlink (ended by ESC \ ), a window title (ended by the bell),
# a bare bell, a C1 CSI and a backspace.
CONTROL = ("\x1b[31mred\x1b[0m \x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\ "
           "\x1b]0;title\x07 bell\x07 \x9b2J back\x08")
CONTROL_CHAR = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
CALLS = 10  # tool calls before the answer
FAIL_AT = 4  # the model call that fails once
BUDGET = 3_000
TASK = f"Audit these settings {CONTROL}:\n{LEAK}"
# A focus is typed on one line, which shlex splits: OSC 8 ended by the bell, no backslash.
FOCUS = f"{ONE_LINE} \x1b[31mred\x1b[0m \x1b]8;;https://evil.example\x07link\x1b]8;;\x07 \x07"


def leaky_file(n: int) -> str:
    return f"# config{n}.env {CONTROL}\n{LEAK}\n" + f"setting_{n} = value {n}\n" * 40


class LeakyModel:
    """Reads a config file per turn, then answers; its summaries, notes, answer and one
    error repeat every secret (a model may do that), with control characters."""

    name = "leaky"

    def __init__(self) -> None:
        self.n = 0
        self.summary_requests: list[str] = []

    def create(self, *, system: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
               max_tokens: int, cache: bool | None = None) -> Reply:
        if not tools:  # the auxiliary summarizer's request
            self.summary_requests.append(system + json.dumps(messages))
            return Reply([{"type": "text", "text": f"## Goal\nAudit.\n{LEAK}\n{CONTROL}"}],
                         usage=Usage(10, 5))
        self.n += 1
        if self.n == FAIL_AT:
            raise RuntimeError(f"upstream broke on {ONE_LINE} {CONTROL}")
        if self.n > CALLS:
            return Reply([{"type": "text", "text": f"Done. {LEAK}\n{CONTROL}"}],
                         usage=Usage(10, 5))
        return Reply([{"type": "text", "text": f"Reading config{self.n}.env {CONTROL}"},
                      {"type": "tool_use", "id": f"toolu_{self.n}", "name": "read_file",
                       "input": {"path": f"config{self.n}.env"}}],
                     stop_reason="tool_use", usage=Usage(10, 5))


def read_file(path: str) -> str:
    """Read a config file."""
    return leaky_file(int(re.sub(r"\D", "", path) or 0))


def capture(call: Any, *args: Any) -> str:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        call(*args)
    return out.getvalue() + err.getvalue()


def shown(outputs: Any) -> str:
    """Everything IPython captured: printed text and every display's data."""
    return outputs.stdout + outputs.stderr + "".join(
        json.dumps(o.data) + "".join(str(v) for v in o.data.values()) for o in outputs.outputs)


def magic_outputs(ip: Any, run: Any, agent: Agent, log: Path) -> dict[str, str]:
    from IPython.utils.capture import capture_output

    from jupyter_compaction.jupyter import MAGICS_CLASS
    from jupyter_compaction.runner import ScenarioRun

    magics = ip.magics_manager.registry[MAGICS_CLASS]
    # a registered scenario, with a task it does not grade
    magics.session = ScenarioRun("agents", DEFAULTS, agent, run.task, run)
    ip.user_ns["_agent_run"] = run
    out = {}
    for name, source in [("%agent", "%agent --resume"), ("%summary", "%summary"),
                         ("%context", "%context --full"), ("%compact", f"%compact {FOCUS}"),
                         ("%replay", f"%replay {log} --budget {BUDGET} --strategy compact"),
                         ("%replay --json", f"%replay {log} --budget {BUDGET} "
                                            "--strategy compact --json")]:
        with capture_output() as captured:
            result = ip.run_cell(source)
        assert result.success, (source, result.error_in_exec)
        out[name] = shown(captured)
    assert run.status == "finished", run.error
    return out


def session_log() -> list[dict[str, Any]]:
    """A recorded session of the same work, as a message list: every file read, answered."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": TASK}]
    for n in range(1, CALLS + 1):
        messages += [
            {"role": "assistant", "content": [
                {"type": "text", "text": f"Reading config{n}.env {CONTROL}"},
                {"type": "tool_use", "id": f"toolu_{n}", "name": "read_file",
                 "input": {"path": f"config{n}.env"}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": leaky_file(n)}]}]
    return [*messages, {"role": "assistant", "content": f"Done. {LEAK}"}]


def failed_run() -> tuple[LeakyModel, Agent, Any]:
    model = LeakyModel()
    agent = Agent(model, tools=[read_file], budget=BUDGET, strategy="compact", task_state=False)
    run = agent.run(TASK, max_turns=30)
    assert run.status == "failed" and run.compactions
    return model, agent, run


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    from jupyter_compaction.jupyter import MAGICS_CLASS
    from jupyter_compaction.jupyter import magics as magics_module

    tmp = tmp_path_factory.mktemp("sinks")
    model, agent, run = failed_run()
    log = tmp / "session.json"
    log.write_text(json.dumps(session_log()))
    views: dict[str, dict[str, str]] = {}
    for mode in ("text", "widgets"):
        with pytest.MonkeyPatch.context() as mp:
            if mode != "text":
                pytest.importorskip("ipywidgets")
                pytest.importorskip("plotly")
            ipython = shell.fresh_shell(mp, shell.MAGIC_NAMES, text=mode == "text")
            mp.setattr(magics_module, "widgets_enabled", lambda shell=None, on=mode: on != "text")
            # each mode resumes a failed run of its own
            _, own_agent, own_run = (model, agent, run) if mode == "text" else failed_run()
            views[mode] = magic_outputs(ipython, own_run, own_agent, log)
    ipython.magics_manager.registry[MAGICS_CLASS].session = None
    for name in shell.MAGIC_NAMES:
        ipython.user_ns.pop(name, None)
    dropped = [{"role": "assistant", "content": [
        {"type": "text", "text": f"Found {text.splitlines()[-1]}"},
        {"type": "tool_use", "id": f"toolu_{i}", "name": "read_file",
         "input": {"path": "a.env", "content": text}}]} for i, (text, _) in
        enumerate(SECRETS.values())]
    spied: list[str] = []

    def spy(prompt: str) -> str:
        spied.append(prompt)
        return f"## Goal\n{LEAK}"

    replayed = replay(sessions.load(log), "compact", BUDGET, summarizer=spy)
    assert replayed.compactions and spied
    yield {
        "run": run, "model": model, "views": views, "log": log, "spied": spied,
        "replayed": replayed,
        "fallback": fallback_summary(dropped, None, TokenCounter(), limit=2_000),
    }


def compacted_events(run: Any) -> str:
    return json.dumps([e.to_dict() for e in run.events if isinstance(e, Compacted)],
                      default=str)


def cli(*args: str) -> str:
    def call() -> None:
        assert main(list(args)) == 0
    return capture(call)


# sink: (the text it shows, given the world; whether it shows every kind's label)
SINKS: dict[str, Any] = {
    "summary prompts (sent to the summarizer)": lambda w: "\n".join(w["model"].summary_requests),
    "summaries": lambda w: "\n".join(c.summary or "" for c in w["run"].compactions),
    "fallback summary": lambda w: w["fallback"],
    "compacted events": lambda w: compacted_events(w["run"]),
    "replay summarizer input": lambda w: "\n".join(w["spied"]),
    "replay summaries": lambda w: replay_summaries(w),
    "replay CLI text": lambda w: cli("replay", str(w["log"]), "--budget", str(BUDGET),
                                     "--strategy", "compact"),
    "replay CLI --json": lambda w: cli("replay", str(w["log"]), "--budget", str(BUDGET),
                                       "--strategy", "compact", "--json"),
    **{f"{magic} ({mode})": (lambda w, m=magic, o=mode: w["views"][o][m])
       for magic in ("%agent", "%summary", "%context", "%compact", "%replay", "%replay --json")
       for mode in ("text", "widgets")},
}
# Sinks that show the secret-bearing text itself, so these kinds' labels must be there.
LABELLED: dict[str, set[str]] = {
    **{sink: set(SECRETS) for sink in (
        "summary prompts (sent to the summarizer)", "summaries", "compacted events",
        "replay summarizer input", "replay summaries",
        *(f"{m} ({o})" for m in ("%agent", "%summary", "%context") for o in ("text", "widgets")))},
    # a one-line focus cannot hold a PEM block; the fallback keeps a note's first line and
    # shortens a long tool input, so a PEM block's body never gets there either
    **{sink: set(SECRETS) - {"private key"}
       for sink in ("fallback summary", "%compact (text)", "%compact (widgets)")},
}


def replay_summaries(world: dict[str, Any]) -> str:
    """The summaries the replay's strategy kept, as the next summary prompts carry them
    (the `Replay` record holds only their sizes)."""
    found = re.findall(r"<previous-summary>\n(.*?)\n</previous-summary>",
                       "\n".join(world["spied"]), re.S)
    return "\n".join(found)


@pytest.mark.parametrize("sink", SINKS)
@pytest.mark.parametrize("kind", SECRETS)
def test_no_secret_reaches_a_sink(world: dict[str, Any], sink: str, kind: str) -> None:
    text = SINKS[sink](world)
    assert text.strip(), f"{sink} showed nothing"
    assert SECRETS[kind][1] not in text, f"the {kind} reached {sink}"
    if kind in LABELLED.get(sink, ()):
        assert f"[REDACTED {kind}]" in text, f"{sink} did not show where the {kind} was"


def test_the_transcript_keeps_what_the_tools_returned(world: dict[str, Any]) -> None:
    """Stored transcripts are the record of the run: they are not redacted (SECURITY.md)."""
    transcript = json.dumps(world["run"].transcript)
    assert all(marker in transcript for _, marker in SECRETS.values())


# -- control characters: every plain-text view ----------------------------------------------

TEXT_VIEWS = ["%agent", "%summary", "%context", "%compact", "%replay"]


@pytest.mark.parametrize("view", TEXT_VIEWS)
def test_a_plain_text_view_prints_no_control_character(world: dict[str, Any],
                                                       view: str) -> None:
    text = world["views"]["text"][view]
    found = CONTROL_CHAR.findall(text)
    assert not found, f"{view} printed {found[:5]}"
    assert "8;;https://evil.example" not in text and "]0;title" not in text
    if view != "%replay":  # the data reached the view: its visible words are kept
        assert "red" in text and "link" in text


def demo_events() -> list[Any]:
    from jupyter_compaction.events import Failed, ToolCalled, TurnStarted

    return [TurnStarted(1, 100, 1000, 800), ToolCalled(1, f"read{CONTROL}", {}, "toolu_1"),
            Failed(1, f"broke {CONTROL} {ONE_LINE}")]


def test_the_demo_and_the_cli_errors_print_no_control_character(tmp_path: Path) -> None:
    from jupyter_compaction.demo import TurnTable, print_totals

    lines: list[str] = []
    table = TurnTable(lines.append)
    for event in demo_events():
        table(event)
    run = Agent(LeakyModel(), tools=[read_file], budget=BUDGET, strategy="compact",
                task_state=False).run("go", max_turns=2)
    run.answer = f"Done {CONTROL} {ONE_LINE}"
    print_totals(run, lines.append)
    printed = "\n".join(lines)
    assert not CONTROL_CHAR.search(printed) and "red" in printed
    assert all(marker not in printed for _, marker in SECRETS.values())
    out = capture(lambda: main(["replay", str(tmp_path / f"no{CONTROL}.json")]))
    assert not CONTROL_CHAR.search(out) and "cannot read" in out
    out = capture(lambda: main(["sessions", "clean", str(tmp_path / f"no{CONTROL}")]))
    assert not CONTROL_CHAR.search(out) and "is not a folder" in out


def test_usage_errors_that_echo_what_was_typed_hold_no_control_character(ip: Any) -> None:
    from IPython.core.error import UsageError

    for magic, line in (("context", "--bogus\x1b[31mred\x07"), ("summary", "x\x1b[2J\x07"),
                        ("compact", "--strategy \x1b]0;title\x07")):
        with pytest.raises(UsageError) as info:
            ip.run_line_magic(magic, line)
        assert not CONTROL_CHAR.search(str(info.value)), str(info.value)
