"""`jupyter-compaction lab` finds the lessons, starts a JupyterLab that answers, prints
lesson 1's URL with its token, and takes JupyterLab down with it on SIGINT and SIGTERM."""

import contextlib
import os
import re
import select
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from jupyter_compaction.launch import (
    FIRST_LESSON,
    answers,
    free_port,
    lab_command,
    lesson_url,
    lessons_dir,
)

REPO = Path(__file__).resolve().parents[1]
FIRST_PORT_FOR_TESTS = 18_888  # away from a learner's own JupyterLab on 8888
START_S = 90  # for JupyterLab to answer on a quiet machine; scaled by the measured slowdown
URL = re.compile(r"^Lesson 1: (http://localhost:(\d+)/lab/tree/(\S+)\?token=(\w+))$", re.M)


def test_finds_the_checkouts_lessons_from_anywhere(tmp_path):
    folder = lessons_dir(cwd=tmp_path)
    assert (folder / FIRST_LESSON).is_file()


def test_a_folder_without_lessons_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr("jupyter_compaction.launch.__file__", str(tmp_path / "x" / "launch.py"))
    with pytest.raises(FileNotFoundError, match="repository root"):
        lessons_dir(cwd=tmp_path)


def test_command_opens_the_first_lesson_and_allows_root_only_for_root():
    folder = Path("/somewhere/lessons")
    as_user = lab_command(folder, is_root=False, browser=False, port=9999)
    assert as_user[-4:] == [str(folder / FIRST_LESSON), f"--ServerApp.root_dir={folder}",
                            "--port=9999", "--no-browser"]
    assert "--allow-root" not in as_user
    assert lab_command(folder, is_root=True)[-1] == "--allow-root"


def test_the_url_opens_lesson_1_with_the_token():
    assert lesson_url(8890, "abc123") == (
        f"http://localhost:8890/lab/tree/{FIRST_LESSON}?token=abc123")


def test_a_busy_port_is_skipped():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        taken = busy.getsockname()[1]
        assert free_port(taken) != taken


def read_url(launcher: subprocess.Popen, seconds: float) -> re.Match:
    """The launcher's "Lesson 1: URL" line, read within `seconds`."""
    deadline, text = time.monotonic() + seconds, ""
    while not (found := URL.search(text)):
        assert launcher.poll() is None, f"the launcher exited: {text}"
        left = deadline - time.monotonic()
        assert left > 0, f"no lesson URL printed in {seconds:.0f} s: {text!r}"
        if select.select([launcher.stdout], [], [], min(left, 1.0))[0]:
            text += os.read(launcher.stdout.fileno(), 4096).decode()
    return found


def listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


@pytest.mark.slow
# One worker for both: run side by side, both take the first free port, and the second
# JupyterLab, told that port, stops while its launcher waits for it (a 161 s hang in CI).
@pytest.mark.xdist_group("jupyterlab-launch")
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_prints_lesson_1_and_a_signal_stops_jupyterlab_too(tmp_path, sig, slowdown):
    port = free_port(FIRST_PORT_FOR_TESTS)
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path),
           "PYTHONPATH": os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH"))
                                         if p)}
    launcher = subprocess.Popen(
        [sys.executable, "-m", "jupyter_compaction.cli", "lab", "--no-browser",
         f"--port={port}"], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        url, shown_port, page, token = read_url(launcher, START_S * slowdown).groups()
        assert (int(shown_port), page) == (port, FIRST_LESSON)
        with urllib.request.urlopen(url.replace("localhost", "127.0.0.1"), timeout=10) as reply:
            assert reply.status == 200 and "/login" not in reply.geturl()  # the token logs in
        contents = f"http://127.0.0.1:{port}/api/contents/{FIRST_LESSON}?token={token}"
        with urllib.request.urlopen(contents, timeout=10) as reply:
            assert reply.status == 200
        launcher.send_signal(sig)
        launcher.wait(timeout=30 * slowdown)
        assert not answers(port, token) and not listening(port), "JupyterLab is left running"
    finally:
        if launcher.poll() is None:
            launcher.kill()
            launcher.wait()
        for left in tmp_path.glob("jpserver-*.json"):  # a server the test failed to stop
            with contextlib.suppress(ProcessLookupError, ValueError):
                os.kill(int(left.stem.removeprefix("jpserver-")), signal.SIGKILL)

