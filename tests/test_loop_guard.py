"""The loop guard: windows between compactions that learn nothing, in a row, stop a run."""

from jupyter_compaction import scenarios
from jupyter_compaction.agent import Agent
from jupyter_compaction.api_context import compact_edit
from jupyter_compaction.events import Failed
from jupyter_compaction.loop_guard import (
    STALE_WINDOWS,
    THRASH_WINDOWS,
    LoopGuard,
    pairs,
)
from jupyter_compaction.models.simulated import SimulatedModel
from jupyter_compaction.server_compaction import ServerCompactingModel
from tests.support.scripted import Looping


def turn(n: int, path: str, output: str, error: bool = False) -> tuple[dict, dict]:
    """One assistant call to read `path` and the user message answering it."""
    use = {"type": "tool_use", "id": f"t{n}", "name": "read_file", "input": {"path": path}}
    result = {"type": "tool_result", "tool_use_id": f"t{n}", "content": output,
              "is_error": error}
    return {"role": "assistant", "content": [use]}, {"role": "user", "content": [result]}


def play(guard: LoopGuard, windows: list[list[tuple[str, str]]]) -> list[str | None]:
    """Feed `guard` one window per list (a compaction before each but the first)."""
    said, n = [], 0
    for compactions, window in enumerate(windows):
        for path, output in window:
            n += 1
            said.append(guard.check(*turn(n, path, output), compactions))
    return said


def test_the_same_calls_with_the_same_results_after_each_compaction_stop_the_run():
    cycle = [("a.md", "A"), ("b.md", "B")]
    said = play(LoopGuard(), [cycle] * (STALE_WINDOWS + 2))
    first = next(n for n, reason in enumerate(said) if reason)
    assert first == len(cycle) * (STALE_WINDOWS + 1)  # the window after the stale ones
    assert "stuck in a loop" in said[first] and "same results" in said[first]
    assert "2 distinct calls" in said[first]


def test_a_window_that_learns_something_resets_the_count():
    cycle = [("a.md", "A"), ("b.md", "B")]
    windows = [cycle, cycle, [*cycle, ("c.md", "C")], *[cycle] * STALE_WINDOWS]
    assert not any(play(LoopGuard(), windows))  # stopped only after the next stale window
    assert play(LoopGuard(), [*windows, cycle])[-1]


def test_a_changed_result_or_an_error_is_something_new():
    changed = [[("a.md", f"A{n}")] for n in range(STALE_WINDOWS + 3)]
    assert not any(play(LoopGuard(), changed))
    guard = LoopGuard()
    guard.check(*turn(1, "a.md", "A"), 0)
    assert pairs(*turn(2, "a.md", "A", error=True)) != pairs(*turn(1, "a.md", "A"))


def test_windows_out_of_phase_with_the_cycle_are_caught_too():
    # a cycle of three calls, compacted every two calls: each window holds other calls,
    # and from the third on each only repeats what was done before
    order = [("a.md", "A"), ("b.md", "B"), ("c.md", "C")] * 4
    said = play(LoopGuard(), [order[n:n + 2] for n in range(0, len(order), 2)])
    assert next(n for n, reason in enumerate(said) if reason) == 2 * (2 + STALE_WINDOWS)


def test_compactions_without_calls_between_them_do_not_count():
    guard = LoopGuard()
    guard.check(*turn(1, "a.md", "A"), 0)
    for compactions in range(1, 6):  # compacted again and again, nothing called
        assert guard.check({"role": "assistant", "content": []},
                           {"role": "user", "content": []}, compactions) is None
    assert guard.stale == []


def test_without_compaction_the_guard_never_stops_a_run():
    said = play(LoopGuard(), [[("a.md", "A"), ("b.md", "B")] * 20])
    assert not any(said)  # the model's own rule handles repeats in a row


def cycler() -> Looping:
    """A model that reads the same three files round and round, forever."""
    return Looping([("read", {"path": path}) for path in ("b.md", "c.md", "a.md")])


def read(path: str) -> str:
    """Read a file."""
    return f"{path}: " + "lorem ipsum " * 150


def test_the_agent_stops_a_cycling_run_as_stuck_long_before_max_turns():
    agent = Agent(cycler(), tools=[read], budget=1500, strategy="trim", task_state=False)
    run = agent.run("Read a.md, b.md and c.md.", max_turns=60)
    failure = run.of(Failed)[-1]
    assert run.status == "failed" and failure.reason == "stuck" and run.turn < 20
    assert "stuck in a loop" in run.error and len(run.compactions) > STALE_WINDOWS
    run.scenario = "markdown"
    assert scenarios.load("markdown").outcome(run) == "stuck"


def test_a_resumed_run_gets_its_windows_afresh():
    agent = Agent(cycler(), tools=[read], budget=1500, strategy="trim", task_state=False)
    run = agent.run("Read a.md, b.md and c.md.", max_turns=60)
    stopped = run.turn
    agent.resume(run, max_turns=60)
    assert run.of(Failed)[-1].reason == "stuck" and run.turn > stopped + 1


def test_progress_that_re_reads_half_as_much_again_each_window_is_thrashing():
    """Each window reads two new files and one it read before (THRASH_SHARE of two is
    one): progress, but thrashing; windows that together re-read less are not."""
    def window(n: int, again: int) -> list[tuple[str, str]]:
        return [(f"new{n}a.md", "A"), (f"new{n}b.md", "B"),
                *[(f"new{n - 1}a.md", "A")] * again]

    said = play(LoopGuard(), [window(n, 1) for n in range(THRASH_WINDOWS + 2)])
    first = next(n for n, reason in enumerate(said) if reason)
    assert first == 3 * (THRASH_WINDOWS + 1)  # the first turn after the third such (the
    # first window's re-read is of a file never read: all new)
    assert "thrashing" in said[first] and "read_file path=new0a.md" in said[first]
    guard = LoopGuard()
    play(guard, [window(n, 1) for n in range(THRASH_WINDOWS + 2)])
    guard.afresh()  # a resumed run: judged anew, from its next window on
    assert guard.check(*turn(99, "new99.md", "N"), THRASH_WINDOWS + 2) is None
    calm = [window(n, 1 if n % 3 else 0) for n in range(3 * THRASH_WINDOWS)]
    assert not any(play(LoopGuard(), calm))  # any three in a row: 2 again for 6 new


def state_turn(n: int, name: str, args: dict, output: str) -> tuple[dict, dict]:
    use = {"type": "tool_use", "id": f"s{n}", "name": name, "input": args}
    result = {"type": "tool_result", "tool_use_id": f"s{n}", "content": output}
    return {"role": "assistant", "content": [use]}, {"role": "user", "content": [result]}


def test_a_growing_notes_file_with_only_repeated_reads_is_stopped():
    """Each window re-reads a.md, writes the same finding again and reads the notes back
    (longer each time): no progress, so the guard stops it and names the re-read."""
    guard, notes, said = LoopGuard(), "", []
    for compactions in range(STALE_WINDOWS + 2):
        notes += "- a = 1\n"
        for n, (name, args, output) in enumerate([
                ("read_file", {"path": "a.md"}, "a = 1"),
                ("write_note", {"text": "a = 1"}, "Noted in NOTES.md."),
                ("read_notes", {}, notes)]):
            said.append(guard.check(*state_turn(10 * compactions + n, name, args, output),
                                    compactions))
    reason = next(r for r in said if r)
    assert said.index(reason) == 3 * (STALE_WINDOWS + 1)
    assert "read_file path=a.md" in reason and "read_notes" in reason
    assert "write_note" not in reason and "nothing new to its task state, memory" in reason


def test_a_new_line_written_or_a_new_read_is_progress():
    guard = LoopGuard()
    for compactions in range(STALE_WINDOWS + 3):
        for n, (name, args, output) in enumerate([
                ("read_file", {"path": "a.md"}, "a = 1"),
                ("memory", {"command": "insert", "path": "/memories/f.md", "insert_line": 0,
                            "insert_text": f"- step {compactions}\n"}, "inserted")]):
            assert guard.check(*state_turn(10 * compactions + n, name, args, output),
                               compactions) is None


def test_a_deduplicated_re_read_is_a_repeat():
    guard = LoopGuard()
    guard.check(*turn(1, "a.md", "A"), 0)
    said = [guard.check(*turn(n, "a.md", f"[unchanged since turn {n}: the same call's "
                                         "result is still in the context above]"), n)
            for n in range(2, STALE_WINDOWS + 4)]
    assert any(said)


def note_taker() -> Looping:
    """Reads the same file and writes the same finding to its notes, round and round."""
    return Looping([("write_note", {"text": "a.md: lorem"}), ("read_notes", {}),
                    ("read", {"path": "a.md"})])


def test_the_agent_stops_a_note_taking_loop(tmp_path):
    from jupyter_compaction.workspace import Workspace

    agent = Agent(note_taker(), tools=[read], budget=1500, strategy="trim", task_state=False,
                  notes=True, workspace=Workspace(tmp_path))
    run = agent.run("Read a.md.", max_turns=60)
    assert run.status == "failed" and run.of(Failed)[-1].reason == "stuck" and run.turn < 30
    assert "read path=a.md" in run.error
    assert (tmp_path / "NOTES.md").read_text().count("a.md: lorem") > 2  # the file grew


def test_re_reading_an_offloaded_file_into_a_new_file_each_time_is_a_repeat():
    """Each read of a.md is offloaded to a file of its own and searched: the previews
    differ only in their path, so the windows make no progress."""
    from jupyter_compaction.vocab import offload_head

    guard, said = LoopGuard(), []
    for window in range(STALE_WINDOWS + 2):
        path = f"offloaded/t{window}.txt"
        preview = f"{offload_head('read_file path=a.md', 900, 90, path)}\nFirst 1 lines:\n# a"
        for n, (name, args, output) in enumerate([
                ("read_file", {"path": "a.md"}, preview),
                ("search_offloaded", {"path": path, "pattern": "^x"}, "1 of 90 lines")]):
            said.append(guard.check(*state_turn(10 * window + n, name, args, output), window))
    assert said[-2] and "read_file path=a.md" in said[-2]


def test_the_apis_own_compactions_close_the_guards_windows(tmp_path):
    """Lesson 10's lossy server compaction (the API's prompt drops the files' values) used to
    re-read to max_turns: the guard counted only the agent's own compactions."""
    spec = scenarios.load("markdown")
    workspace = spec.prepare(tmp_path / "markdown")
    model = ServerCompactingModel(SimulatedModel("markdown"), [compact_edit(50_000)])
    agent = Agent(model, tools=spec.tools(workspace), workspace=workspace, strategy="off",
                  budget=1_000_000, task_state=False, max_turns=120)
    run = agent.run(spec.task)
    assert run.compactions == [] and run.breaker.api_compactions > STALE_WINDOWS
    assert run.status == "failed" and run.error.startswith("stuck in a loop") and run.turn < 120
