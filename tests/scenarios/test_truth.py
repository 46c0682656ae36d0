"""The independent ground truth: each scenario's files read with ordinary Python, apart
from the model's extractors, so decoys are seen through and model mistakes graded wrong
(issue 21, item 4)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from jupyter_compaction import runner, scenarios
from jupyter_compaction.scenarios.base import code_heads

ROOMY = 200_000


@pytest.mark.parametrize("name", scenarios.names())
def test_every_question_of_the_bundle_agrees_with_a_faultless_model(name):
    scenario = scenarios.load(name)
    assert scenario.read_truth is not None
    for question in scenario.questions:
        extracted = scenario.extracted(task=question.example)
        assert scenario.answer(extracted, question) == scenario.expected(task=question.example)


def played(name: str, task: str, edit) -> tuple[str, str, str]:
    """(outcome, answer, right answer) of a run on a workspace changed by `edit`."""
    with runner.start(name, task=task, budget=ROOMY) as session:
        edit(Path(session.agent.workspace.root))
        run = session.play()
        scenario, ws = scenarios.load(name), session.agent.workspace
        return scenario.outcome(run, ws), run.answer, scenario.expected(ws, task)


def test_the_superseded_config_copy_is_bundled_and_skipped():
    root = scenarios.load("debug").workspace_dir
    assert "SUPERSEDED" in (root / "config/checkout-api.old.yaml").read_text()
    result, answer, _ = played("debug", scenarios.load("debug").task, lambda root: None)
    assert result == "correct" and "timeout_seconds: 30 " in answer


def test_a_superseded_copy_that_fools_the_model_is_graded_wrong():
    def decoy(root: Path) -> None:  # a retired copy whose name the model's extractor takes
        live = (root / "config/checkout-api.yaml").read_text()
        old = live.replace("timeout_seconds: 30\n    connect", "timeout_seconds: 90\n    connect")
        (root / "config/checkout-api-2023.yaml").write_text(
            "# SUPERSEDED: kept for reference, not deployed.\n" + old)

    result, answer, truth = played("debug", "How long does checkout-api wait for "
                                   "inventory-service before timing out?", decoy)
    assert "timeout_seconds: 30 " in truth and "timeout_seconds: 90 " in answer
    assert result == "wrong"


def test_commented_out_code_is_not_a_table_for_model_or_truth():
    def comment(root: Path) -> None:
        path = root / "agents/memory.py"
        path.write_text(path.read_text() + "\n# OLD_TOOLS: dict[str, Callable[..., str]] = {}\n")

    result, answer, _ = played("agents", "Does agents/memory.py define a dispatch table?", comment)
    assert result == "correct" and answer.endswith(": none.")


def test_an_import_inside_a_string_is_no_import_for_model_or_truth():
    def string(root: Path) -> None:  # Python read as Python (issue 33, item 7)
        path = root / "markdown/util.py"
        path.write_text(path.read_text() + '\nEXAMPLE = """\nfrom .core import Markdown\n"""\n')

    result, answer, truth = played("markdown", "What does markdown/util.py import?", string)
    assert answer == truth == "markdown/util.py imports none at the top level."
    assert result == "correct"


def test_a_table_annotation_inside_a_string_is_no_table_for_model_or_truth():
    def string(root: Path) -> None:
        path = root / "agents/memory.py"
        fake = 'FAKE: dict[str, Callable[..., str]] = {}'
        path.write_text(path.read_text() + f'\nDOC = """\n{fake}\n"""\n')

    result, answer, _ = played("agents", "Does agents/memory.py define a dispatch table?", string)
    assert result == "correct" and answer.endswith(": none.")


def test_a_source_cut_short_is_read_up_to_its_last_whole_statement():
    source = 'from . import util\nfrom ..core import x\n\ndef f():\n    return """\nfrom .fake'
    assert code_heads(source) == "from . import util\nfrom ..core import x"
    assert code_heads("def (") is None


def test_a_planted_extractor_mistake_is_graded_wrong(monkeypatch):
    logistics = scenarios.load("logistics")
    steps = list(logistics.steps)
    order = steps[1]  # lookup_order: read the *first* date of the record as the promised one
    wrong = tuple(dataclasses.replace(f, pattern=r'"(\d{4}-\d\d-\d\d)T') if f.name == "promised"
                  else f for f in order.facts)
    steps[1] = dataclasses.replace(order, facts=wrong)
    monkeypatch.setitem(scenarios.SCENARIOS, "logistics",
                        dataclasses.replace(logistics, steps=tuple(steps)))
    task = "Why did the delivery of order ORD-1042 fail?"
    assert scenarios.load("logistics").expected(task=task) == logistics.expected(task=task)
    result, answer, truth = played("logistics", task, lambda root: None)
    assert answer != truth and result == "wrong"
