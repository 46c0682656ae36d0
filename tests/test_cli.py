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


def test_demo_bad_input_is_one_line(capsys):
    with pytest.raises(SystemExit):
        main(["demo", "--budget", "-5"])
    err = capsys.readouterr().err
    assert "must be positive" in err


def test_console_script_entry_point_runs():
    out = subprocess.run([sys.executable, "-m", "jupyter_compaction.cli", "demo", "--scenario",
                          "logistics", "--budget", "8000"], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert "ORD-1042" in out.stdout
