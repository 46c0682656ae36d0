"""Who writes the summary, and what does it cost? `aux` vs `same` on every short scenario.

Every bundled short scenario is played at a 6,000-token budget with the `summarize` and
the `compact` strategy (no task state, simulated model), three times, differing only in
who writes the summaries:

- `aux, same model`: `summarizer="aux"`, a separate minimal request (own one-line system
  prompt, no tools, the summary prompt with a transcript of the turns) to the agent's own
  model, caching off; priced as the agent's model.
- `aux, Haiku`: the same request sent to a second model object, priced as a cheaper model.
- `same (append)`: `summarizer="same"`, the request appended to the live history's last
  user message and sent with the agent's system prompt and tools, caching on (seed 002).

For the summary calls of each run: calls, input tokens split into uncached / cache write /
cache read, output tokens and dollars; and the whole run's dollars (every main call too,
priced as the agent's model). The agent's model is priced as Claude Sonnet ($3 / $15 per
million input / output tokens), the cheaper one as Claude Haiku ($1 / $5); a cache write
costs 1.25x and a cache read 0.1x the input price. Cache reads are what the simulated model
reports: the leading whole messages (with the system prompt and tools) that are identical
to its previous cached request's, which is the prefix Anthropic's breakpoint on that
request's last message would have stored. "summaries as aux" says whether the run's
summaries are word for word those of the `aux, same model` run: the three designs must
differ in price, not in what they write.

    python benchmarks/bench_summarizer_cost.py

Prints Markdown and writes nothing; `run(quick, names)` returns the numbers (`quick` is
accepted for `run.py` and changes nothing: the whole benchmark takes seconds).

Left out: the long scenario (its summaries need many more turns to pay off) and real
model prices or behaviour (the simulated model is a reader with fixed rules, not Claude).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any, NamedTuple

try:
    import jupyter_compaction  # noqa: F401
except ModuleNotFoundError:  # run as a script from a checkout, without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jupyter_compaction import scenarios
from jupyter_compaction.models.simulated import SimulatedModel
from jupyter_compaction.pricing import CACHE_READ_FACTOR, CACHE_WRITE_FACTOR, dollars
from jupyter_compaction.runner import play

BUDGET = 6_000
STRATEGIES = ("summarize", "compact")
LONG = "markdown"  # left out (see the docstring)


class Price(NamedTuple):
    """A model's list prices, dollars per million tokens (cache prices follow `pricing`)."""

    name: str
    prices: dict[str, float]


SONNET = Price("Claude Sonnet", {"input": 3.00, "output": 15.00})  # the agent's model
HAIKU = Price("Claude Haiku", {"input": 1.00, "output": 5.00})  # the cheaper auxiliary model
DESIGNS = ("aux, same model", "aux, Haiku", "same (append)")


def summarizer_for(design: str, scenario: str) -> tuple[Any, Price]:
    """The `summarizer` setting of a design and the price of the model that answers it."""
    if design == "aux, Haiku":
        return SimulatedModel(scenario, cache=False), HAIKU
    return ("same" if design == "same (append)" else "aux"), SONNET


def measure(scenario: str, strategy: str, design: str) -> dict[str, Any]:
    spec, price = summarizer_for(design, scenario)
    run = play(scenario, budget=BUDGET, strategy=strategy, task_state=False, summarizer=spec)
    calls = run.summary_usage
    summary_cost = dollars(calls, price.prices)
    return {
        "scenario": scenario, "strategy": strategy, "design": design,
        "status": run.status,
        "correct": bool(run.answer) and scenarios.load(scenario).is_correct(run.answer),
        "calls": len(calls),
        "uncached": sum(u.input_tokens for u in calls),
        "cache_write": sum(u.cache_creation_input_tokens for u in calls),
        "cache_read": sum(u.cache_read_input_tokens for u in calls),
        "output": sum(u.output_tokens for u in calls),
        "summary_dollars": summary_cost,
        "run_dollars": dollars(run.usage, SONNET.prices) + summary_cost,
        "summaries": [c.summary for c in run.compactions if c.summary],
    }


def run(quick: bool = False, names: list[str] | None = None) -> dict[str, Any]:
    start = time.perf_counter()
    names = names or [n for n in scenarios.names() if n != LONG]
    rows = []
    for scenario in names:
        for strategy in STRATEGIES:
            group = [measure(scenario, strategy, d) for d in DESIGNS]
            reference = group[0]["summaries"]
            for row in group:
                row["same_summaries"] = row.pop("summaries") == reference
            rows += group
    totals = {}
    for strategy in STRATEGIES:
        for design in DESIGNS:
            mine = [r for r in rows if r["strategy"] == strategy and r["design"] == design]
            totals[f"{strategy} / {design}"] = {
                key: sum(r[key] for r in mine) for key in
                ("calls", "uncached", "cache_write", "cache_read", "output", "summary_dollars",
                 "run_dollars")}
    return {"quick": quick, "budget": BUDGET, "rows": rows, "totals": totals,
            "seconds": time.perf_counter() - start}


def _row(label: str, r: dict[str, Any]) -> str:
    return (f"| {label} | {r['calls']} | {r['uncached']:,} | {r['cache_write']:,} | "
            f"{r['cache_read']:,} | {r['output']:,} | {r['summary_dollars']:.4f} | "
            f"{r['run_dollars']:.4f} |")


def table(result: dict[str, Any]) -> str:
    head = ("| {} | calls | uncached input | cache write | cache read | output | summary $ | "
            "run $ |")
    rule = "|---|---:|---:|---:|---:|---:|---:|---:|"
    lines = [
        f"Budget {result['budget']:,} tokens, no task state. The agent's model is priced as "
        f"{SONNET.name} (${SONNET.prices['input']:.2f} / ${SONNET.prices['output']:.2f} per "
        f"million input / output tokens), the cheaper auxiliary model as {HAIKU.name} "
        f"(${HAIKU.prices['input']:.2f} / ${HAIKU.prices['output']:.2f}); cache writes "
        f"{CACHE_WRITE_FACTOR}x and cache reads {CACHE_READ_FACTOR}x the "
        "input price. Tokens and dollars of the summary calls; run $ adds every main call "
        "(always the agent's model).",
        "", "Totals over the scenarios:", "", head.format("strategy / summarizer"), rule]
    lines += [_row(label, t) for label, t in result["totals"].items()]
    lines += ["", "Per scenario:", "",
              head.format("scenario / strategy / summarizer") + " summaries as aux | answer |",
              rule + ":---:|---|"]
    for r in result["rows"]:
        answer = "correct" if r["correct"] else f"**{r['status']}**"
        lines.append(_row(f"{r['scenario']} / {r['strategy']} / {r['design']}", r)
                     + f" {'yes' if r['same_summaries'] else '**no**'} | {answer} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="accepted; changes nothing")
    args = parser.parse_args(argv)
    print(table(run(quick=args.quick)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
