"""Every third-party import is declared (issue 31).

`deptry` (configured in pyproject.toml, tests included) checks the package and its tests
against every extra pooled together; removing a declared dependency makes it fail. Since
it pools the extras, one more check resolves the `test` extra's closure from the installed
metadata (what `pip install -e ".[test]"` installs) and finds every module a test imports
in it, so the README's test command never meets an undeclared import.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

from tests.support.needs import needs

ROOT = Path(__file__).resolve().parents[1]
FIRST_PARTY = {"jupyter_compaction", "tests", "benchmarks"}
NEEDS_DEPTRY = needs("deptry", "test")


def _deptry(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "deptry", ".", "--no-ansi", *args],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)


@NEEDS_DEPTRY
def test_every_import_is_declared():
    done = _deptry()
    assert done.returncode == 0, done.stdout + done.stderr


@NEEDS_DEPTRY
def test_removing_a_declared_dependency_fails_the_check(tmp_path):
    config = (ROOT / "pyproject.toml").read_text()
    line = next(x for x in config.splitlines() if x.strip().startswith('"plotly'))
    copy = tmp_path / "pyproject.toml"
    copy.write_text(config.replace(line + "\n", ""))
    done = _deptry("--config", str(copy))
    assert done.returncode != 0
    assert "'plotly' imported but" in done.stdout + done.stderr  # missing, or only transitive


def _requirement_name(requirement: str) -> tuple[str, set[str], str]:
    """(distribution name, its extras, its marker) of one `Requires-Dist` line."""
    match = re.match(r"\s*([A-Za-z0-9._-]+)\s*(?:\[([^\]]*)\])?[^;]*(?:;(.*))?", requirement)
    extras = {e.strip() for e in (match.group(2) or "").split(",") if e.strip()}
    return match.group(1), extras, (match.group(3) or "").strip()


def _applies(marker: str, extra: str | None) -> bool:
    if not marker:
        return True
    from packaging.markers import Marker

    return Marker(marker).evaluate({"extra": extra or ""})


def own_requirements(extra: str) -> list[str]:
    """The requirements `pip install -e ".[extra]"` starts from, read from pyproject.toml
    (this checkout's, not an older install's metadata): the base dependencies and the
    extra's, with the extras it names (`jupyter-compaction[lab,teach]`) opened."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras, found, todo = project["optional-dependencies"], [], [extra]
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for requirement in extras[name]:
            dist, its_extras, _ = _requirement_name(requirement)
            if dist == project["name"]:
                todo += its_extras
            else:
                found.append(requirement)
    return [*project["dependencies"], *found]


def closure(extra: str) -> set[str]:
    """Every distribution the install of `extra` brings, from the installed metadata."""
    seen: set[tuple[str, str | None]] = set()
    found: set[str] = set()
    todo: list[tuple[str, str | None]] = []
    for requirement in own_requirements(extra):
        dist, extras, marker = _requirement_name(requirement)
        if _applies(marker, None):
            todo += [(dist, e) for e in extras] + [(dist, None)]
    while todo:
        dist, extra_of = todo.pop()
        try:
            key = metadata.distribution(dist).metadata["Name"].lower().replace("_", "-")
        except metadata.PackageNotFoundError:
            pytest.fail(f"{dist} is not installed: pip install -e '.[{extra}]'")
        if (key, extra_of) in seen:
            continue
        seen.add((key, extra_of))
        found.add(key)
        for requirement in metadata.requires(dist) or []:
            required, its_extras, marker = _requirement_name(requirement)
            if _applies(marker, extra_of):
                todo += [(required, e) for e in its_extras] + [(required, None)]
    return found


def imports_of_tests() -> dict[str, set[str]]:
    """Each top-level module the tests import (at any depth), with the files importing it."""
    modules: dict[str, set[str]] = {}
    for path in (ROOT / "tests").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for top in {n.split(".")[0] for n in names}:
                modules.setdefault(top, set()).add(str(path.relative_to(ROOT)))
    return {m: files for m, files in modules.items()
            if m not in sys.stdlib_module_names and m not in FIRST_PARTY}


def test_every_module_the_tests_import_comes_with_the_test_extra():
    installed = closure("test")
    providers = metadata.packages_distributions()
    missing = {}
    for module, files in sorted(imports_of_tests().items()):
        dists = {d.lower().replace("_", "-") for d in providers.get(module, [])}
        if not dists & installed:
            missing[module] = sorted(files)[:3]
    assert not missing, f"imported by tests, not in the test extra's closure: {missing}"


def test_the_closure_holds_what_an_extra_brings_and_nothing_else():
    jupyter = closure("jupyter")
    assert {"plotly", "ipywidgets", "ipython", "narwhals"} <= jupyter  # its own and theirs
    assert "pytest" not in jupyter and "anthropic" not in jupyter
    assert {"pytest", "anthropic", "jupyterlite-core"} <= closure("test")


def test_binder_installs_what_the_lab_extra_declares():
    lines = (ROOT / "binder" / "requirements.txt").read_text().splitlines()
    binder = {_requirement_name(x)[0] for x in lines if x.strip() and not x.startswith("#")}
    lab = {_requirement_name(r)[0] for r in own_requirements("lab")}
    assert binder == lab
