"""Back-off: a summarizer that fails or frees too little rests instead of being called
every turn; trimming (with a fallback summary) stands in, and the compaction's note says
so. A useless or failing summarizer is called at most twice in a run of 60 turns."""

from __future__ import annotations

import dataclasses

import pytest

from jupyter_compaction import runner, scenarios
from jupyter_compaction.agent import Agent
from jupyter_compaction.backoff import REST_GROWTH, SUMMARY_REST_TURNS
from jupyter_compaction.events import Compacted
from jupyter_compaction.models.base import Reply

TURNS = 60


class Counting:
    def __init__(self, answer=None):
        self.calls, self.answer = 0, answer

    def __call__(self, prompt: str) -> str:
        self.calls += 1
        if self.answer is None:
            raise RuntimeError("summary service down")
        return self.answer(prompt)


class Reader:
    """A model that reads the next page every turn and never answers: every run lasts
    `max_turns`, and the history keeps outgrowing the budget. It counts pages itself, so
    it never re-reads one after a compaction (which the loop guard would stop)."""

    name = "reader"

    def __init__(self):
        self.replies = 0  # numbers the tool_use ids, which must stay unique, and the pages

    def create(self, *, system, messages, tools, max_tokens, cache=None):
        pages = self.replies
        self.replies += 1
        return Reply([{"type": "text", "text": f"Reading page {pages}."},
                      {"type": "tool_use", "id": f"toolu_{self.replies}",
                       "name": "read_page", "input": {"page": pages}}], "tool_use")


def read_page(page: int) -> str:
    """Read one page of the book."""
    return f"Page {page} of BOOK-{1000 + page}: " + "words " * 200


def play(summarizer, **knobs):
    agent = Agent(Reader(), tools=[read_page], summarizer=summarizer,
                  **{"budget": 3_000, "strategy": "summarize", "task_state": False, **knobs})
    return agent.run("Read the book, page after page.", max_turns=TURNS)


useless = pytest.param(lambda prompt: prompt + prompt, id="useless")  # longer than the input
failing = pytest.param(None, id="failing")


@pytest.mark.parametrize("answer", [useless, failing])
def test_a_useless_or_failing_summarizer_is_called_at_most_twice_in_60_turns(answer):
    summarizer = Counting(answer)
    run = play(summarizer)
    assert run.turn == TURNS and run.error is None
    compacting = {e.turn for e in run.of(Compacted)}
    assert len(compacting) >= 5  # the budget kept asking for compaction all along
    assert 1 <= summarizer.calls <= 2


def test_failures_rest_longer_each_time_and_say_so():
    run = play(Counting())
    notes = [(e.turn, e.note) for e in run.of(Compacted)]
    failed = [t for t, n in notes
              if n.startswith("summary failed (RuntimeError: summary service down)")]
    assert len(failed) == 2 and failed[1] - failed[0] >= SUMMARY_REST_TURNS
    rests = {n.split("until turn ")[1].split(")")[0] for t, n in notes
             if "the summarizer rests until turn" in n}
    assert rests == {str(failed[0] + SUMMARY_REST_TURNS),
                     str(failed[1] + SUMMARY_REST_TURNS * REST_GROWTH)}
    assert all(n.endswith("trimmed instead; a fallback summary keeps the trimmed turns' "
                          "calls, files and identifiers") for _, n in notes)


def test_a_useless_summarizer_rests_for_the_rest_of_the_run():
    run = play(Counting(lambda prompt: prompt + prompt))
    notes = [e.note for e in run.of(Compacted)]
    # the first longer summary frees nothing, so trimming stands in for that turn ...
    assert notes[0].startswith("summary failed (FreedNothing: result (")
    assert "is not smaller than the input" in notes[0] and "trimmed instead" in notes[0]
    # ... and the second sends the summarizer to rest for good
    assert notes[1].startswith("summary skipped (Resting: it failed or freed too little 2 "
                               "times in a row; the summarizer rests for the rest of the run)")
    assert all("the summarizer rests for the rest of the run" in n for n in notes[2:])


def test_one_weak_call_after_a_rest_sends_the_summarizer_back_for_good():
    calls = []

    def down_then_useless(prompt: str) -> str:
        calls.append(prompt)
        if len(calls) == 1:
            raise RuntimeError("summary service down")
        return prompt + prompt

    run = play(down_then_useless)
    assert len(calls) == 2 and run.turn == TURNS
    assert any("the summarizer rests for the rest of the run" in e.note
               for e in run.of(Compacted))


def test_a_good_summarizer_is_never_sent_to_rest():
    run = runner.play("agents", budget=6_000, task_state=True, strategy="summarize")
    assert run.status == "finished" and len(run.summary_usage) == len(run.compactions) >= 2
    assert not any("skipped" in e.note or "failed" in e.note for e in run.of(Compacted))
    good = Counting(lambda prompt: "## Progress\nread the pages")  # short: frees a lot
    long_run = play(good)
    assert good.calls == len(long_run.compactions) >= 5
    assert not any("rest" in e.note for e in long_run.of(Compacted))


@pytest.mark.parametrize("answer", [useless, failing])
@pytest.mark.parametrize("scenario", ["logistics", "audit"])
def test_a_scenario_still_ends_right_with_a_useless_or_failing_summarizer(answer, scenario):
    # a longer summary frees nothing: trimming (with its fallback summary) stands in at
    # once, where the run used to end stuck
    summarizer = Counting(answer)
    run = runner.play(scenario, budget=6_000, strategy="summarize", summarizer=summarizer)
    assert run.status == "finished" and scenarios.load(scenario).is_correct(run.answer)
    assert 1 <= summarizer.calls <= 2


# --- the back-off object on its own --------------------------------------------------------

def compaction(before: int, after: int, changed: bool = True):
    from jupyter_compaction.strategies import Compaction

    return Compaction("summarize", [], before, after, dropped=1 if changed else 0)


def test_the_backoff_lives_on_the_run_not_in_the_agent():
    from jupyter_compaction.agent import Run
    from jupyter_compaction.backoff import SummaryBackoff

    assert Run(task="t").backoff == SummaryBackoff()
    old = {"summaries_resume_at", "weak_summaries", "summary_rests"}
    assert not old & set(vars(Run(task="t")))


def test_a_failure_rests_then_rests_longer():
    from jupyter_compaction.backoff import Resting, SummaryBackoff

    backoff = SummaryBackoff()
    backoff.check(5)  # not resting yet
    backoff.failed(5)
    with pytest.raises(Resting, match=f"until turn {5 + SUMMARY_REST_TURNS}"):
        backoff.check(5 + SUMMARY_REST_TURNS - 1)
    backoff.check(5 + SUMMARY_REST_TURNS)
    backoff.failed(40)
    assert backoff.resume_at == 40 + SUMMARY_REST_TURNS * REST_GROWTH


def test_weak_compactions_in_a_row_rest_for_good_and_nothing_changed_is_refused():
    from jupyter_compaction.backoff import WEAK_IN_A_ROW, FreedNothing, Resting, SummaryBackoff

    backoff = SummaryBackoff()
    assert backoff.judge(compaction(1_000, 500)) is None  # strong: stands
    for _ in range(WEAK_IN_A_ROW - 1):
        assert backoff.judge(compaction(1_000, 950)) is None  # weak, not yet enough
    assert isinstance(backoff.judge(compaction(1_000, 960)), Resting)
    with pytest.raises(Resting, match="for the rest of the run"):
        backoff.check(10**9)
    same = dataclasses.replace(compaction(1_000, 1_000, changed=False), note="longer; x")
    refused = SummaryBackoff(weak=-10).judge(same)  # not weak enough in a row to rest
    assert isinstance(refused, FreedNothing) and str(refused) == "longer"
