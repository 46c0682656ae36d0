"""The long scenario near its floor: every strategy with and without offload and dedup.

The `markdown` scenario (Python-Markdown 3.5.2, 47 files, about 49 turns) is played with
the simulated model at a budget of 8,000 tokens, task state on unless the row says so,
with `off`, `trim`, `progressive`, `summarize`, `compact`, `progressive` with the memory
tool, `trim` with the memory tool and no task state, and `trim` compacting at half the
budget down to a quarter (a trim costs no call, so it can run that often), each four
ways: as it is, with large results offloaded to files (`offload_at`, 3/16 of the budget:
AWS Strands' 1,500 tokens at 8,000), with unchanged re-reads deduplicated
(`dedup_reads`), and with both. `off` as it is stays the baseline every share is against.

For each run: tokens sent (every call's input, summary calls included), the share of
plain `off`'s, turns, repeats (tool calls repeated with the same input), compactions and
how the run ended (`Scenario.outcome`: a run the loop guard stopped is "stuck").

Each run may take twice the turns plain `off` takes (`TURNS_OVER_OFF`; 98 where `off`
takes 49) instead of the settings' 60: a run with the memory tool and no todo list reads
its memory back in a turn of its own after each compaction, so one that compacts every
few turns needs more than 60 turns while it still progresses. A run that stops
progressing is the loop guard's to stop, which the looser cap makes a stricter test: no
row should reach it.

    python benchmarks/bench_long.py [--budget N]

Prints Markdown and writes nothing; `run(variants, ways, budget)` returns the numbers.

Left out: other budgets by default (one run of the table takes a few minutes on the
shared machine; pass `--budget`), dollars, and real model behaviour: how the simulated
model reads previews and memory follows fixed rules (`models/simulated.py`,
`models/simulated_offload.py`).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

try:
    import jupyter_compaction  # noqa: F401
except ModuleNotFoundError:  # run as a script from a checkout, without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jupyter_compaction import runner, scenarios
from jupyter_compaction.settings import OFFLOAD_SHARE

BUDGET = 8_000
LONG = "markdown"
TURNS_OVER_OFF = 2  # the turn cap of each run: this many times the turns plain `off` takes
VARIANTS: dict[str, dict[str, Any]] = {
    "off": {"strategy": "off"},
    "trim": {"strategy": "trim"},
    "progressive": {"strategy": "progressive"},
    "summarize": {"strategy": "summarize"},
    "compact": {"strategy": "compact"},
    "progressive + memory tool": {"strategy": "progressive", "memory": True},
    "trim + memory tool, no task state": {"strategy": "trim", "memory": True,
                                          "task_state": False},
    "trim at 50 % / 25 %": {"strategy": "trim", "trigger": 0.5, "target": 0.25},
}
WAYS: dict[str, dict[str, Any]] = {
    "as it is": {},
    "offload": {"offload_at": OFFLOAD_SHARE},
    "dedup": {"dedup_reads": True},
    "offload + dedup": {"offload_at": OFFLOAD_SHARE, "dedup_reads": True},
}


def measure(knobs: dict[str, Any], budget: int, max_turns: int | None = None
            ) -> dict[str, Any]:
    """One run of the long scenario with `knobs` (`max_turns` None: the settings')."""
    cap = {"max_turns": max_turns} if max_turns else {}
    with runner.start(LONG, budget=budget, **knobs, **cap) as session:
        run = session.play()
        outcome = scenarios.load(LONG).outcome(run, session.agent.workspace)
    return {"sent": run.tokens_sent, "turns": run.turn, "repeats": run.repeats,
            "compactions": len(run.compactions), "outcome": outcome,
            "reason": run.error_line or ""}


def run(variants: list[str] | None = None, ways: list[str] | None = None,
        budget: int = BUDGET) -> dict[str, Any]:
    start = time.perf_counter()
    off = measure(VARIANTS["off"], budget)  # plain `off`: the denominator and the cap
    cap = TURNS_OVER_OFF * off["turns"]
    rows = [{"variant": variant, "way": way,
             **measure({**VARIANTS[variant], **WAYS[way]}, budget, cap)}
            for variant in variants or list(VARIANTS) for way in ways or list(WAYS)]
    for row in rows:
        row["share"] = row["sent"] / off["sent"]
    return {"budget": budget, "baseline": off["sent"], "max_turns": cap, "rows": rows,
            "seconds": time.perf_counter() - start}


def table(result: dict[str, Any]) -> str:
    lines = [f"`{LONG}` at a budget of {result['budget']:,} tokens, simulated model, task "
             f"state on unless the row says so; offload over {OFFLOAD_SHARE} of the budget "
             f"({int(OFFLOAD_SHARE * result['budget']):,} tokens). Share: "
             f"of plain `off`'s {result['baseline']:,} tokens sent; at most "
             f"{result['max_turns']} turns a run. Each run played once.",
             "", "| variant | way | outcome | turns | repeats | compactions | tokens sent "
                 "| share of `off` |", "|---|---|---|---:|---:|---:|---:|---:|"]
    for r in result["rows"]:
        outcome = r["outcome"] if r["outcome"] == "correct" else f"**{r['outcome']}**"
        lines.append(f"| {r['variant']} | {r['way']} | {outcome} | {r['turns']} | "
                     f"{r['repeats']} | {r['compactions']} | {r['sent']:,} | "
                     f"{r['share']:.1%} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=BUDGET, help="tokens (default 8000)")
    args = parser.parse_args(argv)
    result = run(budget=args.budget)
    print(table(result))
    print(f"\n({result['seconds']:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
