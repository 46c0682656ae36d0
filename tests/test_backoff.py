"""Back-off: a summarizer that fails or frees too little rests instead of being called
every turn; trimming stands in, and the compaction's note says so."""

from __future__ import annotations

from jupyter_compaction import runner
from jupyter_compaction.agent import SUMMARY_REST_TURNS
from jupyter_compaction.events import Compacted


class Counting:
    def __init__(self, answer=None):
        self.calls, self.answer = 0, answer

    def __call__(self, prompt: str) -> str:
        self.calls += 1
        if self.answer is None:
            raise RuntimeError("summary service down")
        return self.answer(prompt)


def play(summarizer, **knobs):
    knobs = {"budget": 3_000, "strategy": "summarize", "task_state": False,
             "max_turns": 60, **knobs}
    with runner.start("agents", summarizer=summarizer, **knobs) as session:
        return session.play()


def test_a_failing_summarizer_is_called_at_most_twice_in_60_turns():
    failing = Counting()
    run = play(failing)
    notes = [e.note for e in run.of(Compacted)]
    assert 1 <= failing.calls <= 2
    assert any(n.startswith("summary failed (RuntimeError: summary service down)")
               for n in notes)
    assert any(n.startswith("summary skipped (_Resting: the summarizer rests until turn")
               for n in notes)


def test_a_useless_summarizer_rests_after_two_weak_compactions():
    useless = Counting(lambda prompt: prompt + prompt)  # longer than what it replaces
    run = play(useless)
    assert run.error is None and useless.calls == 4  # two, a 30-turn rest, two more
    notes = [e.note for e in run.of(Compacted)]
    assert notes[0].startswith("summary skipped (_Resting: it freed too little 2 times in a "
                               "row; the summarizer rests until turn"), notes
    assert notes[0].endswith("trimmed instead")


def test_a_good_summarizer_is_never_sent_to_rest():
    run = play("aux", budget=6_000, task_state=True)
    assert run.status == "finished" and len(run.summary_usage) == len(run.compactions) >= 2
    assert not any("skipped" in e.note for e in run.of(Compacted))
    assert SUMMARY_REST_TURNS >= 30  # so two failures cover a 60-turn run
