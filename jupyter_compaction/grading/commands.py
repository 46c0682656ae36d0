"""The `grade` and `release` subcommands of `jupyter-compaction` (registered by `cli.py`).

`grade` takes notebooks, or one folder holding a folder of notebooks per learner (then it
writes a gradebook and feedback files to `--out`); `grade --verify OUT` checks a written
gradebook. Exit codes: 0 when grading or releasing completed (scores are data, so a
notebook with failures still exits 0) or the gradebook verified; 1 when `--verify` finds
the gradebook changed; 2 for a usage error, reported on one line: a missing notebook or
folder, a file that is not a notebook, unbalanced solution markers, a release into the
source folder, an unreadable seeds file, or a weak sandbox (no syscall filter, or no
bubblewrap and a worker that would keep privileges) without `--allow-weak-sandbox`.
nbformat and nbclient are imported only when a command runs.

Left out: uploading grades anywhere; `--json` prints them for whatever comes next.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .seeds import SEEDS_FILE, Seeds, SeedsError, load

USAGE_ERROR = 2
TAMPERED = 1  # --verify: the gradebook is not the one the grader wrote


def _positive(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None
    if number <= 0:
        raise argparse.ArgumentTypeError(f"{value} must be positive")
    return number


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return USAGE_ERROR


def _unreadable(path: Path) -> str | None:
    """Why `path` cannot be graded, or None."""
    from .submissions import Unreadable, code_cells_of, shown

    if not path.is_file():
        return f"no such notebook: {shown(str(path))}"
    try:
        code_cells_of(path)
    except Unreadable as exc:
        return f"not a notebook: {shown(str(path))} ({exc})"
    return None


def run_verify(folder: str) -> int:
    from .grader import verify

    if not (Path(folder) / "gradebook.json").is_file():
        return _fail(f"no gradebook in {folder}: expected {folder}/gradebook.json and "
                     "gradebook.csv, as grade DIR --out FOLDER writes them")
    problem = verify(folder)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return TAMPERED
    print(f"{folder}/gradebook.csv matches gradebook.json and its digest")
    return 0


def _seeds(args: argparse.Namespace) -> Seeds | None:
    """`--seed`, else the release's per-exercise seeds, else None (a new seed: the grade
    then changes from run to run, which `run_grade` warns about)."""
    if args.seed is not None:
        return args.seed
    path = Path(args.release) / SEEDS_FILE
    return load(path) if path.exists() else None


def run_grade(args: argparse.Namespace) -> int:
    from .grader import grade, grade_folder
    from .sandbox import WeakSandbox, require

    if args.verify:
        return _fail("--verify takes only the gradebook folder") if args.notebooks else (
            run_verify(args.verify))
    if not args.notebooks:
        return _fail("give notebooks, a folder of learners' folders, or --verify FOLDER")
    paths = [Path(p) for p in args.notebooks]
    try:
        seed = _seeds(args)
    except SeedsError as exc:
        return _fail(str(exc))
    try:
        require(args.allow_weak_sandbox)
    except WeakSandbox as exc:
        return _fail(str(exc))
    if len(paths) == 1 and paths[0].is_dir():
        graded = grade_folder(paths[0], args.out, jobs=args.jobs, seed=seed,
                              allow_weak=args.allow_weak_sandbox)
        if not graded:
            return _fail(f"no learner folders with notebooks in {paths[0]}; expected "
                         f"{paths[0]}/<learner>/<notebook>.ipynb")
        grades = [g for gs in graded.values() for g in gs]
        print(f"graded {len(graded)} learners; wrote {args.out}/gradebook.csv, "
              f"gradebook.json and feedback/")
    else:
        for path in paths:
            problem = _unreadable(path)
            if problem:
                return _fail(problem)
        grades = grade(paths, jobs=args.jobs, seed=seed, allow_weak=args.allow_weak_sandbox)
    if seed is None:
        print(f"warning: no {Path(args.release) / SEEDS_FILE}: the hidden cases came from a "
              "new seed this run; run jupyter-compaction release, or pass --seed, so that "
              "re-grading gives the same grades", file=sys.stderr)
    _report(grades, args.json)
    return 0


def _report(grades: list, as_json: bool) -> None:
    """Print the grades: as JSON with the isolation used, or as the table and a line."""
    from .grader import table
    from .sandbox import isolation

    if as_json:
        print(json.dumps({"notebooks": [g.to_json() for g in grades],
                          "isolation": isolation()}, indent=2))
        return
    print(table(grades))
    used = isolation()
    print(f"isolation: {used['kind']}" + (f" ({used['reason']})" if used["reason"] else "")
          + f"; syscall filter: {used['syscall_filter']}")


def run_release(args: argparse.Namespace) -> int:
    from .notebooks import ReleaseError, release

    try:
        written = release(args.source, args.target)
    except ReleaseError as exc:
        return _fail(str(exc))
    notebooks = sum(p.suffix == ".ipynb" for p in written)
    print(f"released {notebooks} notebooks and {len(written) - notebooks} other files "
          f"to {args.target}")
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Add `grade` and `release` to the `jupyter-compaction` subcommands."""
    from .grader import default_jobs
    from .notebooks import LEARNER_COPIES, SOURCES

    g = sub.add_parser("grade", help="score every exercise in notebooks, or in a folder with"
                       " one folder of notebooks per learner (writes a gradebook)")
    g.add_argument("notebooks", nargs="*", metavar="NOTEBOOK_OR_FOLDER")
    g.add_argument("--verify", metavar="FOLDER", default=None,
                   help="check that FOLDER/gradebook.csv is the one the grader wrote (its "
                        "digest and rows against gradebook.json); exit 1 if not")
    g.add_argument("--json", action="store_true", help="print the scores as JSON")
    g.add_argument("--jobs", type=_positive, default=default_jobs(),
                   help="grading processes at once (default: %(default)s)")
    g.add_argument("--out", default="grades", metavar="FOLDER",
                   help="where a folder's gradebook and feedback go (default: %(default)s)")
    g.add_argument("--seed", type=int, default=None,
                   help="one seed for every exercise's hidden cases (default: the "
                        "per-exercise seeds release fixed in RELEASE)")
    g.add_argument("--allow-weak-sandbox", action="store_true",
                   help="grade even where the worker's syscall filter is off, or no "
                        "bubblewrap runs and the worker would keep its user's privileges "
                        "(recorded in gradebook.json)")
    g.add_argument("--release", default=SOURCES, metavar="RELEASE",
                   help=f"the folder released from, holding {SEEDS_FILE} "
                        "(default: %(default)s)")
    g.set_defaults(func=run_grade)

    r = sub.add_parser("release", help="write learner copies: solutions stubbed, outputs cleared")
    r.add_argument("source", metavar="LESSONS", nargs="?", default=SOURCES,
                   help="folder with the solved notebooks (default: %(default)s)")
    r.add_argument("target", metavar="OUT", nargs="?", default=LEARNER_COPIES,
                   help="folder to write the learner copies to (default: %(default)s)")
    r.set_defaults(func=run_release)
