"""How often does the engine compact, and how far down? Before and after the engine issue.

Every short bundled scenario (all but the long `markdown` one) is played by the simulated
model at 6,000 tokens with each compacting strategy (`trim`, `summarize`, `compact`,
`progressive`) and with `off` as the reference. For each run:

- turns, and compactions (the `Compaction`s the run accepted);
- the share of turns that compact (turns with a `Compacted` event / turns): the goal is
  at most half;
- the share of those compactions whose request then fits in 60 % of the budget (the
  `TurnStarted` of the same turn): the goal is most of them;
- input tokens sent (every call, summary calls included) as a share of `off`'s;
- summary calls (`Run.summary_usage`), and how the run ended (`correct` when it finished
  with the scenario's right answer).

Then each short scenario is played with `summarize` and a summarizer that fails (it
raises) or is useless (its summary is longer than its input), without task state, so
only what the engine keeps when trimming stands in can carry the facts: how the run
ended, its turns, its repeated tool calls, and how often the summarizer was called.

The script reads only what the engine before the issue (commit 7e13659) also has:
`runner.play(scenario, budget=..., strategy=..., task_state=..., summarizer=...)`,
`Run.turn`, `Run.compactions`, `Run.tokens_sent`, `Run.summary_usage`, `Run.repeats`,
and the `Compacted` and `TurnStarted` events. So
the same script measures both engines; the "before" numbers come from a checkout of the
old commit (the simulated model changed between the two commits too, so a difference
is the engine's and the model's together):

    git worktree add /tmp/old 7e13659
    PYTHONPATH=/tmp/old python benchmarks/bench_engine.py --json benchmarks/engine_before.json
    python benchmarks/bench_engine.py --before benchmarks/engine_before.json

Without `--before` it prints this engine's table; with it, the before/after table. `run.py`
shows the before/after table when `benchmarks/engine_before.json` exists.
`run(quick)` returns the numbers (`quick` changes nothing: the runs take a second).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

try:
    import jupyter_compaction  # noqa: F401
except ModuleNotFoundError:  # run as a script from a checkout, without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import jupyter_compaction  # noqa: E402
from jupyter_compaction import scenarios  # noqa: E402
from jupyter_compaction.events import Compacted, TurnStarted  # noqa: E402
from jupyter_compaction.runner import play  # noqa: E402

BUDGET = 6_000
STRATEGIES = ("off", "trim", "summarize", "compact", "progressive")
LONG = "markdown"  # compacts every other turn at this budget by design (see test_target.py)
FAULTY = ("failing", "useless")  # summarizers that raise, or answer longer than asked
LOW_SHARE = 0.6  # a compaction "lands low" when the request then fits in this share
MOST_TURNS = 0.5  # goal: compact on at most this share of the turns
BEFORE = Path(__file__).resolve().parent / "engine_before.json"
OLD_COMMIT = "7e13659"


def engine() -> str:
    """Which checkout is measured: the short commit of the imported package's repository."""
    where = Path(jupyter_compaction.__file__).resolve().parent
    try:
        done = subprocess.run(["git", "-C", str(where), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return done.stdout.strip() or "unknown"


def measure(scenario: str, strategy: str) -> dict[str, Any]:
    """One run at `BUDGET`, reduced to the numbers of the table."""
    start = time.perf_counter()
    run = play(scenario, budget=BUDGET, strategy=strategy)
    compacted = {e.turn for e in run.of(Compacted)}
    tokens_at = {e.turn: e.tokens for e in run.of(TurnStarted)}
    low = [t for t in compacted if tokens_at.get(t, BUDGET) <= LOW_SHARE * BUDGET]
    correct = run.status == "finished" and scenarios.load(scenario).is_correct(run.answer or "")
    return {
        "scenario": scenario,
        "strategy": strategy,
        "turns": run.turn,
        "compactions": len(run.compactions),
        "compacting_turns": len(compacted),
        "compact_share": len(compacted) / max(run.turn, 1),
        "low_share": len(low) / len(compacted) if compacted else None,
        "tokens_sent": run.tokens_sent,
        "summary_calls": len(run.summary_usage),
        "status": "correct" if correct else run.status,
        "seconds": time.perf_counter() - start,
    }


def measure_faulty(scenario: str, kind: str) -> dict[str, Any]:
    """One `summarize` run at `BUDGET`, no task state, with a `kind` summarizer."""
    calls = []

    def summarizer(prompt: str) -> str:
        calls.append(prompt)
        if kind == "failing":
            raise RuntimeError("summary service down")
        return prompt + prompt

    run = play(scenario, budget=BUDGET, strategy="summarize", task_state=False,
               summarizer=summarizer)
    correct = run.status == "finished" and scenarios.load(scenario).is_correct(run.answer or "")
    return {"scenario": scenario, "summarizer": kind, "turns": run.turn,
            "repeats": run.repeats, "summary_calls": len(calls),
            "status": "correct" if correct else run.status}


def run(quick: bool = False) -> dict[str, Any]:
    """Every short scenario x every strategy (`sent_over_off` against the same scenario),
    then x every faulty summarizer."""
    rows, faulty = [], []
    for scenario in [n for n in scenarios.names() if n != LONG]:
        runs = [measure(scenario, strategy) for strategy in STRATEGIES]
        off = runs[0]["tokens_sent"]
        rows += [{**r, "sent_over_off": r["tokens_sent"] / off} for r in runs]
        faulty += [measure_faulty(scenario, kind) for kind in FAULTY]
    return {"engine": engine(), "budget": BUDGET, "rows": rows, "faulty": faulty}


# --- the tables ------------------------------------------------------------------------


def _pct(share: float | None) -> str:
    return "-" if share is None else f"{share:.0%}"


def _cells(row: dict[str, Any]) -> list[str]:
    return [f"{row['compactions']} / {row['turns']}", _pct(row["compact_share"]),
            _pct(row["low_share"]), _pct(row["sent_over_off"]), str(row["summary_calls"]),
            row["status"]]


COLUMNS = ("compactions / turns", "turns compacting", "landing <= 60 %", "tokens vs off",
           "summary calls", "status")


def _key(row: dict[str, Any]) -> tuple[str, str]:
    return row["scenario"], row.get("strategy") or row["summarizer"]


def _faulty_cells(row: dict[str, Any]) -> list[str]:
    return [row["status"], str(row["turns"]), str(row["repeats"]), str(row["summary_calls"])]


FAULTY_COLUMNS = ("status", "turns", "repeated calls", "summary calls")


def table(result: dict[str, Any]) -> str:
    """What `run.py` shows: before -> after when `engine_before.json` exists."""
    before = json.loads(BEFORE.read_text(encoding="utf-8")) if BEFORE.exists() else None
    return render(result, before)


def _rows(rows: list[dict[str, Any]], old: list[dict[str, Any]], cells, columns,
          second: str) -> list[str]:
    """A Markdown table of `rows`, each cell shown as before -> after where `old` differs."""
    was = {_key(r): r for r in old}
    lines = ["| " + " | ".join(["scenario", second, *columns]) + " |",
             "|" + "---|" * (len(columns) + 2)]
    for row in rows:
        now = cells(row)
        if _key(row) in was:
            now = [a if a == b else f"{a} -> {b}"
                   for a, b in zip(cells(was[_key(row)]), now, strict=True)]
        lines.append(f"| {row['scenario']} | {_key(row)[1]} | " + " | ".join(now) + " |")
    return lines


def render(result: dict[str, Any], before: dict[str, Any] | None) -> str:
    """Markdown: this engine's tables, or (given `before`) each number as before -> after."""
    old = before or {}
    lines = [f"Budget {result['budget']:,} tokens, simulated model, engine at "
             f"`{result['engine']}`"
             + (f", before: engine at `{before['engine']}` (each cell before -> after)."
                if before else "."), "",
             *_rows(result["rows"], old.get("rows", []), _cells, COLUMNS, "strategy"),
             "", _verdict(result["rows"])]
    if result.get("faulty"):
        lines += ["", "`summarize` with a summarizer that fails or is useless (its summary "
                  "is longer than its input), no task state:", "",
                  *_rows(result["faulty"], old.get("faulty", []), _faulty_cells,
                         FAULTY_COLUMNS, "summarizer")]
    if before:
        lines += ["", "The simulated model changed between the two commits too (`off`, "
                  "which never compacts, shows how its turns changed), so a difference is "
                  "the engine's and the model's together."]
    return "\n".join(lines)


def _verdict(rows: list[dict[str, Any]]) -> str:
    """The engine issue's goal, checked on this run's rows."""
    compacting = [r for r in rows if r["strategy"] != "off"]
    missed = [f"{r['scenario']}/{r['strategy']}" for r in compacting
              if not (0 < r["compact_share"] <= MOST_TURNS and (r["low_share"] or 0) > 0.5
                      and r["status"] == "correct")]
    return ("Goal (every compacting run correct, compacting on at most half its turns, most "
            "compactions landing at <= 60 % of the budget): "
            + ("met on every run." if not missed else "missed on " + ", ".join(missed) + "."))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="also write the numbers to this file")
    parser.add_argument("--before", type=Path,
                        help="numbers of the old engine (a --json file): show before -> after")
    parser.add_argument("--quick", action="store_true", help="accepted; changes nothing")
    args = parser.parse_args(argv)
    result = run(args.quick)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    before = json.loads(args.before.read_text(encoding="utf-8")) if args.before else None
    print(render(result, before))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
