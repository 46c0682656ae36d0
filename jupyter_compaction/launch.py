"""`jupyter-compaction lab`: open the lessons in JupyterLab, from a checkout or anywhere.

Finds the learner copies, `learn/` (next to the package in a source checkout, else in the
current folder): the lessons with every exercise's solution replaced by a stub, written
by `jupyter-compaction release` from the solved sources in `lessons/`. It starts
JupyterLab on the first lesson with that folder as its root, with a fresh token, and once
the server answers prints lesson 1's URL with that token (what a remote machine's user
opens, with `--no-browser`).
The launcher owns the server: SIGINT (Ctrl-C) and SIGTERM to it stop JupyterLab too, with
its kernels, instead of leaving it running orphaned.
Running as root (a container, a fresh cloud machine) is common for a classroom image, so
`--allow-root` is passed only then.

Left out: installing anything (the `lab` extra brings JupyterLab and the widgets), and
a launcher killed with SIGKILL, which cannot pass anything on.
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

LESSONS = "learn"  # the learner copies; the solved sources stay in lessons/
FIRST_LESSON = "01_why_compaction.ipynb"
FIRST_PORT = 8888  # JupyterLab's own default; the next free one is taken when it is busy
PORTS_TRIED = 50
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
STOP_WAIT_S = 20  # for JupyterLab to shut its kernels down before it is killed
POLL_S = 0.5


def lessons_dir(cwd: Path | None = None) -> Path:
    """The learner copies' folder: the checkout's own, else `./learn`."""
    for candidate in (Path(__file__).resolve().parents[1] / LESSONS,
                      (cwd or Path.cwd()) / LESSONS):
        if (candidate / FIRST_LESSON).is_file():
            return candidate
    raise FileNotFoundError("no learn/ folder found; run this from the repository root "
                            "(git clone the project, then pip install -e \".[lab]\")")


def lab_command(folder: Path, *, port: int | None = None, browser: bool = True,
                is_root: bool | None = None) -> list[str]:
    """The `jupyter lab` command line that opens the first lesson in `folder`."""
    command = [sys.executable, "-m", "jupyter", "lab", str(folder / FIRST_LESSON),
               f"--ServerApp.root_dir={folder}"]
    if port:
        command.append(f"--port={port}")
    if not browser:
        command.append("--no-browser")
    if is_root if is_root is not None else (hasattr(os, "geteuid") and os.geteuid() == 0):
        command.append("--allow-root")
    return command


def lesson_url(port: int, token: str) -> str:
    """The first lesson's page in a JupyterLab on this machine, logged in by `token`."""
    return f"http://localhost:{port}/lab/tree/{FIRST_LESSON}?token={token}"


def free_port(first: int = FIRST_PORT) -> int:
    """The first port from `first` on that nothing listens on (as JupyterLab picks one)."""
    for port in range(first, first + PORTS_TRIED):
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise OSError(f"no free port in {first}-{first + PORTS_TRIED - 1}; pass --port")


def answers(port: int, token: str) -> bool:
    """Whether a Jupyter server on `port` answers its status API with this token."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status?token={token}",
                                    timeout=2) as reply:
            return reply.status == 200
    except OSError:
        return False


def stop(server: subprocess.Popen) -> None:
    """Ask JupyterLab to shut down (its kernels too); kill it if it does not in time."""
    if server.poll() is not None:
        return
    server.terminate()  # SIGTERM: JupyterLab stops at once (SIGINT would ask y/n first)
    try:
        server.wait(timeout=STOP_WAIT_S)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def run(folder: Path, *, port: int | None = None, browser: bool = True,
        say: Callable[[str], None] = print) -> int:
    """Serve `folder` in JupyterLab until it exits or the launcher gets SIGINT / SIGTERM;
    say lesson 1's URL once the server answers. JupyterLab's exit code."""
    port = port or free_port()
    token = secrets.token_hex(24)
    env = {**os.environ, "JUPYTER_TOKEN": token}  # not on the command line, where ps shows it
    server = subprocess.Popen(lab_command(folder, port=port, browser=browser), env=env,
                              start_new_session=True)  # the terminal's Ctrl-C comes to us
    previous = {sig: signal.signal(sig, lambda *_: server.terminate()) for sig in STOP_SIGNALS}
    try:
        while server.poll() is None:
            if answers(port, token):
                say(f"Lesson 1: {lesson_url(port, token)}")
                break
            time.sleep(POLL_S)
        return server.wait()
    finally:
        stop(server)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
