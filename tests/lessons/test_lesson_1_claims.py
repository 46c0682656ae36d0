"""Lesson 1's claims about task state and the simulated model's questions, recomputed.

Each test plays the runs a cell of lesson 1 plays, checks that the cell's stored output
shows what the runs give, and that the sentences about that output hold for them: task
state is on by default, trimming without it never finishes and with it does (issue 38,
item 2); the understood question, the refusal and its reason, and an edited workspace
changing the answer (item 5).

Left out: the numbers in the prose, which the lesson-number test ties to the outputs.
"""

from __future__ import annotations

import re
import tempfile
from functools import cache
from pathlib import Path

from jupyter_compaction.runner import copy_workspace, play
from jupyter_compaction.settings import DEFAULTS
from tests.support.lesson_cells import LessonCells

LESSON = next((Path(__file__).resolve().parents[2] / "lessons").glob("01_*.ipynb"))
# A row of section 4's table: strategy, task state, status, turns, peak, repeats, tokens sent.
ROW = re.compile(r"^(\w+)\s+(on|off)\s+(\w+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s", re.M)


CELLS = LessonCells(LESSON)
cell, prose, output = CELLS.cell, CELLS.prose, CELLS.output


@cache
def section_4() -> dict[tuple[str, str], object]:
    """The runs of section 4's table, played as the cell plays them."""
    runs = {(name, "off"): play("agents", budget=8_000, strategy=name, task_state=False)
            for name in ("off", "trim", "summarize")}
    runs["trim", "on"] = play("agents", budget=8_000, strategy="trim")
    return runs


def test_task_state_is_on_by_default_as_section_2_says():
    assert DEFAULTS.task_state is True
    said = prose("l01-06")
    assert "(`task_state=False`), which is **on by default**" in said
    assert "in the system prompt, where no compaction can drop them" in said


def test_section_4_shows_the_trim_run_with_task_state_off_and_on():
    runs = section_4()
    shown = {(name, state): (status, int(turns), int(repeats), int(sent))
             for name, state, status, turns, _, repeats, sent in ROW.findall(output("l01-15"))}
    assert shown == {key: (run.status, run.turn, run.repeats, run.tokens_sent)
                     for key, run in runs.items()}


def test_trimming_never_finishes_without_task_state_and_finishes_with_it():
    runs = section_4()
    bare, kept, summarize = runs["trim", "off"], runs["trim", "on"], runs["summarize", "off"]
    assert bare.status == "failed" and bare.answer is None and bare.repeats > 0
    assert bare.error_line.startswith("stuck in a loop")  # "stops the run as stuck"
    assert bare.tokens_sent > runs["off", "off"].tokens_sent  # "sent more tokens than off"
    assert kept.status == "finished" and kept.outcome == "correct" and kept.repeats == 0
    assert kept.turn == summarize.turn  # "in as many turns as summarizing"
    assert abs(kept.tokens_sent - summarize.tokens_sent) < 0.05 * summarize.tokens_sent
    said = prose("l01-16")
    assert "**Trimming without task state** also keeps the peak under the budget" in said
    assert "never finishes" in said.split("**Trimming with task state on**")[0]
    assert "never finishes" not in said.split("**Trimming with task state on**")[1]


def test_your_turn_trim_cell_finishes_at_every_budget_it_suggests():
    # "Both cells keep the agent's task state on (the default), so trimming finishes here"
    assert "so trimming finishes here" in prose("l01-18")
    assert "--no-task-state" not in cell("l01-20").source
    for budget in (5_000, 6_000, 8_000, 20_000):  # the cell's budget and the ones to try
        assert play("agents", budget=budget, strategy="trim").status == "finished", budget
    assert play("agents", budget=6_000, strategy="trim", task_state=False).repeats > 0


def test_section_7_shows_the_question_understood_and_the_refusal_with_its_reason():
    asked = play("logistics", task="What loyalty tier is customer CUS-20931 in?", budget=8_000)
    refused = play("logistics", task="What is the loyalty points balance of customer "
                   "CUS-20931?", budget=8_000)
    shown = output("2fc59207")
    assert f"Question: {asked.question}\n" in shown
    assert f"outcome:  {asked.outcome} | {asked.answer}\n" in shown
    assert refused.status == "unsupported" and refused.turn == 1
    unknown = re.search(r"I did not understand: (.*?)\.", refused.answer).group(1)
    assert '"points"' in unknown and '"balance"' in unknown
    assert f"{refused.status} at turn {refused.turn} |" in shown and unknown in shown


def test_section_7_edited_workspace_changes_the_answer():
    desk = copy_workspace("logistics", Path(tempfile.mkdtemp()) / "my-desk")
    record = desk / "customers" / "CUS-20931.json"
    record.write_text(record.read_text().replace('"tier": "gold"', '"tier": "silver"'))
    edited = play("logistics", task="What loyalty tier is customer CUS-20931 in?",
                  budget=8_000, workdir=str(desk))
    shipped = play("logistics", task="What loyalty tier is customer CUS-20931 in?",
                   budget=8_000)
    assert edited.outcome == "correct" and edited.answer != shipped.answer
    assert "silver" in edited.answer and "gold" in shipped.answer
    assert f"outcome: {edited.outcome} | {edited.answer}" in output("8f18944f")
