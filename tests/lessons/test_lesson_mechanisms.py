"""Where each mechanism pays and where it does not, recomputed from the runs the lessons show.

Lessons 4, 6 and 10 each show a mechanism in a setup where it changes the outcome (issue 38):
the model asking for a compaction, a focus, restore, the memory tool against a notes file,
the compaction instructions, server compaction's price and cleared thinking. Each test here
plays the lesson's runs again and checks the claim its prose makes about them, so a change
of the engine that makes the claim false fails here, not in front of a learner.

Left out: the numbers the prose quotes (`test_lesson_numbers.py` ties each to an output).
"""

from __future__ import annotations

import pytest

from jupyter_compaction import SummarizeMiddle, runner, scenarios
from jupyter_compaction.events import Compacted, ToolCalled
from jupyter_compaction.models.simulated import SimulatedModel
from jupyter_compaction.runner import play
from jupyter_compaction.settings import DEFAULTS
from jupyter_compaction.vocab import MEMORY_TOOL_NAME, READ_NOTES
from tests.lessons.test_lesson_claims import cell

pytestmark = pytest.mark.slow

FOCUS = "the waybill and the depot slot"  # lesson 4's focus


def debug_runs() -> dict[str, object]:
    """Lesson 4's three runs of the debug task."""
    base = {"budget": 8_000, "strategy": "summarize", "task_state": False}
    return {"asked": play("debug", **base, usage_line=True, compact_at=0.6, trigger=1.0),
            "backstop": play("debug", **base, trigger=1.0), "automatic": play("debug", **base)}


def test_lesson_4_the_model_asks_at_its_own_mark_before_the_backstop_would():
    runs = debug_runs()
    asked, backstop, automatic = runs["asked"], runs["backstop"], runs["automatic"]
    asks = [e for e in asked.of(ToolCalled) if e.name == "compact"]
    task = scenarios.load("debug").task
    assert len(asks) >= 2 and all(not task.startswith(a.input["focus"]) for a in asks)
    assert all([e.name for e in asked.of(ToolCalled) if e.turn == a.turn] == ["compact"]
               for a in asks)  # it asks, and takes its step after the compaction
    assert [c.turn for c in asked.of(Compacted)] == [a.turn + 1 for a in asks]  # all asked
    first = min(c.tokens_before for c in backstop.of(Compacted) + automatic.of(Compacted))
    assert max(c.tokens_before for c in asked.of(Compacted)) < first
    assert asked.peak_context < min(backstop.peak_context, automatic.peak_context)
    assert asked.tokens_sent < min(backstop.tokens_sent, automatic.tokens_sent)
    assert asked.repeats == 0  # two compact calls, none counted as a repeat
    said = cell("04", "l04-asked-read")
    assert "peaked lowest" in said and "sent the fewest tokens, with no repeat" in said
    assert "both fired at" in said and backstop.of(Compacted)[0].tokens_before == (
        automatic.of(Compacted)[0].tokens_before)


def focused_summary(words: int, focus: str | None) -> str:
    """The finished logistics run of lesson 4, compacted with a summarizer of `words`."""
    layer = SummarizeMiddle(summarizer=SimulatedModel("logistics", summary_words=words).summarize)
    with runner.start("logistics", budget=5_000, strategy="summarize", task_state=False) as s:
        done = s.play()
        return s.agent.compact(done, layer, focus).summary


def valued(summary: str) -> set[str]:
    """The steps of a summary that kept their values (their labels)."""
    return {line.split(": ")[0] for line in summary.splitlines()
            if line.startswith("- ") and " = " in line}


def test_lesson_4_a_focus_changes_the_summary_only_where_the_cap_bites():
    plain, focused = valued(focused_summary(140, None)), valued(focused_summary(140, FOCUS))
    assert any("waybill" in step for step in focused - plain)  # kept for the focus
    assert {step for step in plain - focused} and all("policy" in s for s in plain - focused)
    assert focused_summary(200, None) == focused_summary(200, FOCUS)  # the cap never bites
    said = cell("04", "l04-focus-yours")
    assert "the two policy lines, which mention none, lose theirs instead" in said


def test_lesson_6_restore_saves_the_re_read_where_the_summary_as_read_lost_the_file():
    runs = {files: play("agents", budget=8_000, strategy="compact", task_state=False,
                        restore=files, model=SimulatedModel("agents", user_summary="redo_last"))
            for files in (0, 1)}
    again = [e.input["path"] for e in runs[0].of(ToolCalled) if e.repeat]
    restored = " ".join(c.note for c in runs[1].of(Compacted))
    assert again and all(path in restored for path in again)
    assert all(f"read {path}: " in runs[0].compactions[-1].summary for path in again)
    assert runs[0].status == runs[1].status == "finished"
    assert runs[1].repeats == 0 and runs[1].turn < runs[0].turn
    assert runs[1].tokens_sent < runs[0].tokens_sent
    said = cell("06", "l06-restore-read")
    assert f"it reads `{again[0]}` again" in said and "fewer tokens sent" in said


@pytest.mark.parametrize("name", ["debug", "logistics"])
def test_lesson_6_the_loop_guard_stops_the_notes_runs_and_the_memory_runs_finish(name):
    knobs = {"budget": 8_000, "strategy": "trim", "task_state": False}
    noted, remembered = play(name, **knobs, notes=True), play(name, **knobs, memory=True)
    assert noted.compactions and not noted.of(Compacted)[0].summary  # trimming: no mark
    assert not [e for e in noted.of(ToolCalled) if e.name == READ_NOTES]  # the notes rule
    assert noted.status == "failed" and noted.turn < DEFAULTS.max_turns
    assert noted.error_line.startswith(("stuck in a loop", "thrashing"))
    after = remembered.compactions and remembered.of(Compacted)[0].turn
    assert [e for e in remembered.of(ToolCalled) if e.name == MEMORY_TOOL_NAME
            and e.turn > after and e.input.get("command") == "view"]  # the memory rule
    assert scenarios.load(name).outcome(remembered) == "correct"
    said = cell("06", "l06-guard")
    assert "the loop guard (lessons 1 and 3) stops them" in said


# --- lesson 10: the API's compaction, priced, and its instructions one change at a time -----

KEEP_ONLY = "Summarize this conversation. Keep every identifier and file name verbatim."
CAP_ONLY = "Summarize this conversation in at most 3000 words."
BOTH = ("Summarize this conversation. Keep every identifier and file name verbatim, "
        "in at most 3000 words.")
PRICES = {"input": 3.0, "output": 15.0}


def markdown_on(model: object) -> tuple[object, str]:
    """Lesson 10's markdown task, the client sending its whole history every time."""
    import tempfile

    from jupyter_compaction.agent import Agent

    spec = scenarios.load("markdown")
    workspace = spec.prepare(tempfile.mkdtemp() + "/markdown")
    agent = Agent(model, tools=spec.tools(workspace), workspace=workspace, strategy="off",
                  budget=1_000_000, task_state=False, max_turns=120)
    run = agent.run(spec.task)
    return run, spec.outcome(run, workspace)


def server_compacted(instructions: str | None, trigger: int = 50_000) -> tuple[object, str]:
    from jupyter_compaction.api_context import compact_edit
    from jupyter_compaction.server_compaction import ServerCompactingModel

    return markdown_on(ServerCompactingModel(SimulatedModel("markdown"),
                                             [compact_edit(trigger, instructions)]))


@pytest.mark.parametrize("instructions", [None, KEEP_ONLY, CAP_ONLY])
def test_lesson_10_each_half_of_the_instructions_alone_fails(instructions):
    run, outcome = server_compacted(instructions)
    assert outcome == "stuck" and run.repeats > 0
    assert run.error_line.startswith("stuck in a loop")


def test_lesson_10_server_compaction_pays_at_50k_and_costs_at_100k():
    from jupyter_compaction.pricing import dollars
    from jupyter_compaction.server_compaction import from_compaction

    never, never_outcome = markdown_on(SimulatedModel("markdown"))
    early, early_outcome = server_compacted(BOTH)
    late, late_outcome = server_compacted(BOTH, 100_000)
    assert never_outcome == early_outcome == late_outcome == "correct" and early.repeats == 0
    cost = {name: dollars(r.usage, PRICES) for name, r in
            (("never", never), ("early", early), ("late", late))}
    assert cost["early"] < cost["never"] < cost["late"]
    assert early.tokens_sent < never.tokens_sent / 1.5  # the input falls by about half ...
    assert cost["early"] > 0.9 * cost["never"]  # ... the cost by far less (the cache)
    fired = [n for n, u in enumerate(late.usage) if u.iterations]
    assert len(late.usage) - fired[0] < 5  # late: few calls left to profit from it
    said = cell("10", "l10-instructions-read")
    assert "costs only 5% less" in said and "17% more" in said
    assert f"{round(100 * (1 - cost['early'] / cost['never']))}% less" in said
    assert f"{round(100 * (cost['late'] / cost['never'] - 1))}% more" in said
    view, ignored = from_compaction(early.messages)
    read = len(early.messages) - ignored
    assert read + ignored == len(early.messages) and len(view) == read + 1  # it adds up:
    # the block's own message is read as two (the summary, then the rest of that reply)


def test_lesson_10_clearing_thinking_saves_a_share_where_every_call_thinks():
    from jupyter_compaction import TokenCounter
    from jupyter_compaction.history import blocks, drop_old_thinking

    counter = TokenCounter()
    run = play("agents", model=SimulatedModel("agents", thinking=True), budget=1_000_000,
               strategy="off", task_state=False)
    plain = play("agents", budget=1_000_000, strategy="off", task_state=False)
    assert [e.input for e in run.of(ToolCalled)] == [e.input for e in plain.of(ToolCalled)]
    calls = [n for n, m in enumerate(run.transcript) if m["role"] == "assistant"]
    assert all(blocks(run.transcript[n])[0]["type"] == "thinking" for n in calls)
    sent = {keep: sum(counter.count(drop_old_thinking(run.transcript[:n], keep=keep))
                      for n in calls) for keep in ("all", 1)}
    assert 1 - sent[1] / sent["all"] > 0.1  # a tenth and more, where lesson 9's saves 1.8 %
    said = cell("10", "l10-thinking-read")
    assert "a model that thinks on every call of a long agentic loop" in said
