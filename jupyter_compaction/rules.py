"""The rules that stop a run, in one place: each is named, says why in one line, and
tells the `Failed` event its reason.

- `no_room` (stuck): the system prompt and tools alone are over the budget;
- `compaction_stuck` (stuck): a compaction left the messages over their room, having
  freed less than 10 % (`strategies.check_stuck`);
- `trim_failed` (stuck): trimming, standing in for a failed summary, failed too;
- `strategy_bug` (strategy): the strategy or a compaction hook raised anything but a
  failed summary call; the traceback becomes `run.error` (for a function wrapped by
  `FunctionStrategy`, only the function's own frames, and the line names it);
- `GoingInCircles` (stuck): after each of the last compactions (its own or the API's)
  the agent redid the same calls with the same results, or thrashed (`loop_guard.py`);
- `Breaker` (stuck), the circuit breaker Claude Code has (`loop_guard.CompactionBreaker`
  counts): `FAILED_IN_A_ROW`
  compaction attempts in a row failed (the summary call failed, the API answered a
  `compaction` block with null content, or the compaction changed nothing), or the
  context was back over the trigger right after each of `REFILLED_IN_A_ROW` compactions
  in a row that cost a model call (ours: a summary call, and its result, restored files
  included, is over the trigger; the API's: it compacted again on the very next
  request): compacting again would cost a call and free nothing that lasts. A
  compaction that costs no call (clear, trim) never counts for the second.

The first four are read by the compactor (`compactor.py`); the loop guard is a `Feature`
that looks at each round; the breaker hears the compactor's attempts at the trigger and
the API's own compactions (`Breaker`, a `Feature`). The model's own failure
(`reason="model"`) and an interrupt are the loop's, since no rule decides them.

Left out: a limit on cost or wall time, and a rule over several runs.
"""

from __future__ import annotations

import traceback
from typing import TYPE_CHECKING, Any

from .history import COMPACTION
from .hooks import Feature, Stop
from .loop_guard import CompactionBreaker
from .models.base import Reply
from .strategies import Compaction, CompressionStuck, check_stuck
from .strategies.function import FunctionFailed

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


def compaction_stuck(result: Compaction, room: int, budget: int) -> Stop | None:
    """`result` is over `room` (the `budget` less the system prompt and tools) and freed
    too little to be worth another try."""
    try:
        check_stuck(result, room)
    except CompressionStuck as exc:
        return Stop(f"compaction '{exc.kind}' is stuck: {exc.before} -> {exc.after} tokens,"
                    f" still over the {room} tokens left for messages (the budget of {budget}"
                    f" less {budget - room} for the system prompt and tools); raise the budget"
                    " or pick a stronger strategy")
    return None


def trim_failed(exc: BaseException) -> Stop:
    """Trimming could not stand in (e.g. the history is invalid): nothing can go on."""
    return Stop(f"compaction failed: {one_line(exc)}")


def strategy_bug(exc: BaseException) -> Stop:
    """A bug in the strategy or a hook: one line to show, its traceback in `run.error`
    (a wrapped function's own frames, when the bug is in one)."""
    if isinstance(exc, FunctionFailed):
        return Stop(f"{exc}; see run.error for its traceback", "strategy", exc.details.rstrip())
    return Stop(f"the compaction raised {one_line(exc)}; see run.error for the traceback",
                "strategy", "".join(traceback.format_exception(exc)).rstrip())


class GoingInCircles(Feature):
    """The loop guard as a stop rule: it reads each round (`loop_guard.py`)."""

    def resume(self, run: Run) -> None:
        run.loop_guard.afresh()  # a resumed run gets its windows afresh

    def after_round(self, run: Run) -> Stop | None:
        compactions = len(run.compactions) + run.breaker.api_compactions  # ours and the API's
        loop = run.loop_guard.check(*run.messages[-2:], compactions)
        return Stop(loop) if loop else None


class Breaker(Feature):
    """The circuit breaker as a stop rule: it counts the API's own compactions (a reply
    carrying a `compaction` block; null content is a failure) and stops the run before
    its next request once `CompactionBreaker` trips (the compactor counts its own)."""

    def resume(self, run: Run) -> None:
        run.breaker = CompactionBreaker()  # a resumed run starts with a closed breaker

    def after_reply(self, run: Run, reply: Reply, sent: int) -> bool:
        for block in reply.content:
            if block.get("type") == COMPACTION:
                run.breaker.api_compacted(run.turn, block.get("content") is None)
        return False

    def before_request(self, run: Run, schemas: list[dict[str, Any]], overhead: int
                       ) -> Stop | None:
        return breaker_stop(run.breaker.tripped)


def breaker_stop(reason: str | None) -> Stop | None:
    """The circuit breaker's stop, once it tripped (the compactor asks it too)."""
    return Stop(reason) if reason else None
