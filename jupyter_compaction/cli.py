"""`jupyter-compaction`: the terminal entry point (lessons, demo, replay, grading, releasing).

Each subcommand is a function `name(args) -> exit code` and a few lines in `parser()`.
The options that are settings (the demo's, replay's `--budget` and `--strategy`) are
generated from `Settings` (`settings.add_arguments`) and default to None, so only what
the user typed overrides the settings; a bad value exits 2 with one line.

Left out: configuration files; every option is on the command line.
"""

from __future__ import annotations

import argparse
import sys

from . import scenarios
from .settings import DEFAULTS, add_arguments, read_given

DEMO_SETTINGS = ("model", "budget", "trigger", "target", "strategy", "task_state", "notes",
                 "summary_role", "summarizer", "max_turns")
REPLAY_SETTINGS = ("budget", "strategy")


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

    try:
        settings = DEFAULTS.with_changes(**read_given(args, DEMO_SETTINGS))
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

    from .replay import DEFAULT_BUDGET, run

    try:
        given = read_given(args, REPLAY_SETTINGS)
        result = run(args.path, given.get("strategy", DEFAULTS.strategy),
                     given.get("budget", DEFAULT_BUDGET))
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
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
    add_arguments(d, DEMO_SETTINGS)
    d.add_argument("--task", default=None, help=argparse.SUPPRESS)
    d.set_defaults(func=demo)
    from .grading.commands import add_commands

    add_commands(sub)  # grade, release
    from .lite import add_command as add_lite

    add_lite(sub)
    from .replay import DEFAULT_BUDGET as REPLAY_BUDGET

    r = sub.add_parser("replay", help="replay a strategy on a recorded agent session, offline")
    r.add_argument("path", help="a Claude Code or Codex .jsonl log, or a .json message list")
    add_arguments(r, REPLAY_SETTINGS, {"budget": str(REPLAY_BUDGET)})
    r.add_argument("--json", action="store_true", help="print every figure as JSON")
    r.set_defaults(func=replay)
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
