"""The seeds of the grade's hidden cases: one per exercise, fixed when the course is released.

A grade is a function of the submission and the release: `jupyter-compaction release`
calls `ensure(SOURCE)`, which writes `SOURCE/grading_seeds.json` (one random seed per
exercise) the first time and afterwards only adds seeds for new exercises, so re-grading
draws the same hidden cases. The file stays in the teacher's folder: `release` never
copies it into the learner copies, and the package holds no seed. `grade --seed N` gives
one seed for every exercise instead; `resolve(seeds, exercise)` is the seed an exercise
draws from, either way. The seeds used are recorded in `gradebook.json`.

Left out: keeping the file secret (it is the teacher's, like the solutions beside it).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping
from pathlib import Path

SEEDS_FILE = "grading_seeds.json"
Seeds = int | Mapping[str, int]  # one seed for every exercise, or one per exercise


class SeedsError(ValueError):
    """The seeds file cannot be read; the message says what to do."""


def resolve(seeds: Seeds, exercise: str) -> int:
    """The seed `exercise`'s hidden cases are drawn from."""
    return seeds if isinstance(seeds, int) else int(seeds[exercise])


def load(path: Path) -> dict[str, int]:
    """The per-exercise seeds in `path`, each exercise present."""
    from .exercises import EXERCISES  # every exercise module: only when seeds are read

    found = load_partial(path)
    missing = [e for e in EXERCISES if e not in found]
    if missing:
        raise SeedsError(f"{path} has no seed for {', '.join(missing)}; run "
                         "jupyter-compaction release again to add them")
    return found


def ensure(folder: Path) -> Path:
    """`folder/grading_seeds.json`, written with a new seed for each exercise it lacks."""
    from .exercises import EXERCISES

    path = folder / SEEDS_FILE
    seeds = load_partial(path)
    if any(e not in seeds for e in EXERCISES):
        seeds |= {e: secrets.randbits(63) for e in EXERCISES if e not in seeds}
        path.write_text(json.dumps(seeds, indent=1) + "\n", encoding="utf-8")
    return path


def load_partial(path: Path) -> dict[str, int]:
    """The seeds `path` holds so far (none when it does not exist)."""
    if not path.exists():
        return {}
    try:
        return {str(k): int(v) for k, v in json.loads(path.read_text("utf-8")).items()}
    except (OSError, ValueError, TypeError, AttributeError) as exc:
        raise SeedsError(f"cannot read the grading seeds in {path} ({type(exc).__name__}); "
                         "delete it and run jupyter-compaction release again") from None
