"""What does each strategy cost, and what does it keep? Every strategy on every scenario.

Part 1, the strategy tables. Every strategy (`off`, `clear`, `trim`, `summarize` with an
assistant-role and with a user-role summary, `compact`, `progressive`), each with and
without task state, plays every bundled scenario through `runner.play()` (simulated
model, auxiliary summarizer) at two budgets:

- 8,000 tokens, the demo's budget;
- 5,000 tokens, the smallest round budget at which `off` itself still solves every
  scenario: a tool result may fill at most 25 % of the budget, and at 4,000 tokens the cap
  cuts findings out of the results, so failures there would be the cap's fault, not
  compaction's.

For each run: peak context / budget, input tokens sent (every call, summary calls too,
`Run.tokens_sent`) and that as a share of what `off` sends at the same budget with the
same task-state setting, the dollar cost with and without prompt caching, compactions,
repeats (re-reads and repeated lookups: tool calls repeated with the same input),
must-keep recall in the final context (system prompt, task state included, plus the live
messages) and in the answer, and task success (`Scenario.is_correct`).

Prices: Claude Haiku 4.5, $1 per million input tokens, $5 per million output tokens,
cache writes 1.25x and cache reads 0.1x the input price. "With caching" prices each
call's `usage` as the model reports it (the simulated model writes each request's new
suffix to the cache and reads the longest unchanged prefix, as Anthropic's automatic
prefix caching would); "without caching" prices every input token at the base price.

Part 2, the long scenario: `markdown` (a vendored snapshot of Python-Markdown 3.5.2, 47
files, one listing and 47 reads) at 8,000 tokens: `off`, and `progressive` with and
without task state: peak / budget, the share of `off`'s tokens, must-keep recall and
re-reads, and how the run ended. The short scenarios cannot show compaction's economics;
this one can, so it is reported on its own and kept out of the part 1 tables.

Part 3, the erosion curve: must-keep recall after 1, 2, ..., 8 successive compactions,
summary only vs summary + task state. For each scenario, the transcript of a complete
`off` run (budget 100,000: nothing truncated, nothing compacted; with task-state tools
for the second curve) is replayed turn by turn, and after every turn `SummarizeMiddle`
(default head, a tail of just the newest turn, the simulated model's summarizer with its
default 200-word cap) folds everything else into an incrementally updated summary. Right
after each compaction, recall = the must-keep facts visible in the context (system
prompt with the rendered task state, plus the messages) / the must-keep facts seen so
far (in the transcript replayed up to that point, or the task state). A scenario with
fewer than 8 turns to fold shows "-" past its end.

    python benchmarks/bench_quality.py [--quick]

`--quick` plays only the smaller budget. Prints Markdown and writes nothing;
`run(quick)` returns the numbers.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

try:
    import jupyter_compaction  # noqa: F401
except ModuleNotFoundError:  # run as a script from a checkout, without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jupyter_compaction import scenarios  # noqa: E402
from jupyter_compaction.agent import SYSTEM_PROMPT, Run  # noqa: E402
from jupyter_compaction.evaluation import eval_summary  # noqa: E402
from jupyter_compaction.history import blocks, message_text  # noqa: E402
from jupyter_compaction.models.simulated import SUMMARY_WORDS, SimulatedModel  # noqa: E402
from jupyter_compaction.runner import play  # noqa: E402
from jupyter_compaction.strategies import SummarizeMiddle  # noqa: E402
from jupyter_compaction.task_state import TaskState  # noqa: E402
from jupyter_compaction.tokens import TokenCounter  # noqa: E402

BUDGETS = {"full": (8_000, 5_000), "quick": (5_000,)}
SMALL_BUDGET = 5_000
# (label, strategy name, summary role)
CONFIGS = (
    ("off", "off", None),
    ("clear", "clear", None),
    ("trim", "trim", None),
    ("summarize (assistant)", "summarize", "assistant"),
    ("summarize (user)", "summarize", "user"),
    ("compact", "compact", None),
    ("progressive", "progressive", None),
)
PRICE = {  # Claude Haiku 4.5, dollars per million tokens
    "model": "Claude Haiku 4.5",
    "input": 1.00,
    "output": 5.00,
    "cache_write": 1.25,
    "cache_read": 0.10,
}
LONG = "markdown"  # the long scenario over real code (part 2)
LONG_BUDGET = 8_000
LONG_CONFIGS = (("off", False), ("progressive", True), ("progressive", False))
GOAL_SHARE = 0.40  # progressive + task state must send at most this share of off's tokens
EROSION_STEPS = 8
EROSION_BASE_BUDGET = 100_000  # the complete runs whose transcripts are replayed


# --- part 1: one run, measured --------------------------------------------------------


def cost(run: Run, cached: bool) -> float:
    """Dollars for every call of the run (summary calls too) at `PRICE`."""
    total = 0.0
    for u in run.usage + run.summary_usage:
        total += u.output_tokens * PRICE["output"]
        if cached:
            total += (u.input_tokens * PRICE["input"]
                      + u.cache_creation_input_tokens * PRICE["cache_write"]
                      + u.cache_read_input_tokens * PRICE["cache_read"])
        else:
            total += u.total_input * PRICE["input"]
    return total / 1_000_000


def recall(text: str, must_keep: tuple[str, ...]) -> float:
    """Share of `must_keep` found in `text`, as `evaluation.eval_summary` defines it."""
    return eval_summary(text, must_keep, text).recall


def context_text(run: Run) -> str:
    """What the model would see next: the system prompt (with task state) and messages."""
    return "\n".join([run.system, *(message_text(m) for m in run.messages)])


def measure(scenario: str, budget: int, strategy: str, role: str | None,
            task_state: bool) -> dict[str, Any]:
    spec = scenarios.load(scenario)
    start = time.perf_counter()
    run = play(scenario, budget=budget, strategy=strategy, task_state=task_state,
               summary_role=role)
    answer = run.answer or ""
    return {
        "status": run.status,
        "stuck": run.status == "failed" and "stuck" in (run.error or ""),
        "success": bool(run.answer) and spec.is_correct(answer),
        "outcome": spec.outcome(run),
        "turns": run.turn,
        "peak_over_budget": run.peak_context / budget,
        "tokens_sent": run.tokens_sent,
        "cost_cached": cost(run, cached=True),
        "cost_uncached": cost(run, cached=False),
        "compactions": len(run.compactions),
        "repeats": run.repeats,
        "recall_context": recall(context_text(run), spec.must_keep),
        "recall_answer": recall(answer, spec.must_keep),
        "seconds": time.perf_counter() - start,
    }


def strategy_tables(budgets: tuple[int, ...]) -> dict[str, Any]:
    """{scenario: {budget: [row, ...]}}, each row one (strategy, task state) pair."""
    out: dict[str, Any] = {}
    for scenario in short_scenarios():
        out[scenario] = {}
        for budget in budgets:
            rows = []
            for label, strategy, role in CONFIGS:
                for task_state in (False, True):
                    row = measure(scenario, budget, strategy, role, task_state)
                    rows.append({"strategy": label, "task_state": task_state, **row})
            for row in rows:
                off = next(r for r in rows if r["strategy"] == "off"
                           and r["task_state"] == row["task_state"])
                row["sent_over_off"] = row["tokens_sent"] / off["tokens_sent"]
                row["sent_over_plain_off"] = row["tokens_sent"] / rows[0]["tokens_sent"]
            out[scenario][str(budget)] = rows
    return out


def goal_check(tables: dict[str, Any], budget: int) -> dict[str, Any]:
    """The issue's bar for progressive + task state at the smaller budget, per scenario."""
    per: dict[str, Any] = {}
    for scenario, by_budget in tables.items():
        row = next(r for r in by_budget[str(budget)]
                   if r["strategy"] == "progressive" and r["task_state"])
        checks = {
            "success": row["success"],
            "zero_repeats": row["repeats"] == 0,
            "full_recall_context": row["recall_context"] == 1.0,
            "full_recall_answer": row["recall_answer"] == 1.0,
            "share_of_off": row["sent_over_off"] <= GOAL_SHARE,
        }
        per[scenario] = {**checks, "met": all(checks.values()),
                         "sent_over_off": row["sent_over_off"],
                         "sent_over_plain_off": row["sent_over_plain_off"]}
    quality = all(all(v for k, v in p.items() if k in ("success", "zero_repeats",
                  "full_recall_context", "full_recall_answer")) for p in per.values())
    return {"budget": budget, "share_goal": GOAL_SHARE, "scenarios": per,
            "quality_met": quality, "met": all(p["met"] for p in per.values())}


def short_scenarios() -> list[str]:
    return [name for name in scenarios.names() if name != LONG]


# --- part 2: the long scenario ------------------------------------------------------------


def long_scenario() -> list[dict[str, Any]]:
    """`LONG` at `LONG_BUDGET`: off, then progressive with and without task state."""
    rows = [{"strategy": strategy, "task_state": task_state,
             **measure(LONG, LONG_BUDGET, strategy, None, task_state)}
            for strategy, task_state in LONG_CONFIGS]
    for row in rows:
        row["sent_over_off"] = row["tokens_sent"] / rows[0]["tokens_sent"]
    return rows


def long_markdown(result: dict) -> str:
    lines = [
        f"Scenario `{LONG}` ({scenarios.load(LONG).title}) at {LONG_BUDGET:,} tokens; "
        "\"vs off\" = tokens sent / tokens sent by `off`.",
        "",
        "| strategy | task state | result | turns | peak / budget | tokens sent | vs off "
        "| re-reads | recall: answer |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in result["long"]:
        lines.append(
            f"| {r['strategy']} | {'yes' if r['task_state'] else 'no'} | "
            f"{r['outcome'].replace('_', ' ')} | {r['turns']} | {r['peak_over_budget']:.2f} | "
            f"{r['tokens_sent']:,} | {_pct(r['sent_over_off'])} | {r['repeats']} | "
            f"{_pct(r['recall_answer'])} |")
    return "\n".join(lines)


# --- part 3: the erosion curve ------------------------------------------------------------


def erosion(scenario: str, task_state: bool, steps: int = EROSION_STEPS) -> list[dict]:
    """Recall right after each of up to `steps` successive compactions (see the docstring)."""
    spec = scenarios.load(scenario)
    base = play(scenario, budget=EROSION_BASE_BUDGET, strategy="off", task_state=task_state)
    transcript = base.transcript
    model = SimulatedModel(scenario, summary_words=SUMMARY_WORDS)
    strategy = SummarizeMiddle(summarizer=model.summarize, tail_tokens=1)
    counter = TokenCounter()
    state = TaskState() if task_state else None
    tools = {fn.__name__: fn for fn in state.tools()} if state else {}
    messages, seen, points = [transcript[0]], [message_text(transcript[0])], []
    # every turn with tool results: an assistant message and the user message after it
    for i in range(1, len(transcript) - 1, 2):
        turn = transcript[i:i + 2]
        for block in blocks(turn[0]):
            if block.get("type") == "tool_use" and block["name"] in tools:
                tools[block["name"]](**block["input"])  # the task state, as the agent kept it
        rendered = state.render() if state else ""
        system = f"{SYSTEM_PROMPT}\n\n{rendered}" if rendered else SYSTEM_PROMPT
        seen += [message_text(m) for m in turn] + [system]
        messages = [*messages, *turn]
        result = strategy(messages, goal=SMALL_BUDGET, counter=counter)
        if not result.changed:
            continue
        messages = result.messages
        context = "\n".join([system, *(message_text(m) for m in messages)]).lower()
        history = "\n".join(seen).lower()
        found = [f for f in spec.must_keep if f.lower() in history]
        kept = [f for f in found if f.lower() in context]
        points.append({"compaction": len(points) + 1, "kept": len(kept), "seen": len(found),
                       "recall": len(kept) / len(found) if found else 1.0,
                       "summary_words": len((result.summary or "").split())})
        if len(points) == steps:
            break
    return points


def erosion_curves() -> dict[str, Any]:
    curves = {name: {"summary": erosion(name, False), "summary+task_state": erosion(name, True)}
              for name in short_scenarios()}
    mean: dict[str, list[float | None]] = {}
    for kind in ("summary", "summary+task_state"):
        mean[kind] = []
        for k in range(EROSION_STEPS):
            values = [c[kind][k]["recall"] for c in curves.values() if len(c[kind]) > k]
            mean[kind].append(statistics.mean(values) if values else None)
    return {"steps": EROSION_STEPS, "summary_words": SUMMARY_WORDS, "by_scenario": curves,
            "mean": mean}


def run(quick: bool = False) -> dict:
    budgets = BUDGETS["quick" if quick else "full"]
    start = time.perf_counter()
    tables = strategy_tables(budgets)
    return {
        "quick": quick,
        "budgets": list(budgets),
        "price": PRICE,
        "tables": tables,
        "goal": goal_check(tables, min(budgets)),
        "long": long_scenario(),
        "erosion": erosion_curves(),
        "seconds": time.perf_counter() - start,
    }


# --- the report ---------------------------------------------------------------------------


def _pct(x: float) -> str:
    return f"{x:.0%}"


def scenario_table(rows: list[dict]) -> str:
    lines = [
        "| strategy | task state | result | peak / budget | tokens sent | vs off "
        "| $ cached | $ uncached | compactions | repeats | recall: context | recall: answer |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        result = "correct" if r["success"] else (
            "wrong answer" if r["status"] == "finished" else "stuck" if r.get("stuck")
            else r["status"].replace("_", " "))
        if not r["success"]:
            result = f"**{result}**"
        lines.append(
            f"| {r['strategy']} | {'yes' if r['task_state'] else 'no'} | {result} | "
            f"{r['peak_over_budget']:.2f} | {r['tokens_sent']:,} | {_pct(r['sent_over_off'])} | "
            f"{r['cost_cached']:.4f} | {r['cost_uncached']:.4f} | {r['compactions']} | "
            f"{r['repeats']} | {_pct(r['recall_context'])} | {_pct(r['recall_answer'])} |")
    return "\n".join(lines)


def tables_markdown(result: dict) -> str:
    """One section per scenario, one table per budget."""
    p = result["price"]
    out = [
        f"Prices: {p['model']}, ${p['input']:.2f} / M input tokens, ${p['output']:.2f} / M "
        f"output tokens, cache writes ${p['cache_write']:.2f} / M, cache reads "
        f"${p['cache_read']:.2f} / M. \"vs off\" = tokens sent / tokens sent by `off` at the "
        "same budget with the same task-state setting. Recall = share of the scenario's "
        "must-keep facts found (context: system prompt with task state + live messages "
        "at the end of the run). Peak / budget above 1 means the request was over the "
        "budget (a real API would have refused it).",
    ]
    for scenario, by_budget in result["tables"].items():
        spec = scenarios.load(scenario)
        out += ["", f"### Scenario `{scenario}`: {spec.title}"]
        for budget, rows in by_budget.items():
            out += ["", f"Budget {int(budget):,} tokens:", "", scenario_table(rows)]
    return "\n".join(out)


def goal_markdown(result: dict) -> str:
    goal = result["goal"]
    lines = [
        f"`progressive` + task state at {goal['budget']:,} tokens, against the issue's bar "
        f"(correct answer, zero repeats, full must-keep recall, at most "
        f"{_pct(goal['share_goal'])} of the tokens `off` sends):",
        "",
        "| scenario | correct | zero repeats | recall: context | recall: answer "
        "| sent vs off (same task state) | sent vs off (no task state) | bar met |",
        "|---|---|---|---|---|---:|---:|---|",
    ]
    yes = {True: "yes", False: "**no**"}
    for scenario, c in goal["scenarios"].items():
        lines.append(
            f"| {scenario} | {yes[c['success']]} | {yes[c['zero_repeats']]} | "
            f"{yes[c['full_recall_context']]} | {yes[c['full_recall_answer']]} | "
            f"{_pct(c['sent_over_off'])} | {_pct(c['sent_over_plain_off'])} | "
            f"{yes[c['met']]} |")
    lines += ["", "Quality part of the bar (answer, repeats, recall): "
              + ("met in every scenario." if goal["quality_met"] else "**missed** (see above)."),
              "Token part of the bar (<= 40 % of off): "
              + ("met in every scenario." if all(c["share_of_off"] for c in
                                                 goal["scenarios"].values())
                 else "**missed** (see above).")]
    return "\n".join(lines)


def erosion_markdown(result: dict) -> str:
    ero = result["erosion"]
    names = list(ero["by_scenario"])
    head = " | ".join(f"{n}: summary | {n}: + task state" for n in names)
    lines = [
        f"Must-keep recall right after each successive compaction (kept / seen so far); "
        f"summarizer word cap {ero['summary_words']}.",
        "",
        f"| compactions | {head} | mean: summary | mean: + task state |",
        "|---:|" + "---:|" * (2 * len(names) + 2),
    ]
    for k in range(ero["steps"]):
        cells = []
        for n in names:
            for kind in ("summary", "summary+task_state"):
                points = ero["by_scenario"][n][kind]
                cells.append(f"{points[k]['kept']}/{points[k]['seen']}" if len(points) > k
                             else "-")
        for kind in ("summary", "summary+task_state"):
            m = ero["mean"][kind][k]
            cells.append(_pct(m) if m is not None else "-")
        lines.append(f"| {k + 1} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def table(result: dict) -> str:
    return "\n\n".join([
        tables_markdown(result),
        "### The bar for `progressive` + task state", goal_markdown(result),
        "### The long scenario: real code, 49 turns", long_markdown(result),
        "### Erosion: recall after successive compactions", erosion_markdown(result)])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the smaller budget only")
    args = parser.parse_args(argv)
    print(table(run(quick=args.quick)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
