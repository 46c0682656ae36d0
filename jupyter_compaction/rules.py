"""The rules that stop a run, in one place: each is named, says why in one line, and
tells the `Failed` event its reason.

- `no_room` (stuck): the system prompt and tools alone are over the budget;
- `compaction_stuck` (stuck): a compaction left the messages over their room, having
  freed less than 10 % (`strategies.check_stuck`);
- `trim_failed` (stuck): trimming, standing in for a failed summary, failed too;
- `strategy_bug` (strategy): the strategy or a compaction hook raised anything but a
  failed summary call; the traceback becomes `run.error`;
- `GoingInCircles` (stuck): after each of the last compactions the agent redid the same
  calls with the same results (`loop_guard.py`).

The first four are read by the compactor (`compactor.py`); the last is a `Feature` that
looks at each round. The model's own failure (`reason="model"`) and an interrupt are
the loop's, since no rule decides them.

Left out: a limit on cost or wall time, and a rule over several runs.
"""

from __future__ import annotations

import traceback
from typing import TYPE_CHECKING

from .hooks import Feature, Stop
from .strategies import Compaction, CompressionStuck, check_stuck

if TYPE_CHECKING:
    from .run import Run


def one_line(exc: BaseException) -> str:
    """`TypeName: first line of the message`."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else 'no details'}"


def no_room(overhead: int, budget: int) -> Stop | None:
    """Nothing a strategy does to the messages can help: the rest is over the budget."""
    if budget - overhead > 0:
        return None
    return Stop(f"compaction is stuck: the system prompt and tools alone take {overhead} "
                f"tokens, over the budget of {budget}; raise the budget")


def compaction_stuck(result: Compaction, room: int) -> Stop | None:
    """`result` is over `room` and freed too little to be worth another try."""
    try:
        check_stuck(result, room)
    except CompressionStuck as exc:
        return Stop(str(exc))
    return None


def trim_failed(exc: BaseException) -> Stop:
    """Trimming could not stand in (e.g. the history is invalid): nothing can go on."""
    return Stop(f"compaction failed: {one_line(exc)}")


def strategy_bug(exc: BaseException) -> Stop:
    """A bug in the strategy or a hook: one line to show, its traceback in `run.error`."""
    return Stop(f"the compaction raised {one_line(exc)}; see run.error for the traceback",
                "strategy", "".join(traceback.format_exception(exc)).rstrip())


class GoingInCircles(Feature):
    """The loop guard as a stop rule: it reads each round (`loop_guard.py`)."""

    def resume(self, run: Run) -> None:
        run.loop_guard.stale.clear()  # a resumed run gets its windows afresh

    def after_round(self, run: Run) -> Stop | None:
        loop = run.loop_guard.check(*run.messages[-2:], len(run.compactions))
        return Stop(loop) if loop else None
