"""Reactive compaction: a refusal for length compacts harder and retries the call once."""

from __future__ import annotations

import pytest

from jupyter_compaction import runner, scenarios
from jupyter_compaction.events import Compacted, Failed
from jupyter_compaction.models.anthropic import ModelError
from jupyter_compaction.models.simulated import SimulatedModel

SCENARIO = "agents"


class Refusing:
    """The simulated model behind a window smaller than the agent believes: requests with
    more than `window` messages are refused as too long, `times` times at most; with
    `sticky`, every call after the first refusal is refused too."""

    name = "refusing"

    def __init__(self, window: int, times: int = 1, status: int = 400,
                 words: str = "prompt is too long: 210000 tokens > 200000 maximum",
                 sticky: bool = False):
        self.inner = SimulatedModel(SCENARIO)
        self.window, self.times, self.status, self.words = window, times, status, words
        self.sticky = sticky
        self.refused = 0

    def create(self, **request):
        over = len(request["messages"]) > self.window or (self.sticky and self.refused)
        if over and self.refused < self.times:
            self.refused += 1
            raise ModelError(f"Claude API error {self.status}: {self.words}",
                             status=self.status, error_type="invalid_request_error")
        return self.inner.create(**request)


def play(model, **knobs):
    with runner.start(SCENARIO, model=model, budget=100_000, **knobs) as session:
        return session.play()


@pytest.mark.parametrize(("status", "words"), [
    (400, "prompt is too long: 210000 tokens > 200000 maximum"),
    (413, "request_too_large"),
])
@pytest.mark.parametrize("strategy", ["trim", "progressive"])
def test_one_refusal_compacts_harder_and_the_run_finishes(status, words, strategy):
    model = Refusing(window=9, status=status, words=words)
    run = play(model, strategy=strategy)
    assert model.refused == 1 and run.status == "finished"
    assert scenarios.load(SCENARIO).is_correct(run.answer)
    first = run.of(Compacted)[0]
    assert "refused the request as too long" in first.note
    assert "compacted harder and retried" in first.note
    assert not run.of(Failed)
    assert len(run.transcript) > len(run.messages)  # the transcript keeps what was dropped


def test_a_second_refusal_in_a_row_ends_the_run_with_one_line():
    model = Refusing(window=5, times=10, sticky=True)
    run = play(model, strategy="trim")
    assert run.status == "failed" and model.refused == 2
    assert "prompt is too long" in run.error and "\n" not in run.error
    assert len(run.of(Compacted)) == 1 and len(run.of(Failed)) == 1


def test_other_errors_and_strategy_off_are_not_retried():
    model = Refusing(window=9, status=400, words="messages: roles must alternate")
    run = play(model, strategy="trim")
    assert run.status == "failed" and model.refused == 1 and not run.of(Compacted)
    model = Refusing(window=9)
    run = play(model, strategy="off")
    assert run.status == "failed" and model.refused == 1 and not run.of(Compacted)


def test_nothing_left_to_remove_ends_the_run_at_the_first_refusal():
    model = Refusing(window=2, times=10)  # task + one turn: nothing to trim
    run = play(model, strategy="trim")
    assert run.status == "failed" and model.refused == 1 and not run.of(Compacted)
