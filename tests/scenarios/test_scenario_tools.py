"""Scenario tools: schemas derive, bad input is a one-line ToolError, workspaces are copies."""

from __future__ import annotations

import inspect
import shutil
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jupyter_compaction import scenarios
from jupyter_compaction.scenarios import SCENARIOS, Scenario, UnknownScenario, base
from jupyter_compaction.tools import Toolbox, ToolError, tool_schema
from jupyter_compaction.workspace import MAX_FILE_BYTES, Workspace

ALL = [scenarios.load(name) for name in scenarios.names()]
BAD_TEXT = ["", "nope", "missing.txt", "../../etc/passwd", "/etc/passwd", "~/x", "X-0", "\x00"]


@pytest.fixture(params=ALL, ids=lambda s: s.name)
def prepared(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Scenario, Workspace]:
    sc: Scenario = request.param
    return sc, sc.prepare(tmp_path / "ws")


def test_registry() -> None:
    assert scenarios.names() == ["agents", "logistics", "debug", "audit", "markdown"]
    assert list(SCENARIOS) == scenarios.names()
    for name in scenarios.names():
        assert scenarios.load(name).name == name
        assert scenarios.load(name).title and scenarios.load(name).task


@pytest.mark.parametrize("name", ["nope", "", "Agents", None])
def test_unknown_scenario_lists_the_names(name) -> None:
    with pytest.raises(UnknownScenario) as info:
        scenarios.load(name)
    assert isinstance(info.value, KeyError)
    message = str(info.value)
    assert "\n" not in message and not message.startswith(("'", '"'))
    assert all(known in message for known in scenarios.names())


def test_importing_reads_no_scenario_files() -> None:
    script = textwrap.dedent(
        """
        import builtins, io, os
        real_open = builtins.open
        def guarded(file, *args, **kwargs):
            path = os.fspath(file) if isinstance(file, (str, os.PathLike)) else ""
            if "scenario-data" in path:
                raise AssertionError(f"read at import: {file}")
            return real_open(file, *args, **kwargs)
        builtins.open = io.open = guarded
        import jupyter_compaction.scenarios as s
        assert s.names()[0] == "agents"
        """
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_tool_schemas_and_docstrings(prepared) -> None:
    sc, ws = prepared
    tools = sc.tools(ws)
    names = [fn.__name__ for fn in tools]
    assert len(names) == len(set(names))
    for fn in tools:
        assert inspect.getdoc(fn), f"{fn.__name__} has no docstring"
        schema = tool_schema(fn)
        assert schema["name"] == fn.__name__
        assert schema["description"] and "\n" not in schema["description"]
        for prop in schema["input_schema"]["properties"].values():
            assert prop == {"type": "string"}
    by_name = {fn.__name__: tool_schema(fn) for fn in tools}
    for step in sc.steps:
        schema = by_name[step.tool]["input_schema"]
        assert set(step.args) <= set(schema["properties"])
        assert set(schema["required"]) <= set(step.args)


def _call_all_bad(fn, value: str) -> None:
    params = inspect.signature(fn).parameters
    fn(**{name: value for name in params})


@pytest.mark.parametrize("value", BAD_TEXT)
def test_bad_input_is_a_tool_error(prepared, value: str) -> None:
    sc, ws = prepared
    for fn in sc.tools(ws):
        if value == "" and fn.__name__ == "grep":
            continue  # an empty pattern on an empty path: the path error is what counts
        with pytest.raises(ToolError) as info:
            _call_all_bad(fn, value)
        assert str(info.value) and "\n" not in str(info.value), fn.__name__


SPECIFIC_BAD_CALLS = {
    "agents": [
        ("read_file", {"path": "agents"}),
        ("list_files", {"folder": "agents/router.py"}),
        ("read_file", {"path": "agents/../../secret"}),
    ],
    "logistics": [
        ("get_ticket", {"ticket_id": "TCK-0001"}),
        ("lookup_order", {"order_id": "ORD-9"}),
        ("lookup_order", {"order_id": "VD-88317"}),
        ("track_waybill", {"waybill_id": "1"}),
        ("get_policy", {"topic": "refunds"}),
        ("get_depot", {"depot_id": "D-99"}),
        ("lookup_customer", {"customer_id": "CUS-../x"}),
    ],
    "debug": [
        ("grep", {"pattern": "(", "path": "INCIDENT.md"}),
        ("grep", {"pattern": "x", "path": "logs"}),
        ("read_file", {"path": "logs/missing.log"}),
    ],
    "audit": [
        ("license_report", {"manifest": "policy/licence-policy.md"}),
        ("license_report", {"manifest": "services/web/missing.json"}),
        ("package_info", {"ecosystem": "cargo", "name": "serde"}),
        ("package_info", {"ecosystem": "pypi", "name": "left-pad"}),
    ],
    "markdown": [
        ("read_file", {"path": "markdown/missing.py"}),
        ("list_files", {"folder": "nope"}),
    ],
}


def test_specific_bad_calls(prepared) -> None:
    sc, ws = prepared
    tools = {fn.__name__: fn for fn in sc.tools(ws)}
    for name, args in SPECIFIC_BAD_CALLS[sc.name]:
        with pytest.raises(ToolError) as info:
            tools[name](**args)
        assert "\n" not in str(info.value)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(value=st.text(max_size=30))
def test_arbitrary_text_never_crashes_a_tool(prepared, value: str) -> None:
    sc, ws = prepared
    for fn in sc.tools(ws):
        try:
            result = _call_all_bad(fn, value)
        except ToolError:
            continue
        assert result is None or isinstance(result, str)


def test_tools_work_through_a_toolbox(prepared) -> None:
    sc, ws = prepared
    box = Toolbox(sc.tools(ws))
    step = sc.plan(sc.read_task(sc.task))[0]
    ok = box.call({"type": "tool_use", "id": "t1", "name": step.tool, "input": step.args})
    assert not ok.get("is_error") and step.learn(ok["content"])
    name = next(iter(inspect.signature(box.functions[step.tool]).parameters))
    bad = box.call({"type": "tool_use", "id": "t2", "name": step.tool, "input": {name: "nope"}})
    assert bad["is_error"] and bad["content"].startswith("ToolError: ")


def test_prepare_copies_and_never_writes_into_the_package(prepared) -> None:
    sc, ws = prepared
    assert ws.root != sc.workspace_dir.resolve()
    assert not ws.root.is_relative_to(sc.workspace_dir.resolve())
    bundled = sorted(
        p.relative_to(sc.workspace_dir).as_posix()
        for p in sc.workspace_dir.rglob("*")
        if p.is_file()
    )
    assert ws.list_files() == bundled
    first = bundled[0]
    before = (sc.workspace_dir / first).read_bytes()
    ws.append_text(first, "\n# appended by a test\n")
    ws.append_text("NOTES.md", "- a note\n")
    assert (sc.workspace_dir / first).read_bytes() == before
    assert not (sc.workspace_dir / "NOTES.md").exists()


def test_prepare_refuses_a_used_folder(tmp_path: Path) -> None:
    sc = scenarios.load("agents")
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "x.txt").write_text("x", encoding="utf-8")
    with pytest.raises(FileExistsError):
        sc.prepare(tmp_path / "used")
    (tmp_path / "empty").mkdir()
    assert sc.prepare(tmp_path / "empty").list_files("agents")


@pytest.mark.parametrize("sc", ALL, ids=lambda s: s.name)
def test_bundled_files_are_small_utf8_text(sc: Scenario) -> None:
    files = [p for p in sc.workspace_dir.rglob("*") if p.is_file()]
    assert files
    for path in files:
        assert "__pycache__" not in path.parts and path.suffix != ".pyc"
        assert path.stat().st_size <= MAX_FILE_BYTES
        path.read_bytes().decode("utf-8")
        assert b"\r\n" not in path.read_bytes()


def test_steps_need_facts_and_calls_fill_their_templates() -> None:
    sc = scenarios.load("logistics")
    with pytest.raises(ValueError):
        scenarios.Step("x", "t", {}, ())
    assert [c.tool for c in sc.plan({})] == ["get_policy", "get_policy"]  # no ids known yet
    first = sc.plan({"ticket": "TCK-5521"})[0]
    assert (first.tool, first.args) == ("get_ticket", {"ticket_id": "TCK-5521"})
    assert "ORD-1042" not in str(sc.plan({"ticket": "TCK-5521"}))


def test_prepare_from_a_read_only_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An install where the bundled files and folders are read-only still prepares fine."""
    frozen = tmp_path / "installed"
    shutil.copytree(base.WORKSPACES_DIR, frozen)
    for path in sorted(frozen.rglob("*"), reverse=True):
        path.chmod(stat.S_IRUSR | (stat.S_IXUSR if path.is_dir() else 0))
    monkeypatch.setattr(base, "WORKSPACES_DIR", frozen)
    try:
        ws = scenarios.load("logistics").prepare(tmp_path / "run")
        ws.append_text("NOTES.md", "- ok\n")
        ws.append_text("orders/ORD-1042.json", "\n")
        assert ws.read_text("NOTES.md") == "- ok\n"
    finally:
        for path in frozen.rglob("*"):
            path.chmod(stat.S_IRWXU)
