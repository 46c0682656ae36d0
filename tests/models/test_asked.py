"""A follow-up question in the same conversation is the question answered: the newest
one its user asked, through compactions that summarize it, never the first task again."""

from __future__ import annotations

import pytest

from jupyter_compaction import runner, scenarios
from jupyter_compaction.events import ToolCalled
from jupyter_compaction.models.asked import asked, asked_of
from jupyter_compaction.models.simulated import SimulatedModel
from jupyter_compaction.restate import GO_ON
from jupyter_compaction.summaries import build_prompt, summary_block
from jupyter_compaction.vocab import read_transcript

ROOMY = 200_000
RESULT = {"type": "tool_result", "tool_use_id": "t1", "content": "3 files"}
CALL = {"role": "assistant", "content": [
    {"type": "tool_use", "id": "t1", "name": "list_files", "input": {"folder": "."}}]}
# (scenario, first task, a follow-up of another declared question): wordings of our own
FOLLOW_UPS = [
    ("markdown", "List the Python files of this package.",
     "And which of the files import the .util module?"),
    ("agents", "Which files in agents/ define a tool dispatch table?",
     "Now: is a retry policy defined in agents/retry.py?"),
    ("logistics", "Why did the delivery of order ORD-1042 fail?",
     "What loyalty tier is the customer of ticket TCK-5521 in?"),
]


def user(*content):
    return {"role": "user", "content": list(content)}


def text(words):
    return {"type": "text", "text": words}


def test_the_newest_user_question_is_the_task():
    messages = [user(text("first?")), CALL, user(RESULT),
                {"role": "assistant", "content": "An answer."}, user(text("second?"))]
    assert asked(messages) == (4, "second?")


def test_text_the_library_adds_to_tool_results_is_no_question():
    usage = text("Context usage: 4,000 of 8,000 tokens.")
    messages = [user(text("the task?")), CALL, user(RESULT, usage)]
    assert asked(messages) == (0, "the task?")


@pytest.mark.parametrize("nudge", ["Go on.", "please continue", "OK, keep going", "proceed",
                                   GO_ON, "Continue your work."])  # GO_ON: restate.py's
def test_a_turn_that_only_says_carry_on_is_no_question(nudge):
    messages = [user(text("the task?")), CALL, user(RESULT),
                {"role": "assistant", "content": "Paused."}, user(text(nudge))]
    assert asked(messages)[1] == "the task?"


def test_a_summary_whose_goal_is_a_later_question_states_the_task():
    summary = summary_block("## Goal\nthe follow-up?\n## Progress\n- listed", "user")
    assert asked([user(text("the first task?"), summary)])[1] == "the follow-up?"
    behind = {"role": "assistant", "content": [summary_block("## Goal\nthe follow-up?")]}
    assert asked([user(text("the first task?")), behind, user(RESULT)])[1] == "the follow-up?"


def test_a_goal_restating_the_first_line_of_a_question_stands_for_all_of_it():
    task = "Map the imports.\nUse the package's files only."
    summary = summary_block("## Goal\nMap the imports.\n## Progress\n- read", "user")
    assert asked([user(text(task), summary)]) == (0, task)


def test_a_server_summary_handed_over_as_the_users_text_states_the_task():
    assert asked([user(text("## Goal\nthe asked question?\n## Progress\n- x"))])[1] == \
        "the asked question?"


def test_a_summary_prompt_reads_the_newest_question_of_its_turns_and_goal():
    turns = [user(text("first?")), {"role": "assistant", "content": "One."},
             user(text("second?")), CALL, user(RESULT, text("Context usage: 10%"))]
    prompt = build_prompt(turns[1:], goal="first?")
    assert "## Goal\nsecond?" in SimulatedModel("agents").summarize(prompt)
    entries = read_transcript("[assistant] One.")
    assert asked_of("first?", "## Goal\nsecond?\n## Progress\n- x", entries) == "second?"
    assert asked_of("first?", "## Goal\nfirst?\n## Progress\n- x", entries) == "first?"


def played(scenario, first, budget=ROOMY, **knobs):
    session = runner.start(scenario, task=first, budget=budget, **knobs)
    session.play()
    return session


@pytest.mark.parametrize(("scenario", "first", "second"), FOLLOW_UPS, ids=lambda v: v[:24])
def test_a_follow_up_is_answered_and_graded_as_asked(scenario, first, second):
    spec = scenarios.load(scenario)
    with played(scenario, first) as session:
        before = session.run.answer
        run = session.ask(second)
    assert run.status == "finished" and run.outcome == "correct", run.answer
    assert run.answer == spec.expected(task=second) != before
    assert run.task == second and run.question == spec.canonical(second)
    assert run.transcript[0]["content"] == first  # the conversation goes on, whole


def test_a_follow_up_answered_from_the_context_calls_nothing_it_has_seen():
    with played("agents", "Which files in agents/ define a tool dispatch table?") as session:
        calls = len(session.run.of(ToolCalled))
        run = session.ask("Does agents/router.py define a tool dispatch table?")
    assert run.outcome == "correct" and len(run.of(ToolCalled)) == calls  # router.py was read
    said = run.transcript[-1]["content"][0]["text"]
    assert said == scenarios.load("agents").expected(
        task="Does agents/router.py define a tool dispatch table?")


def test_a_follow_up_it_does_not_understand_is_refused_naming_its_words():
    with played("markdown", "List the Python files of this package.") as session:
        run = session.ask("Which of them were written by Waylan?")
    assert run.status == "unsupported" and run.outcome == "unsupported"
    assert 'I did not understand: "Waylan"' in run.answer
    assert "Python files in the workspace" not in run.answer  # not the first answer again


def test_a_follow_up_survives_summaries_that_replace_it():
    second = "And which of the files import the .util module?"
    with played("markdown", "List the Python files of this package.", budget=8_000,
                strategy="summarize") as session:
        run = session.ask(second)
    assert len(run.compactions) >= 2 and run.outcome == "correct", run.answer
    assert {"role": "user", "content": second} not in run.messages  # a summary holds it


def test_a_follow_up_survives_trimming():
    """Trimming keeps the turn that asks the newest question, as it keeps the task."""
    second = "And which of the files import the .util module?"
    with played("markdown", "List the Python files of this package.", budget=8_000,
                strategy="trim") as session:
        run = session.ask(second)
    assert run.compactions and run.outcome == "correct", run.answer
    assert {"role": "user", "content": second} in run.messages


def test_a_follow_up_survives_progressive_compaction():
    """Its trim layer keeps the summary whose Goal holds the follow-up (the summarize
    layer replaced the turn that asked it)."""
    second = "And which of the files import the .util module?"
    with played("markdown", "List the Python files of this package.", budget=5_000,
                strategy="progressive") as session:
        run = session.ask(second)
    assert any(layer.kind == "trim" for c in run.compactions for layer in c.layers)
    assert run.outcome == "correct", run.answer


def test_only_an_answered_run_takes_a_follow_up():
    with runner.start("agents", budget=ROOMY, max_turns=1) as session:
        with pytest.raises(ValueError, match="not run yet"):
            session.ask("Which files in agents/ define a tool dispatch table?")
        run = session.play()
        assert run.status == "max_turns"
        with pytest.raises(ValueError, match="resume"):
            session.ask("Which files in agents/ define a tool dispatch table?")
        with pytest.raises(ValueError, match="non-empty"):
            session.agent.ask(run, "  ")


@pytest.mark.parametrize(("scenario", "first", "second"), [
    ("logistics", "What loyalty tier is the customer of ticket TCK-5521 in?",
     "Why did the delivery of order ORD-7788 fail?"),  # the ticket's results name ORD-1042
    ("debug", "How long does checkout-api wait for inventory-service before timing out?",
     "And how long does it wait for pricing-service before timing out?"),
], ids=["missing-order", "other-upstream"])
def test_a_follow_up_about_another_entity_is_answered_for_that_entity(scenario, first, second):
    with played(scenario, first) as session:
        run = session.ask(second)
    assert run.outcome == "correct" and run.answer == scenarios.load(scenario).expected(
        task=second), run.answer
