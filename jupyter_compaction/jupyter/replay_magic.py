"""`%replay PATH [--budget N] [--strategy S] [--json]`: a recorded session, replayed live.

The magic loads a session log (`sessions.load`), replays a strategy on it
(`replay.replay`, no model calls) and shows the live token chart of that replay: the
strategy's context per call, its compactions marked, and a line of the input tokens the
API reported in the original session. In plain-text mode it prints the replay's text
report; `--json` prints the figures. The replay is stored in `_replay`. Bad input is one
`UsageError` line.

Left out: a summarizer other than the offline one (use `replay.replay()` for that).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring

from ..replay import DEFAULT_BUDGET, Replay, run
from ..settings import DEFAULTS
from ..strategies import STRATEGIES
from .chart import TokenChart
from .frontend import WidgetView, widgets_enabled
from .validate import one_line

MAGIC = "replay"
REPLAY_VAR = "_replay"


class ReplayChart(TokenChart):
    """The live chart of a replay; its reported line is the original session's (the
    replay's `ModelReplied` events carry the input tokens the session's log holds)."""

    reported_label = "reported by the API (original session)"

    def __init__(self, result: Replay):
        super().__init__(title=f"Replay of {result.strategy} at {result.budget} tokens")
        self.feed(result.events())


@magic_arguments()
@argument("path", help="a Claude Code or Codex .jsonl log, or a .json message list")
@argument("--budget", default=str(DEFAULT_BUDGET), metavar="N",
          help=f"context budget in tokens (default {DEFAULT_BUDGET})")
@argument("--strategy", default=DEFAULTS.strategy, metavar="NAME",
          help=f"compaction strategy: {', '.join(STRATEGIES)} (default: {DEFAULTS.strategy})")
@argument("--json", action="store_true", help="print every figure as JSON")
def replay(line: str) -> Replay:
    """Replay a compaction strategy on a recorded agent session, with no model calls."""
    try:
        args = parse_argstring(replay, line)
    except (UsageError, ValueError) as err:
        raise UsageError(f"{one_line(str(err))}; see %replay? for the options") from None
    try:
        budget = int(str(args.budget).replace("_", ""))
    except ValueError:
        budget = 0
    if budget <= 0:
        raise UsageError(f"the budget must be a positive whole number of tokens, not "
                         f"{args.budget!r}")
    if args.strategy not in STRATEGIES:
        raise UsageError(f"unknown strategy {args.strategy!r}; choose one of: "
                         f"{', '.join(STRATEGIES)}")
    try:
        result = run(args.path.strip("'\""), args.strategy, budget)
    except ValueError as err:
        raise UsageError(one_line(str(err))) from None
    from IPython import get_ipython

    shell = get_ipython()
    if shell is not None:
        shell.user_ns[REPLAY_VAR] = result
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if args.json:
        print(json.dumps(result.to_dict(), indent=1))
    elif widgets_enabled(shell):
        from IPython.display import display

        display(WidgetView(ReplayChart(result).figure, "[the replay chart of this session]"))
        print(result.text().split("\n call")[0])
    else:
        print(result.text())
    return None


def register(ipython: Any) -> None:
    ipython.register_magic_function(replay, "line", MAGIC)
