"""Binder: build a fresh environment from `binder/` alone and run lesson 1 in it.

This does what repo2docker does, without Docker: a new virtual environment, then
`pip install -r binder/requirements.txt`, then `binder/postBuild` run with the
repository as the working directory and the environment's `bin/` first on `PATH` (so its
`python -m pip install --no-deps -e .` installs into the new environment). Lesson 1 is
then executed by that environment's nbclient in that environment's kernel, with the
checkout *not* on `PYTHONPATH`, and the stored output of every `# NBVAL_CHECK_OUTPUT`
cell must come out the same. Needs PyPI; takes a few minutes.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BINDER = REPO / "binder"
LESSON = REPO / "learn" / "01_why_compaction.ipynb"  # what the Binder badge opens

RUN_LESSON = r'''
import os, shutil, sys
from pathlib import Path

import nbformat
from jupyter_client.kernelspec import KernelSpecManager
from nbclient import NotebookClient

import jupyter_compaction

lesson = Path(sys.argv[1])
checkout = Path(sys.argv[2])
venv_bin = Path(sys.executable).parent
assert Path(jupyter_compaction.__file__).resolve().is_relative_to(checkout), "not the checkout"
argv = KernelSpecManager().get_kernel_spec("python3").argv
kernel_python = Path(shutil.which(argv[0]) or argv[0])
assert kernel_python.parent == venv_bin, f"the kernel runs {kernel_python}, not the new venv"

stored = nbformat.read(lesson, as_version=4)
nb = nbformat.read(lesson, as_version=4)
NotebookClient(nb, timeout=600, kernel_name="python3",
               resources={"metadata": {"path": str(lesson.parent)}}).execute()

def text(cell):
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")

checked = 0
for old, new in zip(stored.cells, nb.cells):
    if old.cell_type == "code" and old.source.startswith("# NBVAL_CHECK_OUTPUT"):
        checked += 1
        assert text(new) == text(old), f"output changed:\n{text(new)}\n---\n{text(old)}"
    for output in new.get("outputs", []):
        assert output.output_type != "error", f"{output.ename}: {output.evalue}"
print(f"lesson 1 ran in the Binder environment; {checked} checked cells match")
'''


def run(command: list[str], **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)
    assert done.returncode == 0, f"{command}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.mark.slow
def test_binder_environment_runs_lesson_1(tmp_path):
    runtime = (BINDER / "runtime.txt").read_text().strip()
    assert runtime.startswith("python-3.") and int(runtime.split(".")[1]) >= 11
    assert "no-deps -e ." in (BINDER / "postBuild").read_text()

    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", str(venv)], timeout=300)
    bin_dir = venv / "bin"
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("ANTHROPIC_") and k not in ("PYTHONPATH", "PYTHONHOME")}
    env.update(PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}", VIRTUAL_ENV=str(venv),
               JUPYTER_DATA_DIR=str(tmp_path / "jupyter-data"),  # no user kernels leak in
               JUPYTER_COMPACTION_TEXT="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    run([str(bin_dir / "python"), "-m", "pip", "install", "-q", "-r",
         str(BINDER / "requirements.txt")], env=env, timeout=1800)
    run(["bash", str(BINDER / "postBuild")], cwd=REPO, env=env, timeout=600)
    done = run([str(bin_dir / "python"), "-c", RUN_LESSON, str(LESSON), str(REPO)],
               cwd=tmp_path, env=env, timeout=900)
    assert "checked cells match" in done.stdout
