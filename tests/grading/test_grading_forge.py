"""The forge suite: attacks on the grader, each a submitted notebook graded by the CLI.

Every attack is one learner whose notebook forges one exercise and solves another
honestly; one more learner solves everything honestly. The class is graded once with
`jupyter-compaction grade DIR --out OUT` (a module fixture), then each attack is its own
test: the forged exercise scores 0, the honest exercise and the honest learner keep full
marks, and the gradebook still verifies after any detached child would have acted.
The attacks the screen refuses say which rule fired; the ones it lets through are stopped
by the sandbox (memory limit, plain-data results, a worker that cannot fork, print or
write), which `test_grading_sandbox.py` also tests with the screen bypassed.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from tests.grading.grading_solutions import REFERENCE

# slow (a class of forged notebooks is graded in sandboxes); and one worker runs this
# module, so that class (the `graded` fixture) is graded once
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("grading-forge")]

ROOT = Path(__file__).resolve().parents[2]
HONEST_EXERCISES = ("ex3", "ex5", "ex6b", "ex5d")  # ex5d: a learner empties its TOOLS
DETACHED_WAIT_S = 2.0  # longer than the detached child's own wait

ATTACKS: dict[str, tuple[str, str, str]] = {  # name: (exercise, source, the rule or reason)
    "getattr string concatenation reaches the library": ("ex5c", '''
from jupyter_compaction import pricing

def summary_cost(usages, prices):
    return getattr(pricing, "dol" + "lars")(usages, prices)
''', "rule: non-literal attribute name"),
    "__globals__ replaces attempt, at definition time": ("ex1", '''
import jupyter_compaction.grading.check as check

def always(case, fn, timeout=None):
    return None, False

def patch():
    getattr(check.run_exercise, "__glo" + "bals__")["attempt"] = always

def needs_compaction(counter, messages, system, tools, budget, trigger=0.8, _=patch()):
    return False
''', "rule: grading package"),
    "module attributes reach os through the grading package": ("ex4b", '''
import jupyter_compaction

def summary_prompt(middle, previous):
    jupyter_compaction.grading.isolated.os.system("touch /tmp/forged")
    return ""
''', "rule: grading package"),
    "module attributes reach os through the library": ("ex3b", '''
import jupyter_compaction.store

def drop_oldest_turns(messages, drop):
    jupyter_compaction.store.os.system("touch /tmp/forged")
    return messages
''', "rule: module through attributes"),
    "detects grading by the environment": ("ex6", '''
from jupyter_compaction import store
from jupyter_compaction.task_state import TaskState

def render_task_state(goal, todos):
    if "PYTEST_CURRENT_TEST" in store.os.environ or "JUPYTER_COMPACTION_TEXT" in store.os.environ:
        return TaskState(goal=goal).render()
    return ""
''', "rule: library implementation"),
    "detects grading by sys.argv": ("ex6b", '''
import typing

def session_chain(parents, session_id):
    if any("grad" in a for a in typing.sys.argv):
        return [session_id]
    return []
''', "rule: module through attributes"),
    "detects grading by a frame's file name": ("ex6c", '''
def add_note(notes, text):
    try:
        raise ValueError
    except ValueError as exc:
        frame = exc.__traceback__.tb_frame
    if "grading" in frame.f_back.f_code.co_filename:
        return "- " + text + "\\n"
    return notes
''', "rule: frame or code object"),
    "a decorator swaps the exercise table": ("ex7", '''
import jupyter_compaction

def swap(fn):
    getattr(jupyter_compaction, "grad" + "ing").exercises.EXERCISES.clear()
    return fn

@swap
def fact_recall(summary, must_keep):
    return 1.0
''', "rule: non-literal attribute name"),
    "a module-level assignment it uses holds the exercise table": ("ex9", '''
from jupyter_compaction.grading.exercises import EXERCISES

TABLE = EXERCISES.clear()

def log_overhead(turns, table=TABLE):
    return 0
''', "rule: grading package"),
    "stack walking for the seed and the case names": ("ex2", '''
def clear_old_results(messages, keep_last=3, placeholder="[cleared]"):
    frame = (x for x in ()).gi_frame
    while frame is not None:
        seen = frame.f_locals.get("seed"), frame.f_locals.get("case")
        frame = frame.f_back
    return messages
''', "rule: frame or code object"),
    "a detached child rewrites gradebook.csv after the grader exits": ("ex4", '''
import jupyter_compaction.store as t

def rewrite():
    if t.os.fork() == 0:
        t.os.setsid()
        t.time.sleep(1)
        out = open("/proc/%d/cmdline" % t.os.getppid()).read().split("\\0")
        folder = out[out.index("--out") + 1]
        open(folder + "/gradebook.csv", "w").write("forged")
    return 0

def tail_start(messages, counter, tail_tokens, _=rewrite()):
    return 1
''', "rule: module through attributes"),
    "a 2 GB allocation at definition time": ("ex4c", '''
BUFFER = bytearray(2 * 1024**3)

def place_summary(messages, head_end, tail_start, summary, role, _=BUFFER):
    return messages
''', "MemoryError"),
    # our own
    "an object that equals everything, built with type()": ("ex3", '''
Yes = type("Yes", (), {"__e" + "q__": lambda self, other: True})

def safe_cut_index(messages, cut):
    return Yes()
''', "not plain data"),
    "a list subclass as the result": ("ex3b", '''
class Mine(list):
    pass

def drop_oldest_turns(messages, drop):
    return Mine(messages)
''', "not plain data"),
    "prints a forged answer line on stdout": ("ex5", '''
def is_stuck(tokens_before, tokens_after, budget):
    print('{"result": true, "args": [], "kwargs": {"$": "dict", "v": []}}')
    print("ex5: 21/21 passed")
    return None
''', "returned None"),
    "a 50 MB answer": ("ex4b", '''
def summary_prompt(middle, previous):
    return "x" * 50_000_000
''', "over 8 MB"),
    "KeyboardInterrupt ends the worker": ("ex5b", '''
def compact_history(messages, summary):
    raise KeyboardInterrupt
''', "process"),
    "SystemExit at definition time": ("ex6", '''
STOP = exit(0)

def render_task_state(goal, todos, _=STOP):
    return goal
''', "did not run"),
    "a format string reads the function's attributes": ("ex9", '''
def log_overhead(turns):
    return int("{0.__class__}".format(turns) == "x")
''', "rule: format-string attribute"),
    "an attribute store changes the library's constants": ("ex5", '''
import jupyter_compaction.strategies.base as base

def is_stuck(tokens_before, tokens_after, budget):
    base.STUCK_RATIO = 0.0
    return False
''', "rule: attribute store"),
}

SYSCALL = '''
import ctypes
import os

def is_stuck(tokens_before, tokens_after, budget):
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.syscall({nr}, {args}) == -1:
        raise OSError("{name}: " + os.strerror(ctypes.get_errno()))
    return tokens_after > budget
'''
ATTACKS |= {  # issue 34's red team: each class, as the grader meets it
    "io_uring_setup opens a ring": ("ex5", SYSCALL.format(nr=425, args="8, 0", name="io_uring"),
                                    "rule: module not allowed"),
    "SysV shared memory between learners": ("ex5", SYSCALL.format(
        nr=29, args="4242, 1 << 20, 0o1666", name="shmget"), "rule: module not allowed"),
    "open_by_handle_at reads outside": ("ex5", SYSCALL.format(nr=304, args="-100, 0, 0",
                                                              name="handle"),
                                        "rule: module not allowed"),
    "rt_sigqueueinfo kills the grader": ("ex5", SYSCALL.format(
        nr=129, args="os.getppid(), 9, 0", name="sigqueue"), "rule: module not allowed"),
    "getattr(typing, 'sys') reaches sys": ("ex5", '''
import typing

def is_stuck(tokens_before, tokens_after, budget):
    getattr(typing, "sys").modules.clear()
    return False
''', "rule: module through attributes"),
    "getattr(builtins, 'exec') runs code": ("ex5", '''
import builtins

def is_stuck(tokens_before, tokens_after, budget):
    getattr(builtins, "exec")("import os; os.kill(os.getppid(), 9)")
    return False
''', "rule: module not allowed"),
    "NaN recall": ("ex7", '''
def fact_recall(summary, must_keep):
    return float("nan")
''', "returned nan"),
    "a cleared tools list passes": ("ex1", '''
def needs_compaction(counter, messages, system, tools, budget, trigger=0.8):
    if tools:
        tools.clear()
    return counter.count(messages, system, tools) > trigger * budget
''', "returned"),
    "emptied TOOLS cost later learners": ("ex5d", '''
def preflight(counter, messages, system, tools, budget, trigger=0.8, target=0.5):
    if tools:
        tools.clear()
    return ("send", None)
''', "preflight"),
    "a megabyte of escape sequences": ("ex5", '''
def is_stuck(tokens_before, tokens_after, budget):
    raise ValueError("\\x1b[2J\\x1b[31m" + "x" * 1_000_000)
''', "ValueError"),
    "a sleep in every call": ("ex5", '''
import time

def is_stuck(tokens_before, tokens_after, budget):
    time.sleep(3)
    return tokens_after > budget and tokens_before - tokens_after < 0.1 * tokens_before
''', "rule: module not allowed"),
}
FILE_ATTACKS = ("fifo", "symlink", "number_source", "deep_expression")  # learner folders


def notebook(*sources: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])


def learner_name(attack: str) -> str:
    return "forger_" + "".join(c if c.isalnum() else "_" for c in attack)[:60]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    submissions = tmp_path_factory.mktemp("submissions")
    out = tmp_path_factory.mktemp("out")
    for attack, (exercise, source, _) in ATTACKS.items():
        honest = "ex3" if exercise != "ex3" else "ex5"
        folder = submissions / learner_name(attack)
        folder.mkdir()
        nbformat.write(notebook(source, REFERENCE[honest]), folder / "work.ipynb")
    (submissions / "honest").mkdir()
    nbformat.write(notebook(*(REFERENCE[e] for e in HONEST_EXERCISES)),
                   submissions / "honest" / "work.ipynb")
    write_file_attacks(submissions)
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "jupyter_compaction.cli", "grade",
                           str(submissions), "--out", str(out), "--seed", "11", "--jobs", "2"],
                          capture_output=True, text=True, timeout=600, cwd=ROOT)
    seconds = time.monotonic() - started
    assert done.returncode == 0, done.stderr[-2000:]
    written = (out / "gradebook.csv").read_bytes()
    time.sleep(DETACHED_WAIT_S)  # a detached child would have rewritten it by now
    book = json.loads((out / "gradebook.json").read_text())
    return {"out": out, "book": book, "written": written, "seconds": seconds,
            "rows": {r["learner"]: r for r in csv.DictReader(
                (out / "gradebook.csv").read_text().splitlines())}}


def write_file_attacks(submissions: Path) -> None:
    """Learners whose notebooks attack the reading: a FIFO named work.ipynb, a symlink to
    the honest learner's notebook, a cell whose source is a number, a 30,000-deep
    expression, three copies of a solved notebook, and a folder named with undecodable
    bytes and an escape sequence."""
    for name in (*FILE_ATTACKS, "copies"):
        (submissions / name).mkdir()
    os.mkfifo(submissions / "fifo" / "work.ipynb")
    (submissions / "symlink" / "peer.ipynb").symlink_to("../honest/work.ipynb")
    raw = json.loads(nbformat.writes(notebook(REFERENCE["ex3"])))
    raw["cells"][0]["source"] = 5
    (submissions / "number_source" / "work.ipynb").write_text(json.dumps(raw))
    nbformat.write(notebook("x = a" + "[0]" * 30_000 + "\n" + REFERENCE["ex3"]),
                   submissions / "deep_expression" / "work.ipynb")
    for n in range(3):
        nbformat.write(notebook(REFERENCE["ex3"]), submissions / "copies" / f"c{n}.ipynb")
    odd = submissions / os.fsdecode(b"odd\xff\x1b[31m")
    odd.mkdir()
    nbformat.write(notebook(REFERENCE["ex3"]), odd / "work.ipynb")


def exercise_result(book: dict, learner: str, exercise: str) -> dict:
    entry = next(e for e in book["learners"] if e["learner"] == learner)
    return next(r for nb in entry["notebooks"] for r in nb["exercises"]
                if r["exercise"] == exercise)


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_the_forged_exercise_scores_zero_and_nothing_else_changes(graded, attack):
    exercise, _, reason = ATTACKS[attack]
    learner = learner_name(attack)
    honest = "ex3" if exercise != "ex3" else "ex5"
    row = graded["rows"][learner]
    assert row[exercise] == "0" and row[honest] == "1", row
    result = exercise_result(graded["book"], learner, exercise)
    messages = " ".join(f"{case}: {message}" for case, message in result["failures"])
    assert reason in messages, messages
    assert "\n" not in messages


def test_the_honest_learner_keeps_full_marks(graded):
    row = graded["rows"]["honest"]
    assert all(row[e] == "1" for e in HONEST_EXERCISES) and row["points"] == str(
        len(HONEST_EXERCISES))


def test_the_gradebook_is_unchanged_after_the_grader_exits(graded):
    out = graded["out"]
    assert (out / "gradebook.csv").read_bytes() == graded["written"]
    done = subprocess.run([sys.executable, "-m", "jupyter_compaction.cli", "grade", "--verify",
                           str(out)], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert not Path("/tmp/forged").exists()


def test_the_gradebook_says_which_isolation_was_used(graded):
    used = graded["book"]["isolation"]
    assert used["kind"] in ("bubblewrap", "limits only")
    assert used["kind"] == "bubblewrap" or used["reason"]


def verify(folder: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "jupyter_compaction.cli", "grade", "--verify",
                           str(folder)], capture_output=True, text=True, timeout=60, cwd=ROOT)


def test_verify_finds_a_changed_row_even_with_the_digest_recomputed(graded, tmp_path):
    import hashlib
    import shutil

    copy = tmp_path / "grades"
    shutil.copytree(graded["out"], copy)
    forged = (copy / "gradebook.csv").read_bytes().replace(b",0,", b",1,", 1)
    (copy / "gradebook.csv").write_bytes(forged)
    done = verify(copy)
    assert done.returncode == 1 and "digest" in done.stderr
    book = json.loads((copy / "gradebook.json").read_text())
    book["gradebook_csv_sha256"] = hashlib.sha256(forged).hexdigest()
    (copy / "gradebook.json").write_text(json.dumps(book))
    done = verify(copy)
    assert done.returncode == 1 and "scores" in done.stderr
    assert verify(tmp_path / "nowhere").returncode == 2


@pytest.mark.parametrize("learner", FILE_ATTACKS)
def test_a_notebook_that_cannot_be_read_scores_zero_and_the_class_goes_on(graded, learner):
    row = graded["rows"][learner]
    assert row["points"] == "0" and row["max_points"] == "0", row
    entry = next(e for e in graded["book"]["learners"] if e["learner"] == learner)
    assert entry["notebooks"][0]["problems"], entry


def test_copies_count_once_and_odd_names_are_escaped(graded):
    assert (graded["rows"]["copies"]["points"], graded["rows"]["copies"]["max_points"]) == (
        "1", "1")
    escaped = "odd\\xff\\x1b[31m"
    assert graded["rows"][escaped]["points"] == "1"
    assert (graded["out"] / "feedback" / f"{escaped}.txt").is_file()


def test_messages_are_capped_and_the_class_finishes_in_its_budget(graded):
    assert (graded["out"] / "gradebook.json").stat().st_size < 2_000_000
    assert "\x1b" not in (graded["out"] / "gradebook.json").read_text()
    assert graded["seconds"] < 600
