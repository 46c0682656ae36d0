"""Lesson 8's long task: offload, dedup and the progress guard, recomputed from the runs.

Each test plays the runs a checked cell of section 5 plays (the `markdown` scenario at
8,000 tokens), checks that the cell's stored table shows what those runs give, and that
each sentence about the table holds for them (issue 38, item 5). The re-checking model is
the lesson's own class, read from its cell; the counts (previews, searches, ranges,
one-line answers) are made here, not with the lesson's helpers.

Left out: the numbers in the prose, which the lesson-number test ties to the outputs.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

from jupyter_compaction.runner import play
from jupyter_compaction.scenarios import load
from jupyter_compaction.settings import OFFLOAD_SHARE
from jupyter_compaction.vocab import READ_OFFLOADED, SEARCH_OFFLOADED, is_unchanged, offloaded_path
from tests.support.lesson_cells import LessonCells

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("lesson_8_long_task")]

LESSON = next((Path(__file__).resolve().parents[2] / "lessons").glob("08_*.ipynb"))
LONG = 8_000
OFFLOAD = {"offload_at": OFFLOAD_SHARE}


CELLS = LessonCells(LESSON)
cell, prose, output = CELLS.cell, CELLS.prose, CELLS.output


@cache
def long(strategy: str, way: str = "as it is", **knobs) -> object:
    return play("markdown", strategy=strategy, budget=LONG,
                **({**OFFLOAD} if way == "offload" else {}), **knobs)


def texts(run) -> list[str]:
    return [b["content"] for m in run.transcript if isinstance(m["content"], list)
            for b in m["content"] if b.get("type") == "tool_result"
            and isinstance(b.get("content"), str)]


def tool_calls(run, tool: str) -> int:
    return sum(1 for m in run.transcript if m["role"] == "assistant"
               and isinstance(m["content"], list) for b in m["content"]
               if b.get("type") == "tool_use" and b["name"] == tool)


def share(run) -> str:
    return f"{run.tokens_sent / long('off').tokens_sent:.1%}"


def test_the_offload_table_shows_its_runs():
    rows = re.findall(r"^(off|trim|summarize)\s+(as it is|offload)\s+(\S+)\s+(\d+)\s+(\d+)\s+"
                      r"(\d+)\s+([\d.]+%)\s+(\d+)\s+(\d+)\s+(\d+)$", output("l08-long-01"), re.M)
    shown = {(s, w): tuple(rest) for s, w, *rest in rows}
    expected = {}
    for strategy in ("off", "trim", "summarize"):
        for way in ("as it is", "offload"):
            run = long(strategy, way)
            previews = sum(offloaded_path(t) is not None for t in texts(run))
            expected[strategy, way] = tuple(map(str, (
                run.outcome, run.turn, len(run.compactions), run.tokens_sent, share(run),
                previews, tool_calls(run, SEARCH_OFFLOADED), tool_calls(run, READ_OFFLOADED))))
    assert shown == expected


def test_offload_pays_for_off_and_summarize_and_not_for_trim():
    said = prose("l08-long-02")
    assert all(long(s, w).outcome == "correct" for s in ("off", "trim", "summarize")
               for w in ("as it is", "offload"))
    assert long("off", "offload").tokens_sent < long("off").tokens_sent
    assert "`summarize` sends less with offload too" in said
    assert long("summarize", "offload").tokens_sent < long("summarize").tokens_sent
    assert len(long("summarize", "offload").compactions) < len(long("summarize").compactions)
    assert "`trim` sends slightly *more* with offload" in said
    assert long("trim").tokens_sent < long("trim", "offload").tokens_sent < 1.1 * long(
        "trim").tokens_sent


def test_the_agent_searches_every_preview_and_reads_no_range_here():
    said = prose("l08-long-02")
    assert "the ranges column stays at zero and one search per large file serves" in said
    for strategy in ("off", "trim", "summarize"):
        run = long(strategy, "offload")
        previews = sum(offloaded_path(t) is not None for t in texts(run))
        assert previews > 0 and tool_calls(run, SEARCH_OFFLOADED) == previews
        assert tool_calls(run, READ_OFFLOADED) == 0


def test_the_preview_and_its_search_shown_are_the_runs():
    results = texts(long("off", "offload"))
    preview = next(t for t in results if offloaded_path(t))
    search = next(t for t in results if f"lines of {offloaded_path(preview)} " in t)
    shown = output("l08-long-01")
    assert preview.splitlines()[0] in shown and search in shown
    assert "(here the file's header comment)" in prose("l08-long-02")
    first = preview.splitlines()[2:]  # after the head line and "First N lines:"
    assert first and all(not line.strip() or line.startswith("#") for line in first)


@cache
def rechecking_runs() -> dict[str, object]:
    """The lesson's `Rechecking` model, defined from its cell, played as the cell plays it."""
    tree = ast.parse(cell("l08-long-04").source)
    keep = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))
            or isinstance(n, ast.ClassDef) and n.name == "Rechecking"]
    space: dict = {}
    exec(compile(ast.Module(keep, []), str(LESSON), "exec"), space)  # noqa: S102
    return {way: play("markdown", model=space["Rechecking"]("markdown"), strategy="off",
                      budget=LONG, max_turns=120, dedup_reads=dedup)
            for way, dedup in (("as it is", False), ("dedup", True))}


def test_the_dedup_table_shows_its_runs():
    rows = re.findall(r"^(simulated|re-checking)\s+(\w+)\s+(as it is|dedup)\s+(\S+)\s+(\d+)\s+"
                      r"(\d+)\s+(\d+)\s+(\d+)\s+([\d.]+%)$", output("l08-long-04"), re.M)
    shown = {(m, s, w): tuple(rest) for m, s, w, *rest in rows}
    runs = {("simulated", "trim", "dedup"): long("trim", dedup_reads=True),
            **{("re-checking", "off", way): run for way, run in rechecking_runs().items()}}
    assert shown == {key: tuple(map(str, (
        run.outcome, run.turn, run.repeats, sum(map(is_unchanged, texts(run))),
        run.tokens_sent, share(run)))) for key, run in runs.items()}
    checking, deduped = rechecking_runs()["as it is"], rechecking_runs()["dedup"]
    saved = checking.tokens_sent - deduped.tokens_sent
    assert (f"dedup saved {saved} tokens, {saved / checking.tokens_sent:.0%} of what the "
            "re-checking run sent") in output("l08-long-04")


def test_dedup_answers_nothing_for_the_simulated_model_and_each_check_in_one_line():
    said = prose("l08-long-05")
    simulated = long("trim", dedup_reads=True)
    assert "dedup answers no call: the trim row is the `trim` row of the table above" in said
    assert sum(map(is_unchanged, texts(simulated))) == 0
    assert simulated.tokens_sent == long("trim").tokens_sent
    checking, deduped = rechecking_runs()["as it is"], rechecking_runs()["dedup"]
    plain = long("off").tokens_sent
    reads = tool_calls(long("off"), "read_file")
    assert checking.repeats == deduped.repeats == reads  # every file read twice
    assert sum(map(is_unchanged, texts(deduped))) == reads  # "every check costs one line"
    assert sum(map(is_unchanged, texts(checking))) == 0
    assert "the run sends several times what plain `off` sends" in said
    assert checking.tokens_sent > 3 * plain
    assert "the run sends almost half less" in said
    assert 0.35 < 1 - deduped.tokens_sent / checking.tokens_sent < 0.5
    assert "What is left above plain `off` is the check turns themselves" in said
    assert deduped.tokens_sent > plain and deduped.turn > long("off").turn


def guarded() -> dict[str, object]:
    return {"compact": long("compact"), "compact + offload": long("compact", "offload"),
            "trim, no task state": long("trim", task_state=False)}


def test_the_guard_table_shows_its_runs():
    rows = re.findall(r"^(compact|compact \+ offload|trim, no task state)\s+(\S+)\s+(\d+)\s+"
                      r"(\d+)\s+(\d+)\s+([\d.]+%)  (.+)$", output("l08-long-06"), re.M)
    shown = {name: tuple(rest) for name, *rest in rows}
    assert shown == {name: tuple(map(str, (
        run.outcome, run.turn, run.repeats, run.tokens_sent, share(run),
        run.error_line.split(":")[0] if run.error_line else "-")))
        for name, run in guarded().items()}
    reason = " ".join(output("l08-long-06").split("\n\n", 1)[1].split())
    assert reason == " ".join(long("trim", task_state=False).error_line.split())


def test_the_guard_stops_the_loop_early_and_lets_the_progressing_runs_finish():
    said = " ".join(prose("l08-long-07").split())
    runs = guarded()
    looping = runs["trim, no task state"]
    assert looping.status == "failed" and looping.turn < load("markdown").max_turns / 4
    assert looping.tokens_sent < 0.1 * long("off").tokens_sent  # "a small share"
    assert re.search(r"\(\d+ distinct calls: \w+ \w+=", looping.error_line)  # names them
    assert "`trim` without task state is stuck in a loop, as it was on the short task" in said
    assert looping.error_line.startswith("stuck in a loop")
    short = play("agents", budget=8_000, strategy="trim", task_state=False)  # lesson 1's
    assert short.error_line.startswith("stuck in a loop")
    assert "`compact` finishes with no re-read" in said and "and with offload too" in said
    for name in ("compact", "compact + offload"):
        assert runs[name].outcome == "correct", name
    assert runs["compact"].repeats == 0
