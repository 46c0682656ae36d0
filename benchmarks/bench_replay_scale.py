"""Does loading and replaying a real session cost time and memory in proportion to its size?

Real Claude Code sessions run to many thousands of entries. This script scales the
bundled real session (`sessions/data/full_compacted.jsonl`, 279 messages, one compaction)
to 1 k, 5 k and 50 k messages by chaining copies of it: each copy's ids, message ids and
timestamps are made unique, its first entry's parent is the previous copy's newest entry,
and every text and tool output gets a copy mark, so no tokenizer cache makes a later copy
cheaper than the first. The published log's one missing parent is kept in every copy, so
parent bridging is exercised too. A fourth file is a small session with one 50 MB tool
output.

Each file is measured in its own subprocess (so its peak memory is its own):
`sessions.load` time, `replay.replay` time (default strategy and budget, offline
summaries) and the peak resident memory the two add over a process that has already
loaded the tokenizer (on Linux the peak is reset after that loading). The goals (issue 22):

- replay time 50 k ÷ 1 k at most `RATIO_GOAL` (50 would be exactly linear);
- 50 k messages load within `LOAD_GOAL_S` and replay within `REPLAY_GOAL_S`;
- peak memory at most `MEMORY_GOAL_X` times the file's size;
- the 50 MB output loads and replays within `BIG_OUTPUT_GOAL_S`.

    python benchmarks/bench_replay_scale.py [--quick]

`--quick` measures 300 and 1 000 messages and a 5 MB output instead. Prints a Markdown
table; writes the scaled files to a temporary folder it deletes. `run(quick)` returns the
numbers. One run on a shared machine: read the ratios, not the seconds.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

try:
    import jupyter_compaction  # noqa: F401
except ModuleNotFoundError:  # run as a script from a checkout, without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jupyter_compaction import sessions  # noqa: E402

SIZES = {"full": (1_000, 5_000, 50_000), "quick": (300, 1_000)}
BIG_OUTPUT_MB = {"full": 50, "quick": 5}
RATIO_GOAL = 60
LOAD_GOAL_S = 15
REPLAY_GOAL_S = 60
MEMORY_GOAL_X = 3
BIG_OUTPUT_GOAL_S = 10
SOURCE = "full_compacted.jsonl"
SMALL = "tool_heavy.jsonl"
CHILD_TIMEOUT_S = 1_800


def _source(name: str) -> Path:
    return next(p for p in sessions.shipped() if p.name == name)


def _marked(content: Any, mark: str, suffix: str) -> Any:
    """Message content with `mark` after every text and tool ids made unique by `suffix`."""
    if isinstance(content, str):
        return content + mark
    if not isinstance(content, list):
        return content
    out = []
    for block in content:
        if not isinstance(block, dict):
            out.append(block)
            continue
        block = dict(block)
        if isinstance(block.get("text"), str):
            block["text"] += mark
        for key in ("id", "tool_use_id"):
            if isinstance(block.get(key), str):
                block[key] += suffix
        if "content" in block:
            block["content"] = _marked(block["content"], mark, suffix)
        out.append(block)
    return out


def _copy(entry: dict[str, Any], k: int) -> dict[str, Any]:
    suffix = f"-c{k}"
    e = dict(entry)
    for key in ("uuid", "parentUuid", "logicalParentUuid"):
        if isinstance(e.get(key), str):
            e[key] += suffix
    if isinstance(e.get("timestamp"), str):
        e["timestamp"] = f"{k:05d}/{e['timestamp']}"
    if isinstance(e.get("message"), dict):
        message = dict(e["message"])
        if isinstance(message.get("id"), str):
            message["id"] += suffix
        message["content"] = _marked(message.get("content"), f" [copy {k}]", suffix)
        e["message"] = message
    return e


def scaled_lines(messages: int) -> Iterator[str]:
    """The JSONL lines of the bundled session chained to about `messages` messages."""
    entries = [json.loads(line) for line in _source(SOURCE).read_text().splitlines()]
    per_copy = sum(len(s) for s in sessions.load(_source(SOURCE)).segments)
    root = next(e for e in entries if e.get("parentUuid") is None and "uuid" in e)
    newest = max((e for e in entries if e.get("type") in ("user", "assistant")),
                 key=lambda e: e.get("timestamp", ""))
    for k in range(math.ceil(messages / per_copy)):
        for e in entries:
            copied = _copy(e, k)
            if k and e is root:
                copied["parentUuid"] = f"{newest['uuid']}-c{k - 1}"
            yield json.dumps(copied)


def big_output_lines(megabytes: int) -> Iterator[str]:
    """A small real session whose first tool output is `megabytes` MB of varied lines."""
    lines, size = [], 0
    while size < megabytes * 2**20:
        n = len(lines)
        lines.append(f"{n:08d} status={n * 7919 % 100_003} path=src/mod_{n % 97}.py\n")
        size += len(lines[-1])
    body = "".join(lines)
    done = False
    for line in _source(SMALL).read_text().splitlines():
        entry = json.loads(line)
        content = (entry.get("message") or {}).get("content")
        if not done and isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    block["content"], done = body, True
                    break
        yield json.dumps(entry)


def _peak_rss() -> int:
    """This process's peak resident memory in bytes since `_reset_peak()` (Linux's
    VmHWM), or since it started where that cannot be reset."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _resident() -> int:
    statm = Path("/proc/self/statm")
    if statm.exists():
        return int(statm.read_text().split()[1]) * resource.getpagesize()
    return _peak_rss()


def _reset_peak() -> None:
    """Start the peak over from the memory now held (Linux: "5" in clear_refs), so the
    tokenizer's one-time loading peak is not mistaken for the session's."""
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


def measure(path: Path) -> dict[str, Any]:
    """Load and replay `path` here; times and the peak memory they add (in this process)."""
    from jupyter_compaction.replay import replay
    from jupyter_compaction.tokens import TokenCounter

    counter = TokenCounter()
    counter.count_text("warm up the tokenizer")
    _reset_peak()
    base = _resident()
    start = time.perf_counter()
    session = sessions.load(path)
    loaded = time.perf_counter()
    result = replay(session, counter=counter)
    done = time.perf_counter()
    return {"messages": sum(len(s) for s in session.segments), "calls": len(result.turns),
            "compactions": len(result.compactions), "bytes": path.stat().st_size,
            "load_s": loaded - start, "replay_s": done - loaded,
            "memory_x": (_peak_rss() - base) / path.stat().st_size}


def _in_child(path: Path) -> dict[str, Any]:
    done = subprocess.run([sys.executable, __file__, "--measure", str(path)], check=True,
                          capture_output=True, text=True, timeout=CHILD_TIMEOUT_S)
    return json.loads(done.stdout)


def run(quick: bool = False) -> dict[str, Any]:
    mode = "quick" if quick else "full"
    rows: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="replay-scale-") as folder:
        for size in SIZES[mode]:
            path = Path(folder) / f"scaled-{size}.jsonl"
            with path.open("w") as out:
                out.writelines(line + "\n" for line in scaled_lines(size))
            rows[f"{size} messages"] = _in_child(path)
            path.unlink()
        big = Path(folder) / "big-output.jsonl"
        big.write_text("\n".join(big_output_lines(BIG_OUTPUT_MB[mode])) + "\n")
        rows[f"one {BIG_OUTPUT_MB[mode]} MB output"] = _in_child(big)
    small, large = (rows[f"{n} messages"] for n in (SIZES[mode][0], SIZES[mode][-1]))
    big_row = rows[f"one {BIG_OUTPUT_MB[mode]} MB output"]
    return {"mode": mode, "rows": rows,
            "replay_ratio": large["replay_s"] / small["replay_s"],
            "size_ratio": large["messages"] / small["messages"],
            "goals": {"ratio": RATIO_GOAL, "load_s": LOAD_GOAL_S, "replay_s": REPLAY_GOAL_S,
                      "memory_x": MEMORY_GOAL_X, "big_output_s": BIG_OUTPUT_GOAL_S},
            "met": {"ratio": large["replay_s"] / small["replay_s"] <= RATIO_GOAL,
                    "load_s": large["load_s"] <= LOAD_GOAL_S,
                    "replay_s": large["replay_s"] <= REPLAY_GOAL_S,
                    "memory_x": all(r["memory_x"] <= MEMORY_GOAL_X for r in rows.values()),
                    "big_output_s": big_row["load_s"] + big_row["replay_s"]
                    <= BIG_OUTPUT_GOAL_S}}


def table(result: dict[str, Any]) -> str:
    lines = ["| session | messages | calls | compactions | MB | load s | replay s | "
             "peak memory / file |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name, r in result["rows"].items():
        lines.append(f"| {name} | {r['messages']} | {r['calls']} | {r['compactions']} | "
                     f"{r['bytes'] / 2**20:.1f} | {r['load_s']:.2f} | {r['replay_s']:.2f} | "
                     f"{r['memory_x']:.2f}x |")
    lines.append("")
    lines.append(f"replay time, largest / smallest: {result['replay_ratio']:.1f}x for "
                 f"{result['size_ratio']:.1f}x the messages (goal: at most {RATIO_GOAL}x "
                 "for 50x)")
    lines.append("goals met: " + ", ".join(f"{k} {'yes' if v else 'NO'}"
                                           for k, v in result["met"].items()))
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure)))
        return
    print(table(run(args.quick)))


if __name__ == "__main__":
    main()
