"""Large results offloaded to a file of the run: the preview, the range and search tools,
the file kept out of the workspace's listing, and the simulated model reading them back."""

from __future__ import annotations

import pytest

from jupyter_compaction import runner, scenarios
from jupyter_compaction.agent import Agent
from jupyter_compaction.events import ToolCalled
from jupyter_compaction.models.base import Reply, Usage
from jupyter_compaction.models.simulated import SimulatedModel
from jupyter_compaction.offload import PREVIEW_LINES, OffloadFolder
from jupyter_compaction.tools import Toolbox, ToolError
from jupyter_compaction.vocab import offloaded_path
from jupyter_compaction.workspace import RUN_FOLDER, Workspace
from tests.support.scripted import Scripted

BIG = "\n".join(f"line {n}: value-{n * 7}" for n in range(1, 401))


def big() -> str:
    """Return a long report."""
    return BIG


def small() -> str:
    """Return a short report."""
    return "short"


def use(name: str, ident: str, **args) -> Reply:
    return Reply([{"type": "tool_use", "id": ident, "name": name, "input": args}],
                 "tool_use", Usage(1, 1))


def played(tmp_path, *replies: Reply, over: int = 500):
    model = Scripted([*replies, Reply([{"type": "text", "text": "done"}], "end_turn",
                                      Usage(1, 1))])
    agent = Agent(model, tools=[big, small], workspace=Workspace(tmp_path),
                  task_state=False, offload_over=over)
    return agent.run("report"), agent


def result(run, ident: str) -> str:
    return next(b["content"] for m in run.transcript if isinstance(m["content"], list)
                for b in m["content"] if b.get("tool_use_id") == ident)


def test_a_large_result_leaves_a_preview_and_its_whole_text_in_a_run_file(tmp_path):
    run, _ = played(tmp_path, use("big", "t1"), use("small", "t2"))
    preview = result(run, "t1")
    head, shown, *lines = preview.splitlines()
    path = offloaded_path(preview)
    assert path and path in head and "big" in head and "400 lines" in head and "tokens" in head
    assert lines == BIG.splitlines()[:len(lines)] and 0 < len(lines) <= PREVIEW_LINES
    assert shown == f"First {len(lines)} lines:"
    assert (tmp_path / RUN_FOLDER / path).read_text() == BIG  # nothing of it is lost
    assert result(run, "t2") == "short"  # under the threshold: as it was
    assert run.status == "finished" and len(run.transcript) == 6  # every turn recorded


def test_the_offload_tools_read_a_range_and_search(tmp_path):
    run, _ = played(tmp_path, use("big", "t1"))
    path = offloaded_path(result(run, "t1"))
    run, _ = played(tmp_path, use("big", "t1"), use("read_offloaded", "t2", path=path,
                                                    start=100, end=102),
                    use("search_offloaded", "t3", path=path, pattern=r"value-7\d\b"))
    source = "(the result of big {})"  # what the file holds, in case its preview is gone
    assert result(run, "t2").splitlines() == [
        f"Lines 100-102 of 400 of {path} {source}:", "100: line 100: value-700",
        "101: line 101: value-707", "102: line 102: value-714"]
    hits = result(run, "t3").splitlines()
    assert hits[0] == f"2 of 400 lines of {path} {source} match:"
    assert hits[1:] == ["10: line 10: value-70", "11: line 11: value-77"]


def test_the_offload_tools_refuse_other_paths_and_bad_input(tmp_path):
    folder = OffloadFolder(tmp_path)
    path = folder.save("toolu_1", "a\nb\n")
    read, search = Toolbox(folder.tools()).functions.values()
    assert read(path, 2, 9) == f"Lines 2-2 of 2 of {path}:\n2: b"
    for bad in ("../secret.txt", "/etc/passwd", "offloaded/none.txt", "NOTES.md"):
        with pytest.raises(ToolError, match="No offloaded file"):
            read(bad, 1, 2)
    with pytest.raises(ToolError, match="start <= end"):
        read(path, 3, 1)
    with pytest.raises(ToolError, match="Bad pattern"):
        search(path, "(")


def test_offloaded_files_are_not_among_the_workspace_s_files(tmp_path):
    (tmp_path / "task.md").write_text("the task's file")
    played(tmp_path, use("big", "t1"))
    assert list((tmp_path / RUN_FOLDER).rglob("*.txt"))
    assert Workspace(tmp_path).list_files() == ["task.md"]


def test_offloading_needs_a_workspace_and_a_whole_number():
    with pytest.raises(ValueError, match="offload_over=500 needs a workspace"):
        Agent(SimulatedModel("markdown"), offload_over=500)
    with pytest.raises(ValueError, match="offload_over must be a positive whole number"):
        Agent(SimulatedModel("markdown"), offload_over=0.5)


def test_the_offload_threshold_is_a_share_of_the_budget_unless_given_in_tokens():
    from jupyter_compaction.settings import DEFAULTS, OFFLOAD_SHARE

    assert DEFAULTS.offload_threshold is None  # off unless asked for
    shares = [DEFAULTS.with_changes(budget=b, offload_at=OFFLOAD_SHARE).offload_threshold
              for b in (4_000, 8_000, 16_000)]
    assert shares == [750, 1_500, 3_000]
    assert DEFAULTS.with_changes(offload_at=0.5, offload_over=900).offload_threshold == 900
    with pytest.raises(ValueError, match="offload_at must be a share of the budget"):
        DEFAULTS.with_changes(offload_at=1.5)


def test_the_simulated_model_reads_offloaded_files_back_by_search_and_range():
    with runner.start("markdown", budget=8_000, strategy="trim", offload_over=800) as session:
        run = session.play()
        files = {str(f.relative_to(f.parents[1])): len(f.read_text().splitlines())
                 for f in (session.agent.workspace.root / RUN_FOLDER).rglob("*.txt")}
    assert scenarios.load("markdown").outcome(run) == "correct"
    calls = run.of(ToolCalled)
    searched = {e.input["path"] for e in calls if e.name == "search_offloaded"}
    ranges = [e.input for e in calls if e.name == "read_offloaded"]
    assert len(files) > 10 and searched and run.repeats == 0
    assert all(r["end"] - r["start"] + 1 < files[r["path"]] for r in ranges)  # never whole


def test_the_model_reads_a_range_only_where_a_matching_line_goes_on():
    """Whole import lines are read from the search; an import that goes on past its
    first line is read from the preview's end to a few lines past it, never whole."""
    from jupyter_compaction.history import call_key
    from jupyter_compaction.models.simulated_offload import SLACK, OffloadReading
    from jupyter_compaction.vocab import READ_OFFLOADED, SEARCH_OFFLOADED, offload_head

    scenario = scenarios.load("markdown")
    call = scenario.match("read_file", {"path": "markdown/core.py"})
    path = "offloaded/t1.txt"
    lines = ['"""Doc.', "", "More doc."]
    preview = "\n".join([offload_head("read_file", 900, 300, path), "First 3 lines:", *lines])
    search = call_key(SEARCH_OFFLOADED, {"path": path, "pattern": call.facts[0].pattern})
    for hit, expected in (("40: from . import util", ".util"),
                          ("40: from .blocks import (", None)):
        reading = OffloadReading()
        reading.take(call.key, preview)
        assert reading.settle(call) == (None, [(SEARCH_OFFLOADED, dict(
            path=path, pattern=call.facts[0].pattern))])
        reading.take(search, f"1 of 300 lines of {path} match:\n{hit}")
        text, more = reading.settle(call)
        if expected:
            assert more == [] and call.learn(text)[call.facts[0].name] == expected
        else:
            assert text is None and more == [(READ_OFFLOADED, dict(path=path, start=4,
                                                                   end=40 + SLACK))]
            body = ['"""'] + [f"x{n} = {n}" for n in range(5, 40)]
            body += ["from .blocks import (", "    a,", ")"]
            shown = "\n".join(f"{n}: {line}" for n, line in enumerate(body, 4))
            reading.take(call_key(READ_OFFLOADED, more[0][1]), f"Lines 4-42:\n{shown}")
            text, more = reading.settle(call)
            assert more == [] and call.learn(text)[call.facts[0].name] == ".blocks"


def test_a_search_still_says_what_it_read_once_its_preview_is_compacted_away():
    """With the preview trimmed away, the search's first line names the read whose file it
    searched, so the model settles that read from it instead of reading the file again."""
    from jupyter_compaction.history import call_key
    from jupyter_compaction.models.simulated_offload import OffloadReading
    from jupyter_compaction.vocab import SEARCH_OFFLOADED, offload_source

    call = scenarios.load("markdown").match("read_file", {"path": "markdown/core.py"})
    path, pattern = "offloaded/t1.txt", call.facts[0].pattern
    head = f"1 of 300 lines of {path} {offload_source(*call.key)} match:"
    reading = OffloadReading()
    reading.take(call_key(SEARCH_OFFLOADED, {"path": path, "pattern": pattern}),
                 f"{head}\n40: from . import util")
    assert reading.previews == {call.key: path}
    text, more = reading.settle(call)
    assert more == [] and call.learn(text)[call.facts[0].name] == ".util"


def test_the_agent_s_own_notes_and_memory_are_never_offloaded(tmp_path):
    from jupyter_compaction.offload import Offload
    from jupyter_compaction.run import Run
    from jupyter_compaction.tokens import TokenCounter

    offload = Offload(OffloadFolder(tmp_path), 10, TokenCounter())
    long = {"type": "tool_result", "tool_use_id": "m1", "content": BIG}
    for name, args in (("read_notes", {}), ("memory", {"command": "view",
                                                       "path": "/memories/f.md"})):
        call = {"id": "m1", "name": name, "input": args}
        assert offload.on_result(Run(task="go"), call, long) == long
    call = {"id": "m1", "name": "big", "input": {}}
    assert offloaded_path(offload.on_result(Run(task="go"), call, long)["content"])


def test_a_summary_extracts_no_fact_from_a_preview_or_a_stand_in():
    from jupyter_compaction.models.simulated_summary import _observed
    from jupyter_compaction.vocab import call_line, offload_head, output_entry, unchanged_since

    preview = "\n".join([offload_head("read_file path=a.py", 900, 300, "offloaded/t1.txt"),
                         "First 1 lines:", "from . import util"])
    turns = "\n".join([call_line("read_file", {"path": "a.py"}),
                       output_entry("read_file", preview),
                       call_line("read_file", {"path": "b.py"}),
                       output_entry("read_file", unchanged_since(3)),
                       call_line("read_file", {"path": "c.py"}),
                       output_entry("read_file", "from . import core")])
    assert [text for _, text in _observed(turns)] == [None, None, "from . import core"]
