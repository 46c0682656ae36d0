"""The simulated model's summaries do what the prompt says and say what the turns show."""

import re

import pytest

from jupyter_compaction import scenarios
from jupyter_compaction.evaluation import identifiers
from jupyter_compaction.events import Compacted
from jupyter_compaction.history import blocks
from jupyter_compaction.models.simulated import SimulatedModel
from jupyter_compaction.models.simulated_summary import FACT, NO_RESULT, OMITTED, fact_kind
from jupyter_compaction.runner import play
from jupyter_compaction.summaries import build_prompt
from jupyter_compaction.vocab import PLACEHOLDER, tagged

LONG = 200  # more words than any limit below, fewer than the default length


@pytest.fixture(scope="module")
def debug_run():
    return play("debug", budget=40_000, task_state=False, notes=True)


def material(run, last: int | None = None) -> str:
    """The task and turns of `run` (through message `last`), as the library quotes them."""
    prompt = str(build_prompt(run.transcript[1:last], goal=run.task))
    return prompt[prompt.index("<task>"):]


def summary(run, instructions: str, last: int | None = None, **options) -> str:
    model = SimulatedModel(run.scenario or "debug", **options)
    reply = model.create(system="", tools=[], max_tokens=4096, messages=[
        {"role": "user", "content": f"{instructions}\n\n{material(run, last)}"}])
    return reply.text


def headings(text: str) -> list[str]:
    return re.findall(r"^## (.+)$", text, re.M)


@pytest.mark.parametrize("instructions", [
    "Summarize the turns below. Use exactly two sections, '## Goal' and '## Next Steps'.",
    "Summarize the turns below with these sections: Goal and Next Steps.",
    "Summarize the turns below with these sections:\n- Goal\n- Next Steps",
    "Summarize the turns below.\n## Goal\n## Next Steps",
])
def test_the_sections_the_prompt_names_in_any_form(debug_run, instructions):
    assert headings(summary(debug_run, instructions)) == ["Goal", "Next Steps"]


@pytest.mark.parametrize(("instructions", "unit"), [
    ("Summarize the turns below in at most 40 words.", "words"),
    ("Summarize the turns below in 40 words or fewer.", "words"),
    ("Summarize the turns below; stay below 40 words.", "words"),
    ("Summarize the turns below in forty words or fewer.", "words"),
    ("Summarize the turns below in no more than 40 words.", "words"),
    ("Summarize the turns below in fewer than 41 words.", "words"),
    ("Summarize the turns below in under 60 tokens.", "tokens"),
    ("Summarize the turns below in at most 8 lines.", "lines"),
    ("Summarize the turns below in no more than 4 bullet points.", "bullets"),
])
def test_every_way_of_stating_a_length_caps_the_summary(debug_run, instructions, unit):
    text = summary(debug_run, instructions)
    model = SimulatedModel("debug")
    size = {"words": len(text.split()), "tokens": model.counter.count_text(text),
            "lines": len([ln for ln in text.split("\n") if ln.strip()]),
            "bullets": len(re.findall(r"^- ", text, re.M))}[unit]
    limit = {"words": 40, "tokens": 60, "lines": 8, "bullets": 4}[unit]
    assert 0 < size <= limit, text
    assert len(summary(debug_run, "Summarize the turns below.").split()) > LONG // 2


def test_a_near_miss_is_no_length(debug_run):
    plain = summary(debug_run, "Summarize the turns below.")
    assert summary(debug_run, "Summarize the turns below in at least 40 words.") == plain


def test_identifiers_kept_or_left_out_as_asked(debug_run):
    kept = identifiers(summary(debug_run, "Summarize the turns below. Keep every identifier "
                                          "verbatim."))
    plain = identifiers(summary(debug_run, "Summarize the turns below."))
    text = summary(debug_run, "Summarize the turns below. Leave out all identifiers.")
    assert identifiers(text) == set() and not facts_of(text) and OMITTED in text, text
    assert len(kept) > len(plain) > 0
    assert "30000 ms" in kept  # a value of an early step keeps its figure


def facts_of(text: str) -> dict[str, set[str]]:
    """The facts a summary holds (headings aside), by kind."""
    found: dict[str, set[str]] = {}
    for line in text.split("\n")[1:]:
        for fact in FACT.findall(line) if not line.startswith("#") else ():
            found.setdefault(fact_kind(fact), set()).add(fact)
    return found


@pytest.mark.parametrize(("ask", "dropped"), [
    ("Leave out names and paths.", {"names", "paths"}),
    ("Do not keep ids.", {"ids"}),
    ("Omit file names and figures.", {"paths", "numbers"}),
    ("No class names or constants, please.", {"names"}),
    ("Drop every number.", {"numbers"}),
    ("Strip the ticket numbers and the folders.", {"ids", "paths"}),
])
def test_each_kind_of_fact_is_left_out_as_asked_and_the_others_kept(debug_run, ask, dropped):
    text = summary(debug_run, f"Summarize the turns below. Keep every identifier verbatim. {ask}")
    held = facts_of(text)
    assert dropped.isdisjoint(held) and OMITTED in text, text
    assert set(held) == {"ids", "paths", "names", "numbers"} - dropped, text


def test_files_modified_lists_only_the_files_the_agent_wrote(debug_run):
    text = summary(debug_run, "Summarize the turns below.\n## Files Modified")
    assert text.split("\n")[1:] == ["- NOTES.md"], text  # written by write_note
    read_only = play("logistics", budget=40_000, task_state=False)
    text = summary(read_only, "Summarize the turns below.\n## Files Modified")
    assert text.split("\n")[1:] == ["- none"], text


def test_progress_and_next_steps_are_true_of_the_turns(debug_run):
    last = 7  # the task, then three calls with their results
    made = [b for m in debug_run.transcript[1:last] for b in blocks(m)
            if b.get("type") == "tool_use" and b["name"] != "write_note"]
    text = summary(debug_run, "Summarize the turns below.\n## Progress\n## Next Steps", last)
    progress = text[:text.index("## Next Steps")].split("\n")[1:-1]
    following = text[text.index("## Next Steps"):].split("\n")[1:]
    assert len(progress) == len(made), text
    for use, line in zip(made, progress, strict=True):
        assert all(str(v) in line for v in use["input"].values()), (use, line)
    full = summary(debug_run, "Summarize the turns below.\n## Progress\n## Next Steps")
    assert following[0] in full.split("## Next Steps")[0]  # what was next is done by the end
    assert following[0] not in full.split("## Next Steps")[1]


def test_a_call_whose_result_was_cleared_is_not_reported_as_done(debug_run):
    cleared = [{**m, "content": [{**b, "content": PLACEHOLDER} if b.get("type") ==
                                 "tool_result" else b for b in blocks(m)]}
               if m["role"] == "user" and n > 0 else m
               for n, m in enumerate(debug_run.transcript[:5])]
    run = type(debug_run)(task=debug_run.task, transcript=cleared, scenario="debug")
    text = summary(run, "Summarize the turns below.\n## Progress\n## Next Steps")
    progress = text[:text.index("## Next Steps")].split("\n")
    gone = [line for line in progress if NO_RESULT in line]
    assert gone and all(" = " not in line for line in gone), text
    for line in gone:  # called, but nothing learned: still to do
        assert line.replace(f" {NO_RESULT}", "") in text.split("## Next Steps")[1]


def test_a_summary_of_a_summary_keeps_the_files_it_wrote(debug_run):
    first = summary(debug_run, "Summarize the turns below.")
    prompt = str(build_prompt([debug_run.transcript[-1]], previous=first, goal=debug_run.task))
    again = SimulatedModel("debug").summarize(prompt)
    assert "- NOTES.md" in again.split("## Files Modified")[1]


def test_every_scenario_summary_reads_its_default_prompt():
    for name in scenarios.names():
        run = play(name, budget=40_000, task_state=False)
        text = summary(run, str(build_prompt([], goal=run.task)).split("<task>")[0])
        assert headings(text) == ["Goal", "Progress", "Key Decisions", "Files Modified",
                                  "Next Steps"], name
        assert text.split("## Files Modified\n")[1].startswith("- none"), (name, text)


def test_a_summary_of_a_summary_without_the_task_reads_the_question_from_its_goal():
    """A server compaction sends the previous summary and the newer turns, not the task:
    the question is its Goal's, so a step recorded with only the facts that question
    needs (a listing's files, not its sizes) is still done and keeps its record."""
    spec = scenarios.load("markdown")
    listed = "- list the workspace: files = markdown/core.py, markdown/util.py"
    first = f"## Goal\n{spec.task}\n## Progress\n{listed}"
    prompt = (f"Summarize this conversation. Keep every identifier verbatim.\n\n"
              f"{tagged('previous-summary', first)}\n\n{tagged('turns', '')}")
    again = SimulatedModel("markdown").summarize(prompt)
    assert listed in again.split("## Next Steps")[0], again
    assert "list the workspace" not in again.split("## Next Steps")[1], again


def test_a_prompt_that_drops_paths_gives_summaries_without_them_and_the_run_loses_them():
    writer = SimulatedModel("agents")

    def without_paths(prompt: str) -> str:
        return writer.summarize(f"{prompt}\n\nLeave out all paths.")

    run = play("agents", budget=8_000, strategy="summarize", summarizer=without_paths)
    kept = play("agents", budget=8_000, strategy="summarize")
    summaries = [e for e in run.events if isinstance(e, Compacted)]
    assert summaries and all(not facts_of(e.summary).get("paths") for e in summaries)
    assert "agents/router.py" in summaries[0].dropped_facts
    assert "agents/router.py" in kept.answer and kept.outcome == "correct"
    assert "agents/router.py" not in run.answer and run.outcome != "correct", run.answer
