"""`%replay PATH [--budget N] [--strategy S] [--summarizer M] [--json]`: a recorded session,
replayed live.

The magic loads a session log (`sessions.load`), replays a strategy on it
(`replay.replay`, no model calls unless `--summarizer` names a Claude model) and shows the
live token chart of that replay: the strategy's context per call, its compactions marked,
and a line of the input tokens the API reported in the original session. Below the chart
it prints the report's head (`Replay.head_lines`: the outcome line, who wrote the
summaries, each compaction); in plain-text mode the whole report with its per-call table;
`--json` prints the figures. The replay is stored in `_replay`. A warning about the file
is printed the first time that file is replayed in the session, not again. Bad input is
one `UsageError` line.

Left out: a summarizer other than the offline stand-in or a Claude model.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring

from ..replay import DEFAULT_BUDGET, OFFLINE, Replay, run
from ..sessions import formats_help
from ..settings import DEFAULTS, exposed
from .chart import TokenChart
from .frontend import WidgetView, widgets_enabled
from .magics import given_settings, setting_arguments
from .validate import one_line

MAGIC = "replay"
REPLAY_VAR = "_replay"
REPLAY_SETTINGS = exposed("replay")  # declared by Settings; replay has its own budget


class ReplayChart(TokenChart):
    """The live chart of a replay; its reported line is the original session's (the
    replay's `ModelReplied` events carry the input tokens the session's log holds)."""

    reported_label = "reported by the API (original session)"

    def __init__(self, result: Replay):
        super().__init__(title=f"Replay of {result.strategy} at {result.budget} tokens")
        self.feed(result.events())


@magics_class
class ReplayMagics(Magics):
    """`%replay`; remembers which warnings it has shown, so each is shown once."""

    def __init__(self, shell: Any = None):
        super().__init__(shell)
        self.warned: set[tuple[str, str]] = set()

    @magic_arguments()
    @argument("path", help=formats_help())
    @setting_arguments(REPLAY_SETTINGS, {"budget": str(DEFAULT_BUDGET)})
    @argument("--summarizer", default=OFFLINE, metavar="MODEL",
              help=f"who writes summaries: '{OFFLINE}' (an extractive stand-in, the default) "
                   "or a Claude model id such as claude-haiku-4-5 (needs ANTHROPIC_API_KEY)")
    @argument("--json", action="store_true", help="print every figure as JSON")
    @line_magic
    def replay(self, line: str) -> None:
        """Replay a compaction strategy on a recorded agent session."""
        try:
            args = parse_argstring(self.replay, line)
        except (UsageError, ValueError) as err:
            raise UsageError(f"{one_line(str(err))}; see %replay? for the options") from None
        given = given_settings(args, REPLAY_SETTINGS)
        try:
            result = run(args.path.strip("'\""), given.get("strategy", DEFAULTS.strategy),
                         given.get("budget", DEFAULT_BUDGET), args.summarizer)
        except (ValueError, RuntimeError) as err:
            raise UsageError(one_line(str(err))) from None
        self.shell.user_ns[REPLAY_VAR] = result
        self._warn(result)
        if args.json:
            print(json.dumps(result.to_dict(), indent=1))
        elif widgets_enabled(self.shell):
            from IPython.display import display

            display(WidgetView(ReplayChart(result).figure, "[the replay chart of this session]"))
            print("\n".join(result.head_lines()))
        else:
            print(result.text())

    def _warn(self, result: Replay) -> None:
        """Print the warnings not shown before for this file; count the others."""
        new = [w for w in result.warnings if (result.source, w) not in self.warned]
        self.warned |= {(result.source, w) for w in new}
        for warning in new:
            print(f"warning: {warning}", file=sys.stderr)
        if len(new) < len(result.warnings):
            print(f"({len(result.warnings) - len(new)} warnings about this file shown before; "
                  f"all are in {REPLAY_VAR}.warnings)", file=sys.stderr)


def register(ipython: Any) -> None:
    ipython.register_magics(ReplayMagics(ipython))
