"""CONTRIBUTING.md names only files and tests that exist, and the registries it says to
edit are where the code reads them."""

from __future__ import annotations

import functools
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


# --- each recipe lists the true files ------------------------------------------------------
# The files that every existing strategy, scenario or exercise appears in are the files a
# new one must be added to: each recipe must name them (with `<name>`-style placeholders
# for the member's own files). A few mentions need no edit; they are listed with why.

NO_EDIT = {
    "tests/strategies/test_registry.py": "imports the built-in classes for its own tests",
    "benchmarks/RESULTS.md": "measured results, rewritten by benchmarks/run.py",
    "tests/scenarios/test_asides.py": "reads asides through the existing scenarios' questions;"
                                      " a new scenario need not appear there",
}
SKIPPED = ("jupyter_compaction/scenario-data/",  # a scenario's own files
           "jupyter_compaction/sessions/data/")  # recorded sessions, not code
NOTEBOOK = re.compile(r"^(lessons|learn)/\d\d_\w+\.ipynb$")


def sections() -> dict[str, str]:
    """The text of each `## ` section of CONTRIBUTING.md, by heading."""
    parts = re.split(r"^## (.+)$", TEXT, flags=re.M)
    return {title.strip(): body for title, body in zip(parts[1::2], parts[2::2], strict=True)}


def named(section: str) -> set[str]:
    return set(re.findall(r"`((?:jupyter_compaction|tests|lessons|learn)/[^`\s]*|README\.md)`",
                          section))


@functools.lru_cache(maxsize=1)
def repository() -> dict[str, str]:
    import subprocess

    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout.split()
    texts = {}
    for path in listed:
        if path.startswith(SKIPPED) or not (ROOT / path).is_file():
            continue
        try:
            texts[path] = (ROOT / path).read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
    return texts


def touched(texts: dict[str, str], words: list[str], own: str, placeholder: str,
            lesson: bool = False) -> set[str]:
    """The files that mention any of `words`, with a member's own file (stem `own`) and,
    when the member belongs to one `lesson`, its notebooks written with placeholders."""
    pattern = re.compile("|".join(rf"(?<![\w-]){re.escape(w)}(?![\w-])" for w in words))
    found = set()
    for path, text in texts.items():
        if any(w in text for w in words) and pattern.search(text):  # the plain test first
            path = path.replace(f"/{own}.py", f"/{placeholder}.py")
            path = path.replace(f"/test_{own}.py", f"/test_{placeholder}.py")
            if lesson and NOTEBOOK.match(path):
                path = path.split("/")[0] + "/NN_<title>.ipynb"
            found.add(path)
    return found


def common(sets: list[set[str]]) -> set[str]:
    return set.intersection(*sets) - set(NO_EDIT)


def test_the_strategy_recipe_names_every_file_a_strategy_is_in():
    from jupyter_compaction.strategies import STRATEGIES, NoCompaction

    texts = repository()
    sets = [touched(texts, [type(s).__name__], type(s).__module__.rsplit(".", 1)[1], "<name>")
            for s in STRATEGIES.values() if not isinstance(s, NoCompaction)]
    needed = common(sets)
    assert "jupyter_compaction/strategies/__init__.py" in needed
    assert needed <= named(sections()["Add a compaction strategy"])


def test_the_scenario_recipe_names_every_file_a_scenario_is_in():
    from jupyter_compaction import scenarios

    texts = repository()
    sets = [touched(texts, [f"scenarios.{n}", f"scenarios/{n}", f'"{n}"'], n, "<name>")
            for n in scenarios.names()]
    recipe = named(sections()["Add a scenario"])
    assert common(sets) <= recipe
    assert "jupyter_compaction/scenarios/<name>.py" in recipe


def test_the_lesson_recipe_names_every_file_an_exercise_is_in():
    from jupyter_compaction.grading.exercises import MODULES

    texts = repository()
    sets = []
    for module in MODULES:
        exercise, own = module.EXERCISE, module.__name__.rsplit(".", 1)[1]
        sets.append(touched(texts, [own, f'"{exercise.id}"', f"({exercise.id})",
                                    exercise.function], own, "ex_<topic>", lesson=True))
    needed = common(sets)
    recipe = named(sections()["Add a lesson"])
    assert len(needed) >= 9 and needed <= recipe, sorted(needed - recipe)
    assert re.search(r"eleven with a graded exercise", sections()["Add a lesson"])


# --- each module's tests ---------------------------------------------------------------------

def test_every_package_module_is_mapped_to_its_tests():
    from tests.support.module_tests import OTHERS, PACKAGE, modules, tests_of

    assert len(modules()) > 50
    unmapped = [str(m.relative_to(PACKAGE)) for m in modules() if not tests_of(m)]
    assert unmapped == []
    for module in modules():
        for path in tests_of(module):
            assert (ROOT / path).exists(), (module, path)
    assert all((PACKAGE / name).exists() for name in OTHERS)  # no entry for a module gone
    assert tests_of(PACKAGE / "settings.py") == ["tests/test_settings.py"]
    assert tests_of(PACKAGE / "strategies" / "trim.py") == ["tests/strategies/test_trim.py"]
    assert "tests/support/module_tests.py" in TEXT


def test_the_map_prints_a_module_s_pytest_command():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "tests/support/module_tests.py",
                           "jupyter_compaction/settings.py"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.stdout == "python -m pytest -q tests/test_settings.py\n", done.stderr
