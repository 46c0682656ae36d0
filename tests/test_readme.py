"""The README says what a newcomer needs, and what it says is true.

- Its test commands exist: the whole suite (`python -m pytest`) and the quick subset,
  and the quick subset selects at least one test in every test folder.
- Its Python version is the package's, its clone address is the package's repository.
- Its module table has a row for every module and subpackage of the package.
- Its chart screenshot is committed, small, and a PNG (the browser test
  tests/e2e/test_lesson_figures.py checks it has the shape lesson 1's figure has now).
- Its notebook snippets run, in order, in a real IPython shell.
- Its numbers for the browser build are the ranges of RESULTS.md's section 14 table.
"""

from __future__ import annotations

import re
import shlex
import struct
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
PACKAGE = REPO / "jupyter_compaction"
CHART = REPO / "docs" / "chart.png"
RESULTS = REPO / "benchmarks" / "RESULTS.md"
CHART_MAX_BYTES = 150_000
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PYTEST = "python -m pytest"
FULL_SUITE = f"{PYTEST} -n auto --dist loadgroup"  # every core; the browser tests on one
QUICK_MARKER = re.compile(r"""-m ["']not slow["']""")
COLLECT_S = 300  # a hang guard for collecting the whole suite, not a speed target


def readme() -> str:
    return README.read_text(encoding="utf-8")


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", readme(), re.S)


def pytest_commands() -> list[str]:
    """Every `python -m pytest ...` command in the README's bash blocks, comments cut."""
    commands = []
    for block in blocks("bash"):
        for line in block.splitlines():
            for part in line.split("#")[0].split("&&"):
                if part.strip().startswith(PYTEST):
                    commands.append(part.strip())
    return commands


def quick_command() -> str:
    found = [c for c in pytest_commands() if QUICK_MARKER.search(c)]
    assert len(found) == 1, f"one quick-subset command in the README, found {found}"
    return found[0]


def test_the_readme_gives_the_whole_suite_and_the_quick_subset():
    assert FULL_SUITE in pytest_commands()
    assert quick_command().startswith(PYTEST)


def quickstart_commands() -> list[str]:
    """The Quickstart's two commands: the lessons' install (what comes before starting
    JupyterLab) and the whole suite, install included."""
    quickstart = readme().split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    lines = [line.strip() for block in re.findall(r"```bash\n(.*?)```", quickstart, re.S)
             for line in block.splitlines() if line.startswith("pip install")]
    lab = next(line for line in lines if "jupyter-compaction lab" in line)
    return [lab.split("&&")[0].strip(), next(line for line in lines if FULL_SUITE in line)]


def test_ci_runs_the_quickstart_word_for_word_in_a_fresh_venv():
    script = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    section = script.split("# QUICKSTART", 1)[1].split("# QUICKSTART end", 1)[0]
    ran = [line for line in section.splitlines()[1:] if line and not line.startswith("#")]
    assert ran == quickstart_commands()
    before = script.split("# QUICKSTART", 1)[0]
    assert re.search(r"python3? -m venv \S+", before) and "/bin/activate" in before
    assert "pip install" not in before  # nothing of ours installed before the README's


def folders_with_tests() -> list[Path]:
    """tests/ and every folder under it that holds a test module."""
    return sorted({p.parent for p in (REPO / "tests").rglob("test_*.py")})


@pytest.mark.slow
def test_the_quick_subset_selects_a_test_in_every_test_folder():
    args = shlex.split(quick_command())[3:]  # what follows `python -m pytest`
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", *args],
                          cwd=REPO, capture_output=True, text=True, timeout=COLLECT_S)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    selected = {(REPO / line.split("::")[0]).parent for line in done.stdout.splitlines()
                if "::" in line}
    missing = [str(f.relative_to(REPO)) for f in folders_with_tests() if f not in selected]
    assert not missing, f"the quick subset selects no test in {missing}"


def test_the_python_version_and_the_clone_address_are_the_packages():
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    version = re.fullmatch(r">=\s*(\d+\.\d+)", project["requires-python"]).group(1)
    assert f"Python {version} or later" in readme()
    clone = next(line.split()[-1] for block in blocks("bash") for line in block.splitlines()
                 if line.startswith("git clone "))
    assert clone == project["urls"]["Repository"]


def modules() -> set[str]:
    """The package's modules (`x.py`) and subpackages (`x/`), as the table names them."""
    names = {p.name for p in PACKAGE.glob("*.py") if not p.name.startswith("_")}
    return names | {f"{p.parent.name}/" for p in PACKAGE.glob("*/__init__.py")}


def test_the_module_table_has_every_module():
    rows = [line for line in readme().split("## What is inside")[1].splitlines()
            if line.startswith("| `")]
    named = {name for row in rows for name in re.findall(r"`([\w]+(?:\.py|/))`",
                                                        row.split("|")[1])}
    assert sorted(modules() - named) == [], "modules missing from the README's table"
    assert sorted(named - modules()) == [], "the README's table names modules that are gone"


def png_size(path: Path) -> tuple[int, int]:
    """(width, height) from a PNG's header."""
    head = path.read_bytes()[:24]
    assert head[:8] == PNG_SIGNATURE and head[12:16] == b"IHDR", f"{path.name} is not a PNG"
    return struct.unpack(">II", head[16:24])


def test_the_chart_screenshot_is_committed_small_and_shown():
    width, height = png_size(CHART)
    assert CHART.stat().st_size <= CHART_MAX_BYTES
    assert width >= 400 and height >= 200
    assert f"]({CHART.relative_to(REPO).as_posix()})" in readme()


def test_the_notebook_snippets_run_in_order(monkeypatch, tmp_path):
    from tests.support.shell import fresh_shell

    monkeypatch.chdir(tmp_path)  # a run's session log is written under the current folder
    shell = fresh_shell(monkeypatch, ("_agent_run", "CONTEXT_BUDGET"), text=True)
    for source in blocks("python"):
        result = shell.run_cell(source)
        assert result.success, (source, result.error_in_exec or result.error_before_exec)
    run = shell.user_ns["_agent_run"]
    assert run.status == "finished"
    budget = shell.user_ns["CONTEXT_BUDGET"]
    assert f"--budget {budget}" in readme(), "the terminal demo runs at the notebook's budget"


def lite_rows() -> list[list[str]]:
    """The rows of RESULTS.md's browser-build table (section 14), as cells."""
    section = RESULTS.read_text(encoding="utf-8").split("\n## 14.")[1].split("\n## ")[0]
    return [[c.strip() for c in line.strip("|").split("|")] for line in section.splitlines()
            if re.match(r"\| \d\d_", line)]


def span(rows: list[list[str]], column: int, unit: str) -> str:
    values = [float(row[column].removesuffix(unit).strip()) for row in rows]
    return f"{min(values):.1f}-{max(values):.1f}"


def test_the_browser_builds_numbers_are_the_benchmarks():
    rows = lite_rows()
    assert len(rows) == 10 and all(row[6] == "yes" for row in rows)  # each under 30 s
    text = " ".join(readme().split())
    assert (f"a lesson costs {span(rows, 5, 'x')}x its time in a local kernel: "
            f"{span(rows, 4, 's')} s from opening it to its last cell, kernel start "
            f"({span(rows, 2, 's')} s) included, against {span(rows, 1, 's')} s") in text
