"""Compaction the model asks for, files restored after a compaction, and the memory tool.

Every bundled scenario (the long `markdown` one included) is played with the simulated
model, without task state, at a budget of 8,000 tokens, in three comparisons:

1. **who decides when**: `automatic` (the loop compacts past 80 % of the budget, the
   default) against `model-asked` (each tool round ends with a context-usage line, the
   `compact` tool is offered and the model calls it past 70 %; the loop's own trigger is
   moved to 100 %, a backstop only), both with `progressive`;
2. **restore**: `compact` (whole-history compaction, a summary each time) with
   `restore=0` and with `restore=3` (the three newest files read come back, read again,
   after each summary);
3. **memory**: `trim` (no summary at all, so what is trimmed is gone) with nothing kept
   outside the messages, with the notes file, with the memory tool, and with task state.

For each run: compactions (and the model's `compact` calls), input tokens sent (every
call, summary calls too), re-reads (tool calls repeated with the same input) and how the
run ended (`Scenario.outcome`).

    python benchmarks/bench_asked_restore.py

Prints Markdown and writes nothing; `run(quick, names)` returns the numbers (`quick`
leaves out `markdown`).

Left out: dollars (the token columns carry the comparison; lesson 5 prices them) and real
model behaviour: when the simulated model asks, what it restores and how it uses memory
follow fixed rules (`models/simulated.py`), not Claude's judgement.
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
from jupyter_compaction.asked_compaction import COMPACT_TOOL
from jupyter_compaction.events import ToolCalled

BUDGET = 8_000
LONG = "markdown"
ASK_AT = 0.7
COMPARISONS: dict[str, dict[str, dict[str, Any]]] = {
    "who decides when": {
        "automatic": {"strategy": "progressive"},
        "model-asked": {"strategy": "progressive", "usage_line": True, "compact_at": ASK_AT,
                        "trigger": 1.0},
    },
    "restore": {
        "restore off": {"strategy": "compact", "restore": 0},
        "restore 3 files": {"strategy": "compact", "restore": 3},
    },
    "memory": {
        "nothing outside": {"strategy": "trim"},
        "notes file": {"strategy": "trim", "notes": True},
        "memory tool": {"strategy": "trim", "memory": True},
        "task state": {"strategy": "trim", "task_state": True},
    },
}


def measure(scenario: str, knobs: dict[str, Any]) -> dict[str, Any]:
    settings = {"budget": BUDGET, "task_state": False, **knobs}
    with runner.start(scenario, **settings) as session:
        run = session.play()
        outcome = scenarios.load(scenario).outcome(run, session.agent.workspace)
    return {"compactions": len(run.compactions),
            "asks": sum(e.name == COMPACT_TOOL for e in run.of(ToolCalled)),
            "sent": run.tokens_sent, "rereads": run.repeats, "turns": run.turn,
            "outcome": outcome}


def run(quick: bool = False, names: list[str] | None = None) -> dict[str, Any]:
    start = time.perf_counter()
    names = names or [n for n in scenarios.names() if not (quick and n == LONG)]
    rows = [{"comparison": comparison, "variant": variant, "scenario": name,
             **measure(name, knobs)}
            for comparison, variants in COMPARISONS.items()
            for name in names for variant, knobs in variants.items()]
    return {"quick": quick, "budget": BUDGET, "rows": rows,
            "seconds": time.perf_counter() - start}


def table(result: dict[str, Any]) -> str:
    lines = [f"Budget {result['budget']:,} tokens, no task state unless the row says so, "
             f"simulated model; each run played once (the machine is shared). Re-reads are "
             f"tool calls repeated with the same input; tokens sent count every call's input, "
             f"summary calls included."]
    for comparison in COMPARISONS:
        lines += ["", f"**{comparison.capitalize()}**", "",
                  "| scenario | variant | compactions | model's compact calls | tokens sent | "
                  "re-reads | turns | outcome |",
                  "|---|---|---:|---:|---:|---:|---:|---|"]
        for r in result["rows"]:
            if r["comparison"] != comparison:
                continue
            outcome = r["outcome"] if r["outcome"] == "correct" else f"**{r['outcome']}**"
            lines.append(f"| {r['scenario']} | {r['variant']} | {r['compactions']} | "
                         f"{r['asks']} | {r['sent']:,} | {r['rereads']} | {r['turns']} | "
                         f"{outcome} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="leave out the long scenario")
    args = parser.parse_args(argv)
    print(table(run(quick=args.quick)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
