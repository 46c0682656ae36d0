"""The turns of a summary request are read as transcript lines, JSON messages or prose."""

import json
import re

import pytest

from jupyter_compaction.models.simulated import SimulatedModel
from jupyter_compaction.models.simulated_summary import CANNOT_READ
from jupyter_compaction.models.summary_material import read_material
from jupyter_compaction.runner import play
from jupyter_compaction.summaries import render_transcript
from jupyter_compaction.vocab import tagged

ASK = "Summarize these turns in at most 80 words with two sections, 'Goal' and 'Progress'."


@pytest.fixture(scope="module")
def run():
    return play("logistics", budget=40_000, task_state=False)


def ask(model: SimulatedModel, text: str) -> str:
    reply = model.create(system="", tools=[], max_tokens=4096,
                         messages=[{"role": "user", "content": text}])
    return reply.text


def json_turns(run) -> str:
    return json.dumps(run.transcript[1:])


@pytest.mark.parametrize("form", ["tagged transcript", "tagged json", "json", "json object",
                                  "transcript"])
def test_turns_in_every_form_give_the_same_summary(run, form):
    turns = {"tagged transcript": tagged("turns", render_transcript(run.transcript[1:])),
             "tagged json": tagged("turns", json_turns(run)),
             "json": json_turns(run),
             "json object": json.dumps({"messages": run.transcript[1:]}, indent=1),
             "transcript": render_transcript(run.transcript[1:])}[form]
    prompt = f"{ASK}\n\n{tagged('task', run.task)}\n\n{turns}"
    model = SimulatedModel("logistics")
    text = ask(model, prompt)
    assert re.findall(r"^## (.+)$", text, re.M) == ["Goal", "Progress"], text
    assert 0 < len(text.split()) <= 80 and "TCK-5521" in text, text
    written = model.write_summary(prompt)
    assert written.text == text and written.not_understood == ()
    assert written.followed()[0].startswith("turns: ")
    assert ("JSON" in written.followed()[0]) is ("json" in form)


def test_json_messages_are_read_as_the_librarys_own_transcript(run):
    material = read_material(f"{ASK}\n{json_turns(run)}\nThanks.")
    assert material.form == "json" and material.count == len(run.transcript) - 1
    assert material.turns == render_transcript(run.transcript[1:])
    assert material.instructions == f"{ASK}\n\nThanks."


def test_prose_is_read_for_its_facts_or_the_summarizer_says_it_cannot(run):
    model = SimulatedModel("logistics")
    facts = model.write_summary(f"{ASK}\n{tagged('task', run.task)}\n" + tagged(
        "turns", "The agent read the ticket. order = ORD-1042; waybill = VD-88317."))
    assert facts.followed()[0] == "turns: prose, read for its 2 'name = value' facts"
    assert "ORD-1042" in facts.text and "VD-88317" in facts.text, facts.text
    story = model.write_summary(f"{ASK}\n" + tagged("turns", "The agent read the ticket and "
                                                         "looked the order up."))
    assert story.text == CANNOT_READ and "cannot read" in story.followed()[0]


def test_a_task_that_says_summarize_but_hands_over_no_turns_is_a_task():
    model = SimulatedModel("agents")
    reply = model.create(system="", tools=[], max_tokens=4096, messages=[
        {"role": "user", "content": "Summarize agents/router.py for me."}])
    assert reply.stop_reason == "refusal"  # read as a task, which no question declares
