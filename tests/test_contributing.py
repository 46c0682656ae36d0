"""CONTRIBUTING.md names only files and tests that exist, and the registries it says to
edit are where the code reads them."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEXT = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")


def test_every_named_file_exists():
    paths = set(re.findall(r"`((?:jupyter_compaction|tests|lessons)/[\w/.]+)`", TEXT))
    paths |= {p for p in re.findall(r"\b((?:tests|jupyter_compaction)/[\w/]+\.py)\b", TEXT)}
    assert len(paths) >= 10
    missing = [p for p in sorted(paths) if not (ROOT / p).exists()]
    assert missing == []


def test_every_named_test_exists_in_the_named_file():
    named = re.findall(r"`(test_\w+)`", TEXT)
    assert len(named) >= 3
    sources = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests").rglob("*.py"))
    for name in named:
        assert f"def {name}(" in sources, name


def test_the_registries_it_names_exist():
    from jupyter_compaction import scenarios, strategies
    from jupyter_compaction.grading import exercises

    assert strategies.STRATEGIES and scenarios.SCENARIOS and exercises.EXERCISES
    for word in ("STRATEGIES", "SCENARIOS", "EXERCISES", "configure()", "measure"):
        assert word in TEXT, word
