"""ex7 (lesson 7): `fact_recall`, the share of must-keep facts a summary still holds.

The expected number is `evaluation.eval_summary(summary, must_keep, "").loose_recall` (the
library's loose match; its strict `recall` wants whole tokens in their own case): a fact
counts as kept when it occurs in the summary, ignoring case; duplicate facts count once;
no facts at all is a recall of 1.0. The teeth: case, duplicates, an empty list (no
division by zero), a fractional share (no integer division), and facts with characters
that a regular expression would treat as syntax.

Left out: a case that tells a substring match from a whole-token match: the loose match
reads substrings, and either reading passes every case here.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from ..evaluation import eval_summary
from .base import Case, Exercise, Space, Test, call, numbered, same_number, short
from .histories import random_id

TOLERANCE = 1e-9

SUMMARY = ("## Progress\n- Order ord-1042 is on waybill VD-88317 (carrier NordFreight).\n"
           "- The timeout (30 s) lives in config/timeouts.yaml.")


def same_as_library(summary: str, must_keep: list[str]) -> Test:
    def test(fn: Callable[..., Any]) -> str | None:
        want = eval_summary(summary, list(must_keep), "").loose_recall  # before the call
        got = fn(summary, list(must_keep))
        if isinstance(got, bool) or not isinstance(got, int | float):
            return (f"{call('fact_recall', summary=summary, must_keep=must_keep)} returned"
                    f" {short(got)}, expected the number {want}")
        if not same_number(got, want, abs_tol=TOLERANCE):
            return (f"{call('fact_recall', summary=summary, must_keep=must_keep)} returned"
                    f" {got}, expected {want}")
        return None
    return test


HIDDEN_CASES = 8
WAYS = ("kept", "twice", "upper", "missed", "squashed")
SPECIAL = ("timeout (30 s)", "a+b.yaml", "[v2]", "cost $4.50")


def hidden_case(n: int, rng: random.Random) -> Case:
    """Facts kept (in any case, some more than once), missed, or present only without
    their punctuation ('VD88317' does not keep 'VD-88317'), with duplicates."""
    lines, facts = [], []
    count = 0 if rng.random() < 0.1 else rng.randint(2, 6)
    start = rng.randrange(len(WAYS))
    for i in range(count):
        fact = random_id(rng) if rng.random() < 0.8 else rng.choice(SPECIAL)
        way = WAYS[(start + i) % len(WAYS)]
        shown = {"kept": fact, "twice": f"{fact}, again {fact}", "upper": fact.upper(),
                 "missed": "", "squashed": fact.replace("-", "").replace(" ", "")}[way]
        if shown:
            lines.append(f"- {shown} was looked at")
        if fact not in facts:
            facts.append(fact)
    must_keep = facts + [rng.choice(facts) for _ in range(rng.randint(0, 2)) if facts]
    summary = "## Progress\n" + "\n".join(lines)
    return Case(f"hidden case {n}", f"fact_recall(<a summary>, {short(must_keep)})",
                same_as_library(summary, must_keep))


CASES = (
    Case("every fact present",
         "every must-keep fact is in the summary: recall 1.0",
         same_as_library(SUMMARY, ["VD-88317", "config/timeouts.yaml"])),
    Case("some facts missing",
         "recall is kept / total as a float between 0 and 1 (not integer division)",
         same_as_library(SUMMARY, ["VD-88317", "ORD-2077", "NordFreight"])),
    Case("case does not matter",
         "compare without case: 'ORD-1042' is kept when the summary says 'ord-1042'",
         same_as_library(SUMMARY, ["ORD-1042", "nordfreight"])),
    Case("duplicates count once",
         "count each distinct fact once (dict.fromkeys(must_keep) keeps the order)",
         same_as_library(SUMMARY, ["VD-88317", "ORD-2077", "VD-88317", "VD-88317"])),
    Case("an empty list",
         "with nothing to keep nothing is lost: return 1.0 (no division by zero)",
         same_as_library(SUMMARY, [])),
    Case("nothing kept",
         "no fact in the summary: recall 0.0",
         same_as_library("## Progress\n- read a few files", ["ORD-1042", "VD-88317"])),
    Case("facts with special characters",
         "look facts up as plain text: 'timeout (30 s)' or 'timeouts.yaml' are not regular"
         " expressions (use re.escape if you use re)",
         same_as_library(SUMMARY, ["timeout (30 s)", "timeouts.yaml", "GW-7731"])),
)

def recall_inputs():
    """A summary that keeps, repeats, upper-cases or drops facts; must-keep lists that are
    empty, with duplicates, or with facts not in the summary."""
    from hypothesis import strategies as st

    fact = st.one_of(st.sampled_from(SPECIAL + ("ORD-1042", "VD-88317", "ord-1042")),
                     st.from_regex(r"[A-Z]{2,3}-[0-9]{3,5}", fullmatch=True))
    shown = st.lists(st.tuples(fact, st.sampled_from(("kept", "upper", "twice"))), max_size=5)
    summary = shown.map(lambda items: "## Progress\n" + "\n".join(
        f"- {f.upper() if w == 'upper' else f}{', again ' + f if w == 'twice' else ''}"
        for f, w in items))
    return st.tuples(summary, st.lists(fact, max_size=6))


SPACE = Space(same_as_library, recall_inputs, edges=(
    ("", []), ("", ["ORD-1042"]), (SUMMARY, []), (SUMMARY, ["VD-88317", "VD-88317"]),
    ("## Progress\n- ord-1042", ["ORD-1042", "ord-1042"]),
    ("## Progress\n- ord-1042", ["ORD-1042", "ord-1042", "VD-88317"])))  # two facts, one case


EXERCISE = Exercise(
    id="ex7", lesson=7, function="fact_recall",
    signature="fact_recall(summary, must_keep)",
    contract="Return the share of distinct must-keep facts that occur in the summary, "
             "ignoring case (as evaluation.eval_summary(...).loose_recall); 1.0 for an "
             "empty list.",
    cases=CASES,
    hidden=numbered(hidden_case, HIDDEN_CASES),
    library=("eval_summary", "SummaryEval"),
    space=SPACE,
)
