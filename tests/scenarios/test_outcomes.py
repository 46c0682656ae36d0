"""Every view of a run shows its outcome against the truth of its workspace (issue 21,
item 7): Run's repr, the %%agent result view, the demo's totals and the compare table."""

from __future__ import annotations

from jupyter_compaction import runner, scenarios
from jupyter_compaction.agent import Run
from jupyter_compaction.demo import totals
from jupyter_compaction.jupyter import result_view
from jupyter_compaction.jupyter.compare import row

ROOMY = 200_000


def test_a_played_run_carries_its_outcome_into_every_view():
    run = runner.play("logistics", budget=ROOMY)
    assert run.outcome == "correct" and "<Run finished, correct:" in repr(run)
    assert ("outcome", "correct") in totals(run)
    assert "outcome" in result_view.view(run).text and "correct" in result_view.view(run).text
    assert row("progressive", run, (), lambda answer: False)[-2:] == ("correct", run.question)


def test_an_out_of_scope_task_shows_two_examples_and_the_real_model():
    run = runner.play("agents", task="Write a haiku about autumn.", budget=ROOMY)
    assert run.status == run.outcome == "unsupported" and run.turn == 1
    text = result_view.view(run).text
    hint = next(line for line in text.splitlines() if line.startswith("Out of the offline"))
    examples = [q.example for q in scenarios.load("agents").questions]
    assert sum(example in hint for example in examples) == 2 and "--model claude" in hint


def test_a_wrong_answer_names_what_is_wrong_and_missing():
    logistics = scenarios.load("logistics")
    answer = logistics.expected().replace("2024-03-18 08:00-13:00", "2024-03-19 08:00-13:00")
    run = Run(task=logistics.task, answer=answer, status="finished")
    assert logistics.verdict(run) == "wrong (wrong: 2024-03-19; missing: 2024-03-18)"


def test_a_task_outside_the_scope_answered_by_a_real_model_is_not_graded():
    run = Run(task="Write a haiku about autumn.", answer="Leaves fall...", status="finished")
    assert scenarios.load("agents").verdict(run) == "not graded"


def test_the_readme_example_is_answered_correctly():
    task = "Find out why order ORD-1042 is late and decide what to offer the customer."
    run = runner.play("logistics", task=task, strategy="trim")  # as the README's cell
    assert run.outcome == "correct" and "No refund" in run.answer


def test_every_view_shows_the_question_the_task_was_understood_as():
    task = "What timeout does checkout-api use for pricing-service?"
    run = runner.play("debug", task=task, budget=ROOMY)
    asked = "how long checkout-api waits for an upstream service (upstream pricing-service)"
    assert run.question == asked and f"; Question: {asked}>" in repr(run)
    assert ("question", asked) in totals(run)
    view = result_view.view(run)
    assert f"question             {asked}" in view.text and asked in view.html


def test_a_refused_task_has_no_question_line():
    run = runner.play("debug", task="Restart inventory-service.", budget=ROOMY)
    assert run.question is None and "Question:" not in repr(run)
    assert '"Restart"' in run.answer and all(label != "question" for label, _ in totals(run))
