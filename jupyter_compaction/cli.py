"""`jupyter-compaction`: the terminal entry point (lessons, demo, a scenario's files to
edit, replay, grading, releasing, cleaning the session store).

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
from .redact import strip_control
from .scratch import scratch
from .settings import DEFAULTS, add_arguments, exposed, read_given

DEMO_SETTINGS = exposed("demo")
REPLAY_SETTINGS = exposed("replay")


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
        # with --base-url, --model names whatever model that server serves
        given = read_given(args, [n for n in DEMO_SETTINGS if n != "model" or not args.base_url])
        if args.base_url:
            from .models.compatible import compatible_model

            given["model"] = compatible_model(args.model or "", base_url=args.base_url)
        settings = DEFAULTS.with_changes(**given)
    except ValueError as exc:
        print(f"error: {strip_control(str(exc))}", file=sys.stderr)
        return 2
    print(f"scenario {args.scenario}: {scenarios.load(args.scenario).title}")
    print(f"strategy {settings.strategy}, budget {settings.budget}, model {settings.model}, "
          f"task state {'on' if settings.task_state else 'off'}\n")
    table = TurnTable()
    try:
        run = play(args.scenario, settings=settings, task=args.task, on_event=table)
    except (ValueError, RuntimeError) as exc:
        print(f"error: {strip_control(str(exc))}", file=sys.stderr)
        return 2
    print_totals(run)  # its outcome row grades the answer against the task it was given
    return 0 if run.status == "finished" else 1


def workspace(args: argparse.Namespace) -> int:
    """Copy a scenario's files into a folder for the learner to edit and run on."""
    from .runner import copy_workspace

    try:
        folder = copy_workspace(args.scenario, args.dir)
    except OSError as exc:  # a used folder, a file in the way, no permission
        print(f"error: {strip_control(str(exc))}", file=sys.stderr)
        return 2
    print(f"copied the {args.scenario} scenario's files to {folder}; edit them, then run "
          f"%%agent --scenario {args.scenario} --workdir {folder} (or "
          f"runner.start({args.scenario!r}, workdir={str(folder)!r})).")
    return 0


def lab(args: argparse.Namespace) -> int:
    from .launch import lessons_dir, run

    try:
        folder = lessons_dir()
        return run(folder, port=args.port, browser=args.browser,
                   say=lambda line: print(line, flush=True))
    except OSError as exc:  # no learn/ folder, no free port
        print(f"error: {strip_control(str(exc))}", file=sys.stderr)
        return 2


def replay(args: argparse.Namespace) -> int:
    import json

    from .replay import DEFAULT_BUDGET, run

    try:
        given = read_given(args, REPLAY_SETTINGS)
        result = run(args.path, given.get("strategy", DEFAULTS.strategy),
                     given.get("budget", DEFAULT_BUDGET), args.summarizer)
    except (ValueError, RuntimeError) as exc:  # bad input, or a failed summary call
        print(f"error: {' '.join(strip_control(str(exc)).split())}", file=sys.stderr)
        return 2
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    print(json.dumps(result.to_dict(), indent=1) if args.json else result.text())
    return 0


def sessions_clean(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .store import SessionStore

    if not Path(args.dir).is_dir():
        print(f"error: {strip_control(args.dir)} is not a folder; pass the session store's "
              "folder", file=sys.stderr)
        return 2
    found = SessionStore(args.dir).clean(dry_run=args.dry_run)
    verb = "would remove" if args.dry_run else "removed"
    print(f"{verb} {len(found)} incomplete session folders (no meta.json) in "
          f"{strip_control(args.dir)}" + "".join(f"\n  {folder.name}" for folder in found))
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
    d.add_argument("--base-url", help="an Anthropic-compatible server (llama.cpp, vLLM, "
                                      "Ollama), e.g. http://127.0.0.1:8080; --model names "
                                      "the model it serves")
    d.add_argument("--task", default=None, help=argparse.SUPPRESS)
    d.set_defaults(func=demo)
    w = sub.add_parser("workspace", help="copy a scenario's files into a folder to edit, "
                                         "then run on them with %%agent --workdir")
    w.add_argument("scenario", choices=scenarios.names())
    w.add_argument("dir", help="a new or empty folder")
    w.set_defaults(func=workspace)
    from .grading.commands import add_commands

    add_commands(sub)  # grade, release
    from .lite import add_command as add_lite

    add_lite(sub)
    from .replay import DEFAULT_BUDGET as REPLAY_BUDGET
    from .replay import OFFLINE
    from .sessions import formats_help

    r = sub.add_parser("replay", help="replay a strategy on a recorded agent session, offline")
    r.add_argument("path", help=formats_help())
    add_arguments(r, REPLAY_SETTINGS, {"budget": str(REPLAY_BUDGET)})
    r.add_argument("--summarizer", default=OFFLINE,
                   help=f"who writes summaries: '{OFFLINE}' (an extractive stand-in, the "
                        "default) or a Claude model id such as claude-haiku-4-5 (needs "
                        "ANTHROPIC_API_KEY)")
    r.add_argument("--json", action="store_true", help="print every figure as JSON")
    r.set_defaults(func=replay)
    from .store import DEFAULT_ROOT

    s = sub.add_parser("sessions", help="look after the session store").add_subparsers(
        dest="action", required=True)
    c = s.add_parser("clean", help="remove the session folders a killed run left without "
                                   "meta.json, and list them")
    c.add_argument("dir", nargs="?", default=DEFAULT_ROOT, help=f"default {DEFAULT_ROOT}")
    c.add_argument("--dry-run", action="store_true", help="list them, remove nothing")
    c.set_defaults(func=sessions_clean)
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    with scratch():  # what a command puts in the temp folder goes, however it ends
        return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
