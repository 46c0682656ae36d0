"""The "Try this with Claude" cells, run as a learner with a key would run them.

Each lesson's last cell talks to Claude through the real `anthropic` SDK. Here the SDK is
pointed (`ANTHROPIC_BASE_URL`) at the local fake Messages API of `tests/support`, which
checks every request like the real API (a broken history gets the real 400 wording) and
answers with the simulated model of whichever scenario the request is about. So the cells
are exercised end to end, offline: they must run without an exception and print results,
not the "skipped" line.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from tests.support.fake_messages_api import FakeMessagesAPI, scenario_responder

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((REPO / "lessons").glob("[0-9][0-9]_*.ipynb"))
SKIP_LINE = "skipped: set ANTHROPIC_API_KEY to run this against Claude"
# What a cell takes from the cells above it (here: the settings lesson 8 measured before).
PRELUDE = {"08_capstone": 'settings = {"strategy": "progressive", "budget": 7000, '
                          '"task_state": False}\n'}


@pytest.fixture(scope="module")
def fake_api():
    with FakeMessagesAPI(scenario_responder()) as api:
        yield api


def try_this_cell(path: Path) -> str:
    cell = [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"][-1]
    assert SKIP_LINE in cell.source
    return cell.source


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_try_this_cell_runs_against_the_messages_api(path, fake_api, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update(ANTHROPIC_API_KEY="sk-ant-test-key-for-the-fake-api",
               ANTHROPIC_BASE_URL=fake_api.base_url, JUPYTER_COMPACTION_TEXT="1",
               PYTHONPATH=os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH")) if p))
    source = PRELUDE.get(path.stem, "") + try_this_cell(path)
    done = subprocess.run([sys.executable, "-c", source], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert SKIP_LINE not in done.stdout
    assert done.stdout.strip(), "the cell printed nothing"
    assert fake_api.message_requests, "the cell never called the API"
    if path.name.startswith("03_"):  # the broken histories are refused, the trimmed one is not
        assert done.stdout.count("Claude API error 400 invalid_request_error") == 2
        assert "trimmed: accepted" in done.stdout
    else:
        assert "Claude API error" not in done.stdout
