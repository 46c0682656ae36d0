"""Shared helpers for strategy tests: a checked call and a recording summarizer."""

from __future__ import annotations

import copy

from jupyter_compaction import TokenCounter, validate

COUNTER = TokenCounter()


def apply(strategy, messages, goal=1_000, counter=COUNTER):
    """Call `strategy` and check what every call must keep: input untouched, a valid
    result, honest token counts that never grow."""
    snapshot = copy.deepcopy(messages)
    out = strategy(messages, goal=goal, counter=counter)
    assert messages == snapshot, "the input must not be mutated"
    validate(out.messages)
    assert out.tokens_before == counter.count(messages)
    assert out.tokens_after == counter.count(out.messages)
    assert out.tokens_after <= out.tokens_before
    return out


class Recorder:
    """A summarizer that keeps every prompt it was given and answers with `answer`
    (a string, or a function of the prompt)."""

    def __init__(self, answer="## Goal\nfinish\n## Progress\nturns summarized"):
        self.answer, self.prompts = answer, []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        return self.answer(prompt) if callable(self.answer) else self.answer
