import re
import subprocess
import sys

import pytest

from jupyter_compaction import scenarios
from jupyter_compaction.cli import main


@pytest.mark.parametrize("name", scenarios.names())
def test_demo_compacts_and_answers_each_scenario(name, capsys):
    assert main(["demo", "--scenario", name, "--budget", "8000"]) == 0
    out = capsys.readouterr().out
    assert out.count("compacted[") >= 2
    assert "outcome              correct" in out
    assert scenarios.load(name).expected_answer in out


def test_demo_output_is_the_same_every_run(capsys):
    main(["demo", "--budget", "8000"])
    first = capsys.readouterr().out
    main(["demo", "--budget", "8000"])
    assert capsys.readouterr().out == first


@pytest.mark.parametrize(("argv", "words"), [
    (["--budget", "-5"], "--budget must be a positive whole number of tokens"),
    (["--budget", "8k"], "--budget must be a positive whole number of tokens"),
    (["--max-turns", "0"], "--max-turns must be a positive whole number of turns"),
    (["--trigger", "high"], "--trigger must be a number"),
    (["--target", "0.9"], "0 < target < trigger <= 1"),
    (["--strategy", "bogus"], "unknown strategy 'bogus': --strategy must be one of off, clear"),
    (["--model", "gpt-4o"], "unknown model 'gpt-4o': --model must be one of simulated"),
    (["--summary-role", "system"], "unknown summary role 'system'"),
    (["--summarizer", "cheap"], "unknown summarizer 'cheap': --summarizer must be one of aux"),
    (["--standing-instructions", " "], "--standing-instructions must be text that is not "
                                       "blank; got ' '"),
])
def test_demo_bad_input_is_one_line_and_exit_2(capsys, argv, words):
    assert main(["demo", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and words in err and err.count("\n") == 1


def test_demo_takes_every_setting_a_terminal_can_type(capsys):
    from jupyter_compaction.cli import DEMO_SETTINGS
    from jupyter_compaction.settings import NAMES

    # a trigger rule is a notebook's function: a terminal has none to name
    assert set(NAMES) - set(DEMO_SETTINGS) == {"max_output_tokens", "trigger_rule"}
    assert main(["demo", "--summarizer", "same", "--notes", "--max-turns", "3"]) == 1
    assert "status" in capsys.readouterr().out


@pytest.mark.parametrize("restate", [True, False])
def test_demo_states_the_standing_instructions_and_restates_them(capsys, restate):
    rule = 'End every answer with "-- ops bot".'
    argv = ["demo", "--scenario", "agents", "--budget", "8000", "--strategy", "compact",
            "--standing-instructions", rule, *([] if restate else ["--no-restate"])]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert re.search(r"^outcome\s+correct$", out, re.M)  # graded on content, not sign-off
    assert out.rstrip().endswith("-- ops bot") is restate


def test_console_script_entry_point_runs():
    out = subprocess.run([sys.executable, "-m", "jupyter_compaction.cli", "demo", "--scenario",
                          "logistics", "--budget", "8000"], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert "ORD-1042" in out.stdout


def test_workspace_copies_a_scenarios_files_to_edit(tmp_path, capsys):
    from jupyter_compaction.cli import main

    assert main(["workspace", "logistics", str(tmp_path / "desk")]) == 0
    assert (tmp_path / "desk/orders/ORD-1042.json").is_file()
    assert "--workdir" in capsys.readouterr().out
    assert main(["workspace", "logistics", str(tmp_path / "desk")]) == 2
    assert capsys.readouterr().err.startswith("error: ")
