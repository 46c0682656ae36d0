"""Sentences of the lessons that state what an output shows, recomputed from the run.

Each test rebuilds what a sentence talks about (the history lesson 3 breaks, the runs it
compares) and checks the sentence still says what the run shows, so a change of the engine
that makes a sentence false fails here and not in front of a learner (issue 39).

Left out: sentences whose numbers the lesson-number test already ties to an output.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import nbformat
import pytest

from jupyter_compaction import InvalidHistory, validate
from jupyter_compaction.history import blocks, tool_use_ids
from jupyter_compaction.runner import play
from tests.support.fake_messages_api import validate_request

LESSONS = Path(__file__).resolve().parents[2] / "lessons"


@cache
def cell(lesson: str, cell_id: str) -> str:
    path = next(LESSONS.glob(f"{lesson}_*.ipynb"))
    return " ".join(next(c.source for c in nbformat.read(path, 4).cells
                         if c.get("id") == cell_id).split())


@cache
def agents_history() -> tuple:
    return tuple(play("agents", budget=8_000, strategy="off").transcript[:13])


def test_lesson_3_counts_the_parallel_calls_of_its_history():
    calls = [len(tool_use_ids(m)) for m in agents_history() if m["role"] == "assistant"]
    assert calls[0] == 3 and set(calls[1:]) == {2}
    assert "three in message 1" in cell("03", "l03-02") and "then two in each" in cell(
        "03", "l03-02")


def test_lesson_3_names_the_unanswered_call_where_the_api_does():
    history = list(agents_history())
    read_id = next(b["id"] for b in history[5]["content"] if b.get("name") == "read_file")
    only_read = {"role": "user", "content": [b for b in blocks(history[6])
                                             if b["tool_use_id"] == read_id]}
    broken = [*history[:6], only_read, *history[7:]]
    with pytest.raises(InvalidHistory) as caught:
        validate(broken)
    api = validate_request({"model": "m", "max_tokens": 10, "messages": broken})
    assert api and re.match(rf"messages\.{caught.value.index}: ", api), (caught.value, api)
    assert f"messages.{caught.value.index}:" in cell("03", "l03-07")  # the error it quotes


def test_lesson_3_says_how_the_trim_run_without_task_state_ends():
    run = play("agents", budget=8_000, strategy="trim", task_state=False)
    assert run.status == "failed" and run.error_line.startswith("stuck in a loop")
    said = cell("03", "l03-18")
    assert "its status is `failed`" in said and '"stuck in a loop"' in said


def test_a_stuck_run_names_the_budget_set_and_the_room_left_and_explains_its_numbers():
    from jupyter_compaction.demo import totals

    run = play("logistics", budget=5_000, strategy="clear", task_state=False)  # lesson 5's
    room = int(re.search(r"still over the (\d+) tokens left for messages", run.error).group(1))
    overhead = 5_000 - room
    assert f"(the budget of 5000 less {overhead} for the system prompt and tools)" in run.error
    rows = dict(totals(run))
    assert run.peak_context < int(re.search(r"stuck: (\d+) ->", run.error).group(1)) + overhead
    assert "never sent" in rows["peak context"]  # why the peak is below the stuck context
    assert rows["compactions"].startswith(f"{len(run.compactions)} done; the stuck attempt")
    assert "the tokens left of it for the *messages*" in cell("05", "l05-22")
