"""`runner.start()` and `play()`: settings with overrides, and who owns the workspace."""

from __future__ import annotations

from pathlib import Path

import pytest

from jupyter_compaction import runner, scenarios
from jupyter_compaction.settings import DEFAULTS


def test_start_reads_the_settings_and_overrides_only_what_is_given():
    with runner.start("agents", settings=DEFAULTS.with_changes(budget=9_000),
                      strategy="trim") as session:
        assert session.settings == DEFAULTS.with_changes(budget=9_000, strategy="trim")
        assert session.agent.settings == session.settings
        assert session.task == scenarios.load("agents").task


def test_an_unknown_knob_is_a_one_line_error_naming_the_knobs():
    with pytest.raises(ValueError, match=r"^unknown setting 'budjet'; the settings are: "
                                         r"model, budget, .*max_turns"):
        runner.start("agents", budjet=9_000)


def test_a_session_removes_its_temporary_workspace_when_closed():
    with runner.start("agents", budget=8_000, notes=True) as session:
        root = session.agent.workspace.root
        run = session.play()
        assert (root / "NOTES.md").is_file() and run.status == "finished"
    assert not root.exists()
    session.close()  # closing twice is harmless


def test_play_leaves_no_folder_behind(monkeypatch):
    made = []
    real = runner.start

    def spy(*args, **kwargs):
        session = real(*args, **kwargs)
        made.append(session.agent.workspace.root)
        return session

    monkeypatch.setattr(runner, "start", spy)
    run = runner.play("agents", budget=8_000)
    assert run.status == "finished" and run.scenario == "agents"
    assert made and not made[0].exists()


def test_a_workdir_given_by_the_caller_stays(tmp_path: Path):
    folder = tmp_path / "ws"
    runner.play("agents", budget=8_000, notes=True, workdir=str(folder))
    assert (folder / "NOTES.md").is_file()


def test_a_failed_build_removes_the_folder_it_made(monkeypatch):
    made = []
    real = runner.tempfile.TemporaryDirectory

    def spy(*args, **kwargs):
        made.append(real(*args, **kwargs))
        return made[-1]

    def refused(model, scenario):
        raise ValueError("no such model here")

    monkeypatch.setattr(runner.tempfile, "TemporaryDirectory", spy)
    monkeypatch.setattr(runner, "make_model", refused)
    with pytest.raises(ValueError, match="no such model here"):
        runner.start("agents")
    assert made and not Path(made[0].name).exists()


def test_a_bad_model_name_is_refused_before_any_folder_is_made(monkeypatch):
    made = []
    monkeypatch.setattr(runner.tempfile, "TemporaryDirectory", made.append)
    with pytest.raises(ValueError, match="unknown model 'gpt-4'"):
        runner.start("agents", model="gpt-4")
    assert made == []


def test_resume_needs_a_run():
    with runner.start("agents") as session, pytest.raises(ValueError, match="not run yet"):
        session.resume()


def test_an_edited_copy_is_run_as_it_is_and_graded_against_its_own_files(tmp_path: Path):
    folder = runner.copy_workspace("debug", tmp_path / "mine")
    config = folder / "config/checkout-api.yaml"
    config.write_text(config.read_text().replace("timeout_seconds: 8", "timeout_seconds: 12"))
    task = "What timeout does checkout-api use for pricing-service?"
    run = runner.play("debug", task=task, workdir=str(folder))
    assert "timeout_seconds: 12 for pricing-service" in run.answer and run.outcome == "correct"
    assert config.read_text().count("timeout_seconds: 12") == 1  # used as it is, not recopied


def test_an_earlier_runs_notes_and_memory_stay_in_the_folder(tmp_path: Path):
    folder = tmp_path / "ws"
    runner.play("agents", budget=8_000, notes=True, memory=True, workdir=str(folder))
    notes, memory = (folder / "NOTES.md").read_text(), sorted((folder / "memories").rglob("*"))
    assert notes and memory
    run = runner.play("agents", budget=8_000, workdir=str(folder))  # notes and memory off
    assert run.outcome == "correct"
    assert (folder / "NOTES.md").read_text() == notes
    assert sorted((folder / "memories").rglob("*")) == memory


def test_copy_workspace_refuses_a_used_folder(tmp_path: Path):
    runner.copy_workspace("agents", tmp_path / "a")
    with pytest.raises(FileExistsError, match="not an empty folder"):
        runner.copy_workspace("agents", tmp_path / "a")


def test_the_long_task_gets_its_own_cap_unless_one_is_set():
    """`markdown` (49 calls without compaction) runs under its scenario's `max_turns`
    while the settings keep their default; a cap given as a knob or in the settings
    stays."""
    cap = scenarios.load("markdown").max_turns
    assert cap and cap > DEFAULTS.max_turns and scenarios.load("agents").max_turns is None
    with runner.start("markdown") as long, runner.start("agents") as short:
        assert (long.settings.max_turns, short.settings.max_turns) == (cap, DEFAULTS.max_turns)
    with runner.start("markdown", max_turns=DEFAULTS.max_turns) as knob, \
            runner.start("markdown", settings=DEFAULTS.with_changes(max_turns=20)) as given:
        assert (knob.settings.max_turns, given.settings.max_turns) == (DEFAULTS.max_turns, 20)
