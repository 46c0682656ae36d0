"""The IPython magics: `%%agent`, `%context`, `%summary`, `%compact`, `%compaction_budget`,
`%compaction_lab`.

`%%agent` plays a scenario with the cell as the task (`%agent --scenario NAME`, the
line form, plays the scenario's own task: IPython refuses a cell magic whose body is
empty, and its message then points to the line form), shows the run as it happens (the
live chart in a widget frontend, text rows elsewhere; see `frontend.py`), stores the
`Run` as `_agent_run` (and `--out NAME`) and shows the answer and headline numbers;
`%%agent --ask` asks the cell as a follow-up question in that run's conversation
(`ScenarioRun.ask`), and `%agent --resume` continues a run that failed.
`%context` and `%summary` inspect a stored run; `%compact [focus words]` compacts the
last run's context now (`Agent.compact`) and says what it did; `%compaction_budget` sets
`CONTEXT_BUDGET`, which `%%agent` reads when `--budget` is not given; `%compaction_lab`
opens the lab. Options are declared with IPython's `magic_arguments`, so `%%agent?`
shows them; those that are settings (`--budget`, `--strategy`, ...) are generated from
`Settings` (`setting_arguments()`), which also checks their values. `--strategy` also
takes the name of a function of the notebook, `(messages, goal, counter) -> messages`
(`validate.strategy_function`): the run is the learner's own strategy, and when that
function raises, the cell shows the function's traceback under the result (the run's
transcript is kept). A text value with
spaces is typed in quotes, `--standing-instructions 'Answer in one line.'` (the line is
split by `validate.words`). Every bad input
raises `UsageError` (shown by IPython as one line, no traceback) that names the option;
a model that fails mid-run ends the run, not the cell, and only its one-line error is
shown.

Left out: async/background runs (a cell blocks until its run ends) and choosing a
different model for the auxiliary summarizer (see `summarizers.py`).
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments

from .. import runner
from ..events import Compacted, Failed
from ..runner import ScenarioRun
from ..settings import DEFAULTS, MAX_BUDGET, exposed, read_given
from ..settings import argument as setting_argument
from ..strategies import FunctionStrategy
from ..strategies.function import failed_function
from ..trigger_rule import TriggerRule
from . import context_view, result_view, summary_view
from . import validate as check
from .frontend import widgets_enabled
from .live import LiveView
from .render import plain, show

RUN_VAR = "_agent_run"
LAB_VAR = "_lab"
EMPTY_TASK = "write a task in the cell or pass --scenario NAME"
NO_RUN = "no run to compact yet; run %%agent (or %agent --scenario NAME) first"
NO_QUESTION = ("write the follow-up question in the cell below %%agent --ask; it is asked "
               "in the last run's conversation")
SUMMARY_LINES = 6  # %compact shows this many lines of the new summary
AGENT_SETTINGS = exposed("agent")  # %%agent's, in the order Settings declares them
BUDGET_DEFAULT = f"{check.BUDGET_VAR}, else {DEFAULTS.budget}"


def setting_arguments(names: tuple[str, ...], defaults: dict[str, str] | None = None
                      ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """IPython `argument`s for the settings `names`, in that order, each generated from
    its `Settings` field (flag, help, choices, default); `defaults` rewords a default."""
    def decorate(magic: Callable[..., Any]) -> Callable[..., Any]:
        for name in reversed(names):  # applied bottom-up, so the first one is shown first
            flags, keywords = setting_argument(name, (defaults or {}).get(name))
            magic = argument(*flags, **keywords)(magic)
        return magic
    return decorate


def given_settings(args: argparse.Namespace, names: tuple[str, ...]) -> dict[str, Any]:
    """The settings typed in `args`, checked by `Settings`; a bad one is a `UsageError`
    that names its option."""
    try:
        return read_given(args, names)
    except ValueError as err:
        raise UsageError(check.one_line(str(err))) from None


@magics_class
class CompactionMagics(Magics):
    """The jupyter-compaction magics; the last `%%agent` session is kept for `--resume`."""

    def __init__(self, shell: Any = None):
        super().__init__(shell)
        self.session: ScenarioRun | None = None

    # --- helpers ----------------------------------------------------------------------
    @property
    def ns(self) -> dict[str, Any]:
        return self.shell.user_ns

    def _parse(self, magic: Callable[..., Any], line: str) -> argparse.Namespace:
        """Parse `line` (split by `validate.words`: a quoted value loses its quotes);
        argparse's complaints become one-line UsageErrors."""
        try:
            return magic.parser.parse_args(check.words(line))
        except UsageError as err:
            name = magic.__name__
            raise UsageError(f"{check.one_line(str(err))}; see %{name}? for the options"
                             ) from None
        except ValueError as err:  # e.g. an unclosed quote
            raise UsageError(f"cannot read the options: {check.one_line(str(err))}") from None

    def _run_named(self, name: str) -> Any:
        check.variable_name(name, "the run name")
        if name not in self.ns:
            raise UsageError(f"no run named {name}; run %%agent first (it stores the run in "
                             f"{RUN_VAR}) or pass the name used with --out")
        run = self.ns[name]
        if not all(hasattr(run, attr) for attr in ("messages", "transcript", "events")):
            raise UsageError(f"{name} is not an agent run; pass the name of a run stored by "
                             "%%agent")
        return run

    def _rich(self) -> bool:
        return widgets_enabled(self.shell)

    # --- %%agent ----------------------------------------------------------------------
    @magic_arguments()
    @argument("--scenario", metavar="NAME",
              help="bundled scenario to play (tools and files); default: the first one")
    @setting_arguments(AGENT_SETTINGS, {"budget": BUDGET_DEFAULT})
    @argument("--workdir", metavar="DIR",
              help="run on this folder as it is (a copy made with `jupyter-compaction "
                   "workspace NAME DIR` and edited), graded against its files; an empty "
                   "or new folder gets a fresh copy")
    @argument("--quiet", action="store_true", help="show only the result, not every turn")
    @argument("--out", metavar="NAME", help="also store the run in this variable")
    @argument("--resume", action="store_true",
              help="continue the last run (_agent_run) after it failed; other knobs are "
                   "those of that run, only --max-turns, --quiet and --out apply")
    @argument("--ask", action="store_true",
              help="ask the cell as a follow-up question in the last run's conversation "
                   "(_agent_run, answered), graded like a task; other knobs are those of "
                   "that run, only --max-turns, --quiet and --out apply")
    @line_cell_magic
    def agent(self, line: str, cell: str | None = None) -> None:
        """Run an agent on the task written in the cell, under a context budget.

        `%agent --scenario NAME` (one line, or a cell with nothing below the magic) plays
        the scenario's own task. The run is stored as _agent_run. `%%agent --ask` asks
        the cell as a follow-up in that run's conversation.
        """
        args = self._parse(self.agent, line)
        out = check.variable_name(args.out) if args.out else None
        if args.resume and args.ask:
            raise UsageError("use --resume or --ask, not both: --resume continues a failed "
                             "run, --ask asks a follow-up after an answer")
        if args.resume or args.ask:
            max_turns = given_settings(args, ("max_turns",)).get("max_turns")
            if args.ask:
                return self._ask((cell or "").strip(), out, max_turns, args.quiet)
            return self._resume(out, max_turns, args.quiet)
        knobs = self._knobs(args)  # a bad option is named before anything else
        scenario = check.scenario(args.scenario)
        task = (cell or "").strip()
        if not task and args.scenario is None:
            raise UsageError(EMPTY_TASK)
        try:
            session = runner.start(scenario, task=task or None, workdir=args.workdir, **knobs)
        except (ValueError, OSError) as err:  # a strategy the agent refuses, a bad folder
            raise UsageError(check.one_line(str(err))) from None
        rich = self._rich()
        live = LiveView(rich=rich, quiet=args.quiet)
        session.agent.on_event = live
        session.play()
        self._finish(session, out, rich, live)

    def _knobs(self, args: argparse.Namespace) -> dict[str, Any]:
        """The settings the user set in `args` (and CONTEXT_BUDGET), checked together as
        `Settings` checks them; the rest stay default."""
        knobs = self._settings(args, AGENT_SETTINGS)
        if "budget" not in knobs and check.BUDGET_VAR in self.ns:
            knobs["budget"] = check.namespace_budget(self.ns)
        check.api_key(knobs.get("model"))
        try:
            DEFAULTS.with_changes(**knobs)  # e.g. a target over the trigger
        except ValueError as err:
            raise UsageError(check.one_line(str(err))) from None
        return knobs

    def _settings(self, args: argparse.Namespace, names: tuple[str, ...]) -> dict[str, Any]:
        """`given_settings`, with a `--strategy` that names a function of the notebook
        wrapped into a strategy (a built-in strategy's name comes first), and a
        `--trigger-rule` that names one wrapped into a trigger rule."""
        functions = {
            "strategy": check.strategy_function(getattr(args, "strategy", None), self.ns),
            "trigger_rule": check.trigger_function(getattr(args, "trigger_rule", None),
                                                   self.ns)}
        found = {name: f for name, f in functions.items() if f is not None and name in names}
        typed = argparse.Namespace(**{**vars(args), **dict.fromkeys(found)})
        return {**given_settings(typed, names), **found}

    def _last_session(self, doing: str) -> ScenarioRun:
        """The session of the last %%agent run, which `doing` ("resume", "follow up on")
        goes on with; a `UsageError` when there is none or `_agent_run` is another run."""
        run = self.ns.get(RUN_VAR)
        if run is None:
            raise UsageError(f"nothing to {doing}: there is no {RUN_VAR}; start a run with "
                             "%%agent")
        if self.session is None or self.session.run is not run:
            raise UsageError(f"{RUN_VAR} was not started by %%agent in this session, so "
                             f"%%agent cannot {doing} it; start a new run with %%agent")
        return self.session

    def _ask(self, question: str, out: str | None, max_turns: int | None,
             quiet: bool) -> None:
        if not question:
            raise UsageError(NO_QUESTION)
        session = self._last_session("follow up on")
        if session.run.status not in ("finished", "unsupported"):
            hint = " (%agent --resume continues it)" if session.run.status == "failed" else ""
            raise UsageError(f"nothing to follow up on: the last run ended with status "
                             f"{session.run.status!r}, not an answer{hint}; start a new one "
                             "with %%agent")
        rich = self._rich()
        live = LiveView(rich=rich, quiet=quiet)
        session.agent.on_event = live
        try:
            session.ask(question, max_turns)
        except ValueError as err:  # checked before the run changes: it stays as it was
            raise UsageError(check.one_line(str(err))) from None
        self._finish(session, out, rich, live)

    def _resume(self, out: str | None, max_turns: int | None, quiet: bool) -> None:
        self._last_session("resume")
        run = self.ns[RUN_VAR]
        if run.status != "failed":
            raise UsageError(f"nothing to resume: the last run ended with status "
                             f"{run.status!r}; start a new one with %%agent")
        rich = self._rich()
        error = check.one_line(plain(run.error_line or "", None))
        print(f"Resuming {RUN_VAR} at turn {run.turn} after: {error}")
        live = LiveView(rich=rich, quiet=quiet)
        self.session.agent.on_event = live
        self.session.resume(max_turns)
        self._finish(self.session, out, rich, live)

    def _finish(self, session: ScenarioRun, out: str | None, rich: bool, live: LiveView) -> None:
        live.flush()  # the events since the last draw
        if self.session is not None and self.session is not session:
            self.session.close()  # its run stays in the namespace; its workspace goes
        self.session = session
        self.ns[RUN_VAR] = session.run
        if out:
            self.ns[out] = session.run
        show(result_view.view(session.run, RUN_VAR, also=out), rich=rich)
        shown = function_traceback(session.run, session.agent.strategy,
                                   session.agent.compactor.rule)
        if shown:
            print(shown)

    # --- inspecting a run -------------------------------------------------------------
    @magic_arguments()
    @argument("--full", action="store_true", help="show each message's text (truncated)")
    @argument("name", nargs="?", default=RUN_VAR, help="the run to show (default: _agent_run)")
    @line_magic
    def context(self, line: str) -> None:
        """Show the live messages of a run: index, role, block kinds, tokens, markers."""
        args = self._parse(self.context, line)
        run = self._run_named(args.name)
        show(context_view.view(run, args.name, full=args.full), rich=self._rich())

    @magic_arguments()
    @argument("name", nargs="?", default=RUN_VAR, help="the run to show (default: _agent_run)")
    @line_magic
    def summary(self, line: str) -> None:
        """Show a run's last summary prompt and summary, token counts and dropped facts."""
        args = self._parse(self.summary, line)
        run = self._run_named(args.name)
        show(summary_view.view(run, args.name), rich=self._rich())

    # --- compacting now ---------------------------------------------------------------
    @magic_arguments()
    @setting_arguments(("strategy",), {"strategy": "the run's"})
    @argument("focus", nargs="*",
              help="what the summary should keep in most detail, e.g. the open invoices")
    @line_magic
    def compact(self, line: str) -> None:
        """Compact the last %%agent run's context now, even under the trigger, towards the
        target; the words after the options are the focus of the summary."""
        args = self._parse(self.compact, line)
        session = self.session
        if session is None or session.run is None:
            raise UsageError(NO_RUN)
        strategy = self._settings(args, ("strategy",)).get("strategy")
        run, focus = session.run, " ".join(args.focus)
        seen = len(run.events)
        result = session.agent.compact(run, strategy, focus or None)
        announced = [e for e in run.events[seen:] if isinstance(e, Compacted)]
        print(plain(compact_report(run, result, announced[-1] if announced else None, focus),
                    None))
        shown = function_traceback(run, strategy or session.agent.strategy)
        if shown and result is None:  # the function stopped the run just now
            print(shown)

    # --- settings and the lab ---------------------------------------------------------
    @magic_arguments()
    @argument("tokens", nargs="?", help="the new budget, e.g. 20000 (none: show it)")
    @line_magic
    def compaction_budget(self, line: str) -> None:
        """Set CONTEXT_BUDGET, the budget %%agent uses when --budget is not given."""
        args = self._parse(self.compaction_budget, line)
        if args.tokens is None:
            budget = check.namespace_budget(self.ns)
            source = "" if check.BUDGET_VAR in self.ns else " (the default)"
        else:
            budget = check.whole_number(args.tokens)
            if budget is None:
                raise UsageError("the budget must be a positive whole number of tokens, at most "
                                 f"{MAX_BUDGET:_} tokens, e.g. %compaction_budget 20000; "
                                 f"got {check.shown(args.tokens)}")
            self.ns[check.BUDGET_VAR] = budget
            source = ""
        settings = DEFAULTS.with_changes(budget=budget)
        print(f"{check.BUDGET_VAR} = {budget} tokens{source}; compaction triggers at "
              f"{settings.trigger_at} tokens ({settings.trigger:.0%}) and aims for "
              f"{settings.target_at} ({settings.target:.0%})")

    @line_magic
    def compaction_lab(self, line: str = "") -> None:
        """Open the lab: budget, strategy and scenario controls, chart, inspectors, compare."""
        if line.strip():
            raise UsageError("%compaction_lab takes no options; use the controls in the lab")
        if not self._rich():
            print("The lab is an ipywidgets app: open this notebook in JupyterLab (or unset "
                  "JUPYTER_COMPACTION_TEXT) to use it. In code: "
                  "from jupyter_compaction.jupyter.lab import Lab; Lab().run()")
            return
        from IPython.display import display

        from .lab import Lab

        lab = Lab(budget=check.namespace_budget(self.ns))
        self.ns[LAB_VAR] = lab
        display(lab)



def function_traceback(run: Any, *functions: Any) -> str | None:
    """The traceback of the notebook's own function (a strategy, `FunctionStrategy`, or a
    trigger rule, `TriggerRule`) among `functions`, when it ended `run` (its own frames
    only); None otherwise. A stub that is not written yet (it raised
    `NotImplementedError`) gets one line naming it instead of a traceback."""
    failed = run.of(Failed)
    named = failed_function(run.error_line)
    ours = [f.name for f in functions if isinstance(f, FunctionStrategy | TriggerRule)]
    if not (named in ours and run.status == "failed" and failed
            and failed[-1].reason == "strategy" and run.error):
        return None
    last = run.error.rstrip().splitlines()[-1]
    if last.startswith("NotImplementedError"):  # an exercise's stub, reached from the wrapper
        frames = re.findall(r", in (\w+)\n", run.error)
        stub = frames[-1] if frames else named
        return (f"{stub}() is not written yet ({last}): write it, run its cell, then run "
                f"this one again (the traceback is in {RUN_VAR}.error)")
    return (f"{named}() stopped the run; its traceback (the transcript is kept in "
            f"{RUN_VAR}.transcript):\n{run.error}")


def compact_report(run: Any, result: Any, event: Compacted | None, focus: str) -> str:
    """What `%compact` did: tokens before -> after, the focus, the summary's first lines."""
    if result is None:
        failed = run.of(Failed)
        what = "is stuck" if failed and failed[-1].reason == "stuck" else "failed"
        return f"Compaction {what}, so the run ended: {check.one_line(run.error_line or '')}"
    if event is None:
        return (f"Nothing to compact with {result.kind}: "
                f"{result.note or 'the strategy changed nothing'}")
    lines = [f"Compacted {RUN_VAR} at turn {event.turn} with {event.strategy}: messages "
             f"{event.tokens_before} -> {event.tokens_after} tokens "
             f"({event.dropped} messages folded or dropped, {event.cleared} results cleared)"]
    if event.note:
        lines.append(f"note: {event.note}")
    if focus:
        steered = "" if event.summary else " (no summary was written, so it steered nothing)"
        lines.append(f"focus: {focus}{steered}")
    if event.summary:
        head = event.summary.splitlines()
        lines.append(f"summary ({len(head)} lines), first lines:")
        lines += [f"  {text}" for text in head[:SUMMARY_LINES]]
    return "\n".join(lines)
