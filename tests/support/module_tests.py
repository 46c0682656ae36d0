"""Which test files cover each module of the package, so that a developer changing one
module runs its tests in seconds instead of the whole suite:

    python tests/support/module_tests.py jupyter_compaction/settings.py

prints the pytest command for that module's tests. The map is read from the file names
(a module's tests are the files named after it: `test_<name>.py` or `test_<name>_*.py`,
in the subpackage's test folder for a module of a subpackage, or `test_<folder>_<name>*`),
then `OTHERS` for modules whose tests carry another name, then, for a module of a
subpackage, the subpackage's test folder. `tests/test_contributing.py` checks that every
module of the package is mapped.

Left out: the browser tests (`tests/e2e`) and the benchmarks, which are never a module's
quick check.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE, TESTS = ROOT / "jupyter_compaction", ROOT / "tests"
SKIPPED = {"e2e", "benchmarks"}  # slow, and never one module's check
# Modules whose tests are not named after them (paths from the repository root).
OTHERS = {
    "__init__.py": ("tests/test_structure.py", "tests/test_readme.py"),
    "compactor.py": ("tests/test_agent.py", "tests/test_compact_now.py",
                     "tests/test_backoff.py", "tests/test_reactive.py",
                     "tests/test_rules_breaker.py"),
    "demo.py": ("tests/test_cli.py",),
    "events.py": ("tests/test_agent.py", "tests/test_resume.py"),
    "features.py": ("tests/test_agent.py", "tests/test_structure.py"),
    "hooks.py": ("tests/test_agent.py",),
    "loop_guard.py": ("tests/test_rules_breaker.py",),
    "paused.py": ("tests/test_server_compaction.py", "tests/test_restate.py"),
    "recorder.py": ("tests/test_resume.py", "tests/test_agent.py"),
    "replay_turn.py": ("tests/test_replay.py", "tests/grading/test_grading_sandbox.py"),
    "rules.py": ("tests/test_agent.py", "tests/test_loop_guard.py"),
    "run.py": ("tests/test_agent.py", "tests/test_resume.py"),
    "models/simulated_offload.py": ("tests/test_offload.py",),
    "jupyter/context_view.py": ("tests/jupyter/test_jupyter_magics.py",),
    "jupyter/compare.py": ("tests/jupyter/test_jupyter_lab.py",),
    "jupyter/live.py": ("tests/jupyter/test_jupyter_magics.py",),
    "jupyter/event_log.py": ("tests/jupyter/test_jupyter_render.py",),
    "jupyter/replay_magic.py": ("tests/jupyter/test_jupyter_replay.py",),
    "jupyter/result_view.py": ("tests/jupyter/test_jupyter_render.py",),
    "jupyter/validate.py": ("tests/jupyter/test_jupyter_magics.py",
                            "tests/reliability/test_bad_input.py"),
}
DATA = "scenario-data"  # the scenarios' workspaces: files the agent reads, not the package


def modules() -> list[Path]:
    """Every Python module of the package (the scenarios' data folders hold none)."""
    return sorted(p for p in PACKAGE.rglob("*.py") if DATA not in p.parts)


def test_files() -> list[Path]:
    return sorted(p for p in TESTS.rglob("test_*.py")
                  if not SKIPPED & set(p.relative_to(TESTS).parts))


def tests_of(module: Path) -> list[str]:
    """The test files of `module` (a path under the package), relative to the root."""
    relative = module.resolve().relative_to(PACKAGE)
    folder = relative.parent.name  # "" for a top-level module
    name = folder if relative.stem == "__init__" and folder else relative.stem
    # 1. files named after the module
    found = [p for p in test_files() if named_after(p, name, folder)]
    # 2. the modules whose tests carry another name
    named = [str(p.relative_to(ROOT)) for p in found] + list(
        OTHERS.get(str(relative), ()))
    # 3. a subpackage's module: its test folder
    if not named and folder and (TESTS / relative.parts[0]).is_dir():
        named = [f"tests/{relative.parts[0]}"]
    return named


def named_after(test: Path, name: str, folder: str) -> bool:
    """Whether the test file `test` is named after the module `name` of `folder`."""
    def is_for(prefix: str) -> bool:
        return test.stem == prefix or test.stem.startswith(prefix + "_")
    subpackages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    home = (test.parent == TESTS / folder) if folder else test.parent.name not in subpackages
    return (not name.startswith("_") and home and is_for(f"test_{name}")) or (
        bool(folder) and is_for(f"test_{folder}_{name}"))


def command(module: Path) -> str:
    return "python -m pytest -q " + " ".join(tests_of(module))


if __name__ == "__main__":
    for argument in sys.argv[1:] or ["--help"]:
        if not argument.endswith(".py"):
            sys.exit("usage: python tests/support/module_tests.py jupyter_compaction/MODULE.py")
        print(command(Path(argument)))
