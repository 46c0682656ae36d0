"""`jupyter-compaction`: the terminal entry point (lessons, demo, replay, grading, releasing).

Each subcommand is a function `name(args) -> exit code` and a few lines in `parser()`;
the demo's options default to None, so only what the user typed overrides `Settings`.

Left out: configuration files; every option is on the command line.
"""

from __future__ import annotations

import argparse
import sys

from . import scenarios, strategies
from .settings import DEFAULTS, SUMMARY_ROLES

DEMO_KNOBS = ("model", "budget", "trigger", "target", "strategy", "task_state", "summary_role",
              "max_turns")


def _positive(value: str) -> int:
    try:
        number = int(value.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None
    if number <= 0:
        raise argparse.ArgumentTypeError(f"{value} must be positive")
    return number


def demo(args: argparse.Namespace) -> int:
    from .demo import TurnTable, print_totals
    from .runner import play

    knobs = {name: getattr(args, name) for name in DEMO_KNOBS
             if getattr(args, name) is not None}
    try:
        settings = DEFAULTS.with_changes(**knobs)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"scenario {args.scenario}: {scenarios.load(args.scenario).title}")
    print(f"strategy {settings.strategy}, budget {settings.budget}, model {settings.model}, "
          f"task state {'on' if settings.task_state else 'off'}\n")
    table = TurnTable()
    try:
        run = play(args.scenario, settings=settings, task=args.task, on_event=table)
    except (ValueError, RuntimeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print_totals(run)
    spec = scenarios.load(args.scenario)
    if args.task is None and run.answer is not None:
        print(f"{'correct':<19}  {'yes' if spec.is_correct(run.answer) else 'no'}")
    return 0 if run.status == "finished" else 1


def lab(args: argparse.Namespace) -> int:
    import subprocess

    from .launch import lab_command, lessons_dir

    try:
        folder = lessons_dir()
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return subprocess.call(lab_command(folder, port=args.port, browser=args.browser))


def replay(args: argparse.Namespace) -> int:
    import json

    from .replay import run

    try:
        result = run(args.path, args.strategy, args.budget, args.summarizer)
    except (ValueError, RuntimeError) as exc:  # bad input, or a failed summary call
        print(f"error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    print(json.dumps(result.to_dict(), indent=1) if args.json else result.text())
    return 0


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="jupyter-compaction",
                                  description="Learn context compaction for LLM agents.")
    sub = top.add_subparsers(dest="command", required=True)
    lb = sub.add_parser("lab", help="open the lessons in JupyterLab")
    lb.add_argument("--port", type=_positive, default=None)
    lb.add_argument("--browser", action=argparse.BooleanOptionalAction, default=True)
    lb.set_defaults(func=lab)
    d = sub.add_parser("demo", help="play a scenario in the terminal, turn by turn")
    d.add_argument("--scenario", default=scenarios.names()[0], choices=scenarios.names())
    d.add_argument("--budget", type=_positive, help=f"default {DEFAULTS.budget}")
    d.add_argument("--trigger", type=float, help=f"share of the budget that starts a "
                                                 f"compaction; default {DEFAULTS.trigger}")
    d.add_argument("--target", type=float, help=f"share of the budget a compaction aims for; "
                                                f"default {DEFAULTS.target}")
    d.add_argument("--strategy", choices=list(strategies.STRATEGIES),
                   help=f"default {DEFAULTS.strategy}")
    d.add_argument("--model", help=f"'simulated' (offline) or a Claude model id (needs "
                                   f"ANTHROPIC_API_KEY); default {DEFAULTS.model}")
    d.add_argument("--task-state", action=argparse.BooleanOptionalAction)
    d.add_argument("--summary-role", choices=SUMMARY_ROLES)
    d.add_argument("--max-turns", type=_positive, help=f"default {DEFAULTS.max_turns}")
    d.add_argument("--task", default=None, help=argparse.SUPPRESS)
    d.set_defaults(func=demo)
    from .grading.commands import add_commands

    add_commands(sub)  # grade, release
    from .replay import DEFAULT_BUDGET as REPLAY_BUDGET
    from .replay import OFFLINE
    from .sessions import formats_help

    r = sub.add_parser("replay", help="replay a strategy on a recorded agent session, offline")
    r.add_argument("path", help=formats_help())
    r.add_argument("--budget", type=_positive, help=f"default {REPLAY_BUDGET}")
    r.add_argument("--strategy", choices=list(strategies.STRATEGIES),
                   help=f"default {DEFAULTS.strategy}")
    r.add_argument("--summarizer", default=OFFLINE,
                   help=f"who writes summaries: '{OFFLINE}' (an extractive stand-in, the "
                        "default) or a Claude model id such as claude-haiku-4-5 (needs "
                        "ANTHROPIC_API_KEY)")
    r.add_argument("--json", action="store_true", help="print every figure as JSON")
    r.set_defaults(func=replay)
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
