"""Every lesson, top to bottom, as a learner with an API key runs it.

Each notebook of `lessons/` is executed whole (every cell, in order, a real kernel, via
nbclient) with `ANTHROPIC_API_KEY` set and the SDK pointed (`ANTHROPIC_BASE_URL`) at the
local Messages API of `tests/support`, which refuses a request the real API would refuse
(the tools rule, tool pairing, block shapes, the beta headers of context editing...).
No cell may raise, and the API may refuse only the requests a lesson sends broken on purpose
to show the error: `INTENDED_REFUSALS` lists them, per lesson, with the reason each is
refused, in the order they are sent. Every other request must be answered 200.

What it leaves out: the lessons' outputs are not compared (nbval does that, without a key),
and the widgets are not rendered (text output is forced, as in nbval; the browser tests in
tests/e2e render them).
"""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from tests.support.fake_messages_api import FakeMessagesAPI, scenario_responder

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((REPO / "lessons").glob("[0-9][0-9]_*.ipynb"))
CELL_TIMEOUT_S = 300  # a hang guard, not a speed target
API_ERROR = "Claude API error 400 invalid_request_error"
SKIP_LINE = "skipped: set ANTHROPIC_API_KEY to run this against Claude"
# The requests a lesson sends broken on purpose: (what the lesson calls it, why it is refused).
INTENDED_REFUSALS: dict[str, list[tuple[str, str]]] = {
    "03_trimming_and_pairs": [
        ("(b) orphan result", "unexpected `tool_use_id` found in `tool_result` blocks"),
        ("(c) unanswered call", "`tool_use` ids were found without `tool_result` blocks"),
    ],
}


def kernel_env(base_url: str) -> dict[str, str]:
    """A learner's environment with a key: text output, this checkout importable."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update(ANTHROPIC_API_KEY="sk-ant-test-key-for-the-fake-api",
               ANTHROPIC_BASE_URL=base_url, JUPYTER_COMPACTION_TEXT="1",
               PYTHONPATH=os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH")) if p))
    return env


def printed(cell) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", [])
                   if o.get("output_type") == "stream")


def test_every_lesson_with_an_intended_refusal_exists():
    assert {p.stem for p in NOTEBOOKS} >= set(INTENDED_REFUSALS)


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_the_lesson_runs_top_to_bottom_with_a_key(path, tmp_path):
    nb = nbformat.read(path, as_version=4)
    with FakeMessagesAPI(scenario_responder()) as api:
        client = NotebookClient(nb, timeout=CELL_TIMEOUT_S, kernel_name="python3",
                                resources={"metadata": {"path": str(tmp_path)}})
        client.execute(env=kernel_env(api.base_url))  # raises on the first cell that fails
    assert not api.errors, api.errors
    assert api.message_requests, "the lesson never called the API"
    intended = INTENDED_REFUSALS.get(path.stem, [])
    refused = [message for _, _, message in api.refusals]
    assert len(refused) == len(intended), f"refused: {refused}"
    for (label, reason), message in zip(intended, refused, strict=True):
        assert reason in message, f"{label} was refused for another reason: {message}"
    last = printed([c for c in nb.cells if c.cell_type == "code"][-1])
    assert SKIP_LINE not in last and last.strip()
    assert last.count(API_ERROR) == len(intended)
    for label, _ in intended:
        assert f"{label}: {API_ERROR}" in last
