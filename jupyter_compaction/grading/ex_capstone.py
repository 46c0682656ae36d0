"""ex8 (lesson 8, the capstone): `choose_settings` for the unseen `audit` scenario.

The learner returns `{"strategy": str, "budget": int, "task_state": bool}`; the check
plays `runner.play("audit", ...)` with those settings on the simulated model and, for the
cost target, plays `strategy="off"` at the same budget and task-state setting. Each
target is its own case, so the score says which ones were met, and a failure gives the
numbers: the answer is correct, no tool call is repeated, the peak context stays within
the budget, the budget is at most `MAX_BUDGET`, and the run sends at most `MAX_SHARE` of
the tokens that `off` sends. A run that gives no answer meets none of the four run
targets, and each says why it stopped (the run's own error line, or the turn limit). Runs
are cached per setting (the model is deterministic).

`MAX_SHARE` is 50 %. Measured on the simulated model (budgets 5,000-7,000, the agent
compacting from its trigger down to its target), the settings that answer correctly with
no repeated call send, as a share of `off` with the same task-state setting: trim + task
state 34-44 %, compact + task state 48-55 %, progressive + task state 49-56 %, progressive
without task state 56-58 %, summarize 56-60 %; trim without task state never finishes. At
50 % trimming with task state passes at every budget, compacting and progressive only at
the lowest, and summarizing alone is too expensive.

A wrong answer's message says which of two causes the run's own data shows: a missing
word that no tool result the agent was shown contains, in a run whose results were cut to
the result cap (`agent.MAX_RESULT_SHARE` of the budget), was truncated, never seen (raise
the budget); one it was shown and left out was forgotten (a stronger memory).

Left out: real models (the check must give the same numbers offline, every run).
"""

from __future__ import annotations

import functools
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..agent import MAX_RESULT_SHARE
from ..events import ToolCalled, ToolReturned
from ..history import block_text, blocks
from ..strategies import STRATEGIES
from .base import Advice, Case, Exercise, short

SCENARIO = "audit"
MAX_BUDGET = 7_000
MAX_SHARE = 0.50  # tokens sent / tokens sent with strategy="off" (same budget, task state)
KEYS = ("strategy", "budget", "task_state")


@dataclass(frozen=True)
class Outcome:
    status: str
    answer: str | None
    correct: bool
    repeats: int
    peak: int
    sent: int
    cut: tuple[str, ...] = ()  # the calls whose results were cut to the result cap
    unseen: tuple[str, ...] = ()  # words the right answer has that no tool result showed
    reason: str | None = None  # why a run that gave no answer stopped, on one line

    @property
    def unfinished(self) -> Advice | None:
        """None if the run gave an answer, else why it meets no target (its own hint: the
        case's hint is about another mistake)."""
        if self.answer is not None:
            return None
        why = f": {self.reason}" if self.reason else ""
        return Advice(f"the run ended with status {self.status!r} and no answer{why}; a run"
                      " that does not finish meets no target: choose settings it finishes with")


@functools.lru_cache(maxsize=64)
def outcome(strategy: str, budget: int, task_state: bool) -> Outcome:
    from .. import scenarios
    from ..runner import play

    with tempfile.TemporaryDirectory(prefix="compaction-grade-") as workdir:
        run = play(SCENARIO, strategy=strategy, budget=budget, task_state=task_state,
                   workdir=workdir)
    grade = scenarios.load(SCENARIO).grade(run.answer, task=run.task)
    shown = "\n".join(block_text(b) for m in run.transcript for b in blocks(m)
                      if b.get("type") == "tool_result")
    calls = {e.id: e for e in run.of(ToolCalled)}
    cut = tuple(f"{calls[e.id].name} {' '.join(map(str, calls[e.id].input.values()))}"
                for e in run.of(ToolReturned) if e.truncated)
    return Outcome(run.status, run.answer, run.answer is not None and grade.status == "correct",
                   run.repeats, run.peak_context, run.tokens_sent, cut,
                   tuple(w for w in grade.missing if w not in shown), _reason(run))


def _reason(run: Any) -> str | None:
    """Why `run` stopped without an answer: its error line, or the turn limit."""
    if run.status == "max_turns":
        return f"it used all {run.turn} turns"
    return run.error_line


def _keys_problem(chosen: dict[Any, Any]) -> str | None:
    """What is wrong with the dict's keys (exactly `KEYS`), or None."""
    missing = [k for k in KEYS if k not in chosen]
    extra = [k for k in chosen if k not in KEYS]
    if not (missing or extra):
        return None
    return (f"the dict needs exactly the keys {', '.join(KEYS)}"
            + (f"; missing {', '.join(missing)}" if missing else "")
            + (f"; unexpected {', '.join(map(str, extra))}" if extra else ""))


def settings(fn: Callable[[], Any]) -> tuple[str, int, bool]:
    """The learner's settings, or ValueError saying what is wrong with them."""
    chosen = fn()
    if not isinstance(chosen, dict):
        raise ValueError(f"choose_settings() returned {short(chosen)}, not a dict")
    problem = _keys_problem(chosen)
    if problem:
        raise ValueError(problem)
    strategy, budget, task_state = (chosen[k] for k in KEYS)
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy {short(strategy)} is not one of {', '.join(STRATEGIES)}")
    if isinstance(budget, bool) or not isinstance(budget, int) or budget <= 0:
        raise ValueError(f"budget must be a positive int, not {short(budget)}")
    if not isinstance(task_state, bool):
        raise ValueError(f"task_state must be True or False, not {short(task_state)}")
    return strategy, budget, task_state


def well_formed(fn: Callable[[], Any]) -> str | None:
    settings(fn)
    return None


def small_budget(fn: Callable[[], Any]) -> str | None:
    budget = settings(fn)[1]
    return None if budget <= MAX_BUDGET else f"budget {budget} > {MAX_BUDGET}"


def correct(fn: Callable[[], Any]) -> str | Advice | None:
    run = outcome(*settings(fn))
    if run.correct:
        return None
    if run.unfinished:
        return run.unfinished
    wrong = f"the answer was wrong: {short(run.answer)}"
    if run.unseen and run.cut:
        return (f"{wrong}. Truncated, not forgotten: no tool result the agent was shown holds "
                f"{', '.join(run.unseen)}, and {len(run.cut)} results were cut to "
                f"{MAX_RESULT_SHARE:.0%} of the budget ({'; '.join(dict.fromkeys(run.cut))}):"
                " raise the budget so the whole file fits")
    return (f"{wrong}. Forgotten, not truncated: every fact it lacks was in a tool result it"
            " was shown, and a compaction lost it: a stronger memory helps (task_state=True,"
            " or a strategy that summarizes)")


def no_repeats(fn: Callable[[], Any]) -> str | Advice | None:
    run = outcome(*settings(fn))
    if run.unfinished:
        return run.unfinished
    return None if run.repeats == 0 else f"{run.repeats} tool calls were repeated"


def within_budget(fn: Callable[[], Any]) -> str | Advice | None:
    strategy, budget, task_state = settings(fn)
    run = outcome(strategy, budget, task_state)
    if run.unfinished:
        return run.unfinished
    return None if run.peak <= budget else f"peak context {run.peak} > budget {budget}"


def cheap(fn: Callable[[], Any]) -> str | Advice | None:
    strategy, budget, task_state = settings(fn)
    run = outcome(strategy, budget, task_state)
    if run.unfinished:
        return run.unfinished
    sent = run.sent
    baseline = outcome("off", budget, task_state).sent
    share = sent / baseline
    if share <= MAX_SHARE:
        return None
    return (f"sent {sent:,} tokens = {share:.0%} of the {baseline:,} that strategy='off' sends"
            f" at budget {budget}; the target is <= {MAX_SHARE:.0%}")


CASES = (
    Case("returns the three settings",
         'return {"strategy": <a strategy name>, "budget": <int>, "task_state": <bool>}',
         well_formed),
    Case(f"budget at most {MAX_BUDGET}",
         f"the audit must run in a small window: choose a budget of at most {MAX_BUDGET}",
         small_budget),
    Case("the answer is correct",
         f"a finding was cut off (each tool result is cut to {MAX_RESULT_SHARE:.0%} of the"
         " budget: raise the budget) or forgotten after a compaction (a stronger memory,"
         " e.g. task_state=True); the message says which, from the run itself",
         correct),
    Case("no repeated tool calls",
         "the agent re-read or re-looked-up things it had forgotten after a compaction:"
         " keep progress outside the messages (task_state=True)",
         no_repeats),
    Case("peak context within the budget",
         "the context outgrew the budget: pick a strategy that compacts ('off' never does)",
         within_budget),
    Case(f"sends at most {MAX_SHARE:.0%} of the tokens of 'off'",
         "every call resends the whole history: compact earlier or harder (a smaller budget,"
         " a stronger strategy) to cut what all the calls send together",
         cheap),
)

EXERCISE = Exercise(
    id="ex8", lesson=8, function="choose_settings",
    signature="choose_settings()",
    contract=f'Return {{"strategy": str, "budget": int, "task_state": bool}} with which the '
             f"agent solves the '{SCENARIO}' scenario correctly, repeats no tool call, stays "
             f"within the budget (at most {MAX_BUDGET}) and sends at most {MAX_SHARE:.0%} of "
             "the tokens that strategy='off' sends at the same budget.",
    cases=CASES,
)
