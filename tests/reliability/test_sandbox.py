"""The workspace sandbox, attacked through the scenario tools a model actually calls.

A real scenario workspace is prepared on `tmp_path` and booby-trapped: links that point
out of it (to a secret file beside it, to `/etc`, to `/etc/passwd`, to its parent), a link
loop, a FIFO (reading one would block forever), a file over the size limit and a 5 GB
sparse file. Then every traversal payload goes through the tools of the `agents`,
`debug` and `audit` scenarios and the notes tools, called as `tool_use` blocks through a
`Toolbox`, and through a whole agent run. Each must come back as an `is_error: true`
tool result with a one-line message, never an exception, never the secret, never a
write outside the workspace, never a hang.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import pytest

from jupyter_compaction import scenarios
from jupyter_compaction.agent import Agent
from jupyter_compaction.models.base import Reply, Usage
from jupyter_compaction.task_state import NOTES_FILE, notes_tools
from jupyter_compaction.tools import Toolbox
from jupyter_compaction.workspace import MAX_FILE_BYTES, Workspace
from tests.support.scripted import Scripted

SECRET = "TOP-SECRET-OUTSIDE-THE-WORKSPACE"
PASSWD = "root:x:0:0"

PATHS: list[Any] = [
    "..", "../", "../secret.txt", "../../../../../../etc/passwd", "./../secret.txt",
    "agents/../../secret.txt", "src/../../secret.txt", "a/b/../../../secret.txt",
    "/etc/passwd", "/etc/shadow", "/proc/self/environ", "/", "//etc/passwd",
    "~/.bashrc", "~root/.ssh/id_rsa", "~", "..\\secret.txt", "..\\..\\etc\\passwd",
    "C:\\Windows\\win.ini", "C:/Windows/win.ini", "c:secret.txt", "\\\\server\\share\\x",
    "file:///etc/passwd", "%2e%2e/secret.txt", "..%2fsecret.txt", "....//....//etc/passwd",
    "\x00", "notes\x00.md", "x" * 5000, "a/" * 3000 + "b",
    "leak.txt", "passwd_link", "etc_link/passwd", "etc_link", "up/secret.txt", "up",
    "loop_a", "pipe", "huge.log", "sparse.bin", "binary.dat",
    123, None, ["../secret.txt"], {"path": "../secret.txt"}, 1.5, True,
]
FOLDERS: list[Any] = [
    "..", "../", "/", "/etc", "~", "etc_link", "up", "up/", "../..", "loop_a",
    "C:\\", "\\\\server\\share", "\x00", 5, None, ["."], "pipe", "leak.txt",
]


@pytest.fixture(autouse=True)
def watchdog():
    def fire(signum: int, frame: Any) -> None:
        raise TimeoutError("a tool call blocked (a FIFO read?)")

    previous = signal.signal(signal.SIGALRM, fire)
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def trap(tmp_path: Path, name: str) -> Workspace:
    """The scenario's workspace on tmp_path, with every trap laid inside it."""
    (tmp_path / "secret.txt").write_text(SECRET, encoding="utf-8")
    ws = scenarios.load(name).prepare(tmp_path / "ws")
    root = ws.root
    (root / "leak.txt").symlink_to(tmp_path / "secret.txt")
    (root / "passwd_link").symlink_to("/etc/passwd")
    (root / "etc_link").symlink_to("/etc")
    (root / "up").symlink_to(tmp_path)
    (root / "loop_a").symlink_to(root / "loop_b")
    (root / "loop_b").symlink_to(root / "loop_a")
    os.mkfifo(root / "pipe")
    (root / "huge.log").write_text("x" * (MAX_FILE_BYTES + 1), encoding="utf-8")
    with open(root / "sparse.bin", "wb") as f:
        f.truncate(5 * 2**30)
    (root / "binary.dat").write_bytes(b"\xff\xfe\x00\x81" * 100)
    return ws


def outside(tmp_path: Path) -> dict[str, bytes]:
    """Every file outside the workspace, with its content (to prove nothing changed)."""
    return {str(p): p.read_bytes() for p in tmp_path.rglob("*")
            if p.is_file() and not p.is_symlink() and "ws" not in p.relative_to(tmp_path).parts}


def call(box: Toolbox, name: str, **args: Any) -> dict[str, Any]:
    return box.call({"type": "tool_use", "id": "toolu_x", "name": name, "input": args})


def refused(result: dict[str, Any]) -> None:
    assert result["is_error"] is True, result
    text = result["content"]
    assert text and "\n" not in text and "Traceback" not in text
    assert SECRET not in text and PASSWD not in text


def calls_for(name: str) -> list[tuple[str, dict[str, Any]]]:
    tools = {fn.__name__ for fn in scenarios.load(name).make_tools(Workspace(Path.cwd()))}
    out: list[tuple[str, dict[str, Any]]] = []
    for path in PATHS:
        out.append(("read_file", {"path": path}))
        if "grep" in tools:
            out.append(("grep", {"pattern": ".", "path": path}))
        if "license_report" in tools:
            out.append(("license_report", {"manifest": path}))
    out += [("list_files", {"folder": folder}) for folder in FOLDERS]
    return out


@pytest.mark.parametrize("name", ["agents", "debug", "audit"])
def test_every_traversal_payload_is_a_tool_error(tmp_path: Path, name: str) -> None:
    ws = trap(tmp_path, name)
    box = Toolbox(scenarios.load(name).tools(ws))
    before = outside(tmp_path)
    for tool, args in calls_for(name):
        result = call(box, tool, **args)
        refused(result)
    assert outside(tmp_path) == before


@pytest.mark.parametrize("name", ["agents", "debug", "audit"])
def test_listing_never_shows_what_lies_outside(tmp_path: Path, name: str) -> None:
    ws = trap(tmp_path, name)
    box = Toolbox(scenarios.load(name).tools(ws))
    listing = call(box, "list_files", folder=".")
    assert not listing.get("is_error")
    lines = listing["content"].splitlines()[1:]
    shown = {line.split("  ")[0] for line in lines}
    assert not shown & {"leak.txt", "passwd_link", "pipe", "loop_a", "loop_b"}
    assert not any(p.startswith(("etc_link/", "up/")) for p in shown)
    assert SECRET not in listing["content"] and "passwd" not in listing["content"]
    # the good files are still there and readable
    good = sorted(shown - {"huge.log", "sparse.bin", "binary.dat"})
    assert good and not call(box, "read_file", path=good[0]).get("is_error")


def test_the_refusals_say_why(tmp_path: Path) -> None:
    box = Toolbox(scenarios.load("debug").tools(trap(tmp_path, "debug")))
    reasons = {
        "../secret.txt": "outside the workspace",
        "leak.txt": "outside the workspace",
        "/etc/passwd": "absolute",
        "huge.log": "over the",
        "sparse.bin": "5,368,709,120 bytes",
        "binary.dat": "not UTF-8",
        "pipe": "not a regular file",
        "loop_a": "cannot be resolved",
        "agents": "No file",
    }
    for path, words in reasons.items():
        result = call(box, "read_file", path=path)
        refused(result)
        assert words in result["content"], (path, result["content"])
    assert "Path must be text" in call(box, "read_file", path=7)["content"]


def test_the_logistics_lookups_refuse_paths_smuggled_in_as_ids(tmp_path: Path) -> None:
    box = Toolbox(scenarios.load("logistics").tools(trap(tmp_path, "logistics")))
    names = ["get_ticket", "lookup_order", "track_waybill", "get_depot", "lookup_customer"]
    arg = {"get_ticket": "ticket_id", "lookup_order": "order_id", "track_waybill": "waybill_id",
           "get_depot": "depot_id", "lookup_customer": "customer_id"}
    for tool in names:
        for payload in ["../secret", "ORD-1042/../../secret", "/etc/passwd", "ORD-1042\x00",
                        "../../leak", "ORD-99999999999", 42, None]:
            refused(call(box, tool, **{arg[tool]: payload}))
    for topic in ["../../secret", "../leak", "/etc/passwd", "late-delivery/../../secret"]:
        refused(call(box, "get_policy", topic=topic))


# -- the notes tools (the one place that writes) --------------------------------------------

def test_write_note_through_a_link_that_points_out_is_refused(tmp_path: Path) -> None:
    ws = trap(tmp_path, "agents")
    (ws.root / NOTES_FILE).symlink_to(tmp_path / "secret.txt")
    box = Toolbox(notes_tools(ws))
    refused(call(box, "write_note", text="overwrite the secret"))
    assert (tmp_path / "secret.txt").read_text() == SECRET
    shown = call(box, "read_notes")
    assert SECRET not in shown["content"]


@pytest.mark.parametrize("target", ["etc_link/NOTES.md", "up/NOTES.md", "../NOTES.md",
                                    "/tmp/NOTES.md", "pipe", "huge.log", "etc_link"])
def test_notes_files_outside_or_odd_are_refused(tmp_path: Path, target: str) -> None:
    ws = trap(tmp_path, "agents")
    before = outside(tmp_path)
    box = Toolbox(notes_tools(ws, path=target))
    refused(call(box, "write_note", text="a decision"))
    assert outside(tmp_path) == before
    assert not (tmp_path / "NOTES.md").exists()


def test_note_text_cannot_escape_or_flood(tmp_path: Path) -> None:
    ws = trap(tmp_path, "agents")
    box = Toolbox(notes_tools(ws))
    assert not call(box, "write_note", text="../../etc/passwd\x00 ; rm -rf / ").get("is_error")
    refused(call(box, "write_note", text="y" * (MAX_FILE_BYTES + 10)))
    refused(call(box, "write_note", text="   "))
    refused(call(box, "write_note", text=None))
    refused(call(box, "write_note"))
    notes = (ws.root / NOTES_FILE).read_text(encoding="utf-8")
    assert notes.count("\n") == 1 and len(notes) < 100


# -- through a whole agent run ----------------------------------------------------------------

def prober(calls: list[tuple[str, dict[str, Any]]]) -> Scripted:
    """A model that fires every payload as parallel tool calls, then answers."""
    uses = [{"type": "tool_use", "id": f"toolu_{n}", "name": tool, "input": args}
            for n, (tool, args) in enumerate(calls)]
    return Scripted([Reply(uses, "tool_use", Usage(1, 1)),
                     Reply([{"type": "text", "text": "Nothing leaked."}], usage=Usage(1, 1))])


def test_an_agent_run_full_of_traversal_calls_finishes_and_leaks_nothing(tmp_path: Path) -> None:
    ws = trap(tmp_path, "debug")
    probes = calls_for("debug") + [("write_note", {"text": "ok"})]
    agent = Agent(prober(probes), tools=scenarios.load("debug").tools(ws), notes=True,
                  workspace=ws, task_state=False, budget=200_000, strategy="off")
    before = outside(tmp_path)
    run = agent.run("Probe the sandbox.")
    assert run.status == "finished" and run.answer == "Nothing leaked."
    results = run.transcript[2]["content"]
    assert len(results) == len(probes)
    assert all(r["is_error"] for r in results[:-1]) and not results[-1].get("is_error")
    assert SECRET not in repr(run.transcript) and PASSWD not in repr(run.transcript)
    assert outside(tmp_path) == before
