"""Every number a lesson's prose writes is one its own section shows.

A section runs from one markdown heading to the next. A number written in its markdown
(two digits or more, or with a decimal point or a percent sign) must appear in the
committed checked outputs of the section's code cells (`# NBVAL_CHECK_OUTPUT`), or in
the sources of its code cells (a budget or a threshold the prose states as an input), or
among the code's constants the prose quotes (read from the code), or in the lesson's short
allowlist below, each entry with its reason. "5,000", "5000" and "5_000" are the same
number; "93 %" matches "93%"; "1.3" matches "1.30".

Left out: numbers written as words, single digits (counts and lesson numbers), numbers
in headings and in the lesson header's time line, and identifiers that hold digits
(`ex2`, `ORD-1042`, `s01`); whether a sentence's words agree with its output is read by
people, not by this test.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from jupyter_compaction.api_context import MIN_COMPACT_TRIGGER
from jupyter_compaction.grading.ex_capstone import MAX_BUDGET, MAX_SHARE
from jupyter_compaction.models.simulated_summary import SUMMARY_WORDS
from jupyter_compaction.server_compaction import DEFAULT_TRIGGER
from jupyter_compaction.settings import DEFAULTS
from jupyter_compaction.strategies.base import STUCK_RATIO
from jupyter_compaction.strategies.summary_call import SUMMARY_INPUT_TOKENS

LESSONS = Path(__file__).resolve().parents[2] / "lessons"
NOTEBOOKS = sorted(LESSONS.glob("*.ipynb"))
CHECKED = "# NBVAL_CHECK_OUTPUT"
HEADING = re.compile(r"^#{1,6} ", re.M)
# A number: not part of an identifier, a version or a path ("ex2", "ORD-1042", "v1.2.3").
NUMBER = re.compile(r"(?<![\w.\-/])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?:\s?%)?(?![\w/]|[.,]\d)")
REFERENCE = re.compile(r"(?:lessons?|section|exercise|seed|layer|step|chapter)\s+$", re.I)
HEADER_TIME = re.compile(r"\*About \d+ minutes[^*]*\*")

# Constants of the code the prose quotes, read from the code, so the prose follows them.
def percent(share: float) -> float:
    return round(share * 100, 6)


CODE: dict[float, str] = {
    percent(DEFAULTS.trigger): "the trigger's default share of the budget (Settings.trigger)",
    percent(1 - DEFAULTS.trigger): "what the trigger leaves for the reply",
    percent(DEFAULTS.target): "the target's default share of the budget (Settings.target)",
    percent(STUCK_RATIO): "the stuck threshold (strategies.base.STUCK_RATIO)",
    percent(DEFAULTS.result_cap): "the result cap's default (Settings.result_cap)",
    MAX_BUDGET: "the capstone's largest budget (ex_capstone.MAX_BUDGET)",
    percent(MAX_SHARE): "the capstone's cost target (ex_capstone.MAX_SHARE)",
    SUMMARY_WORDS: "the simulated summarizer's default word cap",
    SUMMARY_INPUT_TOKENS: "the most one summary prompt may hold",
    MIN_COMPACT_TRIGGER: "the API's smallest compaction trigger",
    DEFAULT_TRIGGER: "the API's compaction trigger by default",
    400: "the API's HTTP status for an invalid or too long request",
}

# Inputs and facts the prose states that no code cell or output of its section writes,
# per lesson: {lesson stem: {number: why it may stand}}.
TRY = "a budget the prose asks the learner to try"
ALLOWED: dict[str, dict[float, str]] = {
    "01_why_compaction": {
        5000: TRY, 8000: TRY, 20000: TRY, 50000: "a budget one might pick for Claude",
        100000: "a budget one might pick for Claude", 200000: "Claude's context window",
        2023: "the year of the cited paper (Liu et al.)",
        700: "the jumps in the growth table above, rounded",
        1150: "the jumps in the growth table above, rounded",
        11000: "the last row of the growth table, rounded",
    },
    "02_clearing_tool_results": {
        200: "an example size of a small clearing, not a measurement",
        1250: "the result cap at a budget of 5,000",
    },
    "04_summarize_the_middle": {
        300: "an example: six short tool calls", 30000: "an example: six file reads",
        4000: "half the budget of 8,000 the section's code sets",
        100: "a counter the exercise's cases use",
    },
    "05_who_summarizes_preflight_stuck": {
        1.25: "Anthropic's cache-write price factor",
        0.75: "a fractional trigger the exercise's cases use",
        1001: "the exercise's rounding example", 100.1: "the exercise's rounding example",
        100: "the exercise's rounding example",
        4800: "the trigger, 80 % of the budget of 6,000 the section's code sets",
    },
    "06_task_state_and_notes": {100: "section 1's summarizer cap, named again"},
    "08_capstone": {5000: TRY, 4500: TRY, 4000: TRY,
                    30: "the number of calls to expect with a key"},
    "09_real_session": {
        140: "the bundled log's model calls", 60: "the call where the log passed 160,000",
        160000: "the bundled log's size before compaction",
        200000: "Claude's context window", 36000: "the log's size after its compaction",
        40: "trim's kept messages (the replay's default)",
        1771: "the words of Claude Code's summary in the log",
        47000: "the request size with a key",
    },
    "10_api_context_management": {
        100000: "the API's context-editing trigger by default",
        47: "the long scenario's files", 4000: TRY,
    },
}


def value(match: re.Match[str]) -> float:
    return float(match.group(1).replace(",", "") + (match.group(2) or ""))


def numbers(text: str) -> set[float]:
    return {value(m) for m in NUMBER.finditer(re.sub(r"(?<=\d)_(?=\d)", "", text))}


def prose_numbers(markdown: str) -> list[tuple[float, str]]:
    """(value, as written) of each number the prose states, headings and code spans aside."""
    text = HEADER_TIME.sub("", re.sub(r"`[^`]*`", "", markdown))
    text = "\n".join(line for line in text.splitlines() if not HEADING.match(line))
    found = []
    for m in NUMBER.finditer(text):
        written = m.group(0)
        if REFERENCE.search(text[max(0, m.start() - 12):m.start()]):
            continue
        if len(m.group(1)) < 2 and not m.group(2) and "%" not in written:
            continue  # a single digit: a count or an ordinal
        found.append((value(m), written.strip()))
    return found


def sections(nb: nbformat.NotebookNode) -> list[dict[str, list[str]]]:
    """Each section's markdown, checked outputs and code sources."""
    out: list[dict[str, list[str]]] = [{"prose": [], "outputs": [], "code": []}]
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            parts = re.split(r"(?=^#{1,6} )", cell.source, flags=re.M)
            for part in filter(None, parts):
                if HEADING.match(part) and out[-1]["prose"] + out[-1]["code"]:
                    out.append({"prose": [], "outputs": [], "code": []})
                out[-1]["prose"].append(part)
        elif cell.cell_type == "code":
            out[-1]["code"].append(cell.source)
            if cell.source.startswith(CHECKED):
                out[-1]["outputs"] += [o.get("text", "") or str(o.get("data", {}).get(
                    "text/plain", "")) for o in cell.get("outputs", [])]
    return out


def unshown(nb: nbformat.NotebookNode, stem: str, allowed: dict[float, str] | None = None
            ) -> list[str]:
    """Each number the prose of `nb` writes that its section does not show."""
    allowed = {**CODE, **ALLOWED.get(stem, {})} if allowed is None else allowed
    problems = []
    for section in sections(nb):
        shown = numbers("\n".join(section["outputs"] + section["code"]))
        for number, written in prose_numbers("\n".join(section["prose"])):
            if number not in shown and number not in allowed:
                heading = next((p.splitlines()[0] for p in section["prose"]
                                if HEADING.match(p)), "(before the first heading)")
                problems.append(f"{written!r} under {heading!r}")
    return problems


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_number_in_the_prose_is_shown_in_its_section(path):
    problems = unshown(nbformat.read(path, as_version=4), path.stem)
    assert not problems, (f"{path.name}: numbers the prose writes that its section's checked "
                          f"outputs and code do not show (fix the prose, or allow an input "
                          f"in ALLOWED with its reason): {problems}")


def test_every_allowed_number_is_still_needed():
    stale = {}
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        needed = {value(NUMBER.match(p.split("'")[1])) for p in unshown(nb, path.stem, {})}
        stale.update({f"{path.stem}: {n:g}": why for n, why in
                      ALLOWED.get(path.stem, {}).items() if n not in needed})
    assert not stale, f"allowed numbers no prose needs any more (remove them): {stale}"


def test_the_check_finds_a_number_no_output_shows():
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("## A\nThe run sent 1,234 tokens, 12 % of them results."),
        nbformat.v4.new_code_cell(f"{CHECKED}\nprint(run)", outputs=[
            nbformat.v4.new_output("stream", text="sent 1234 tokens, results 11%\n")]),
        nbformat.v4.new_markdown_cell("## B\nAt a budget of 5,000 (lesson 12, `ex22`)."),
        nbformat.v4.new_code_cell("play(budget=5_000)"),
    ])
    [a, b] = sections(nb)
    assert [n for n, _ in prose_numbers("\n".join(a["prose"]))] == [1234, 12]
    assert numbers("\n".join(a["outputs"])) == {1234, 11}
    assert numbers("\n".join(b["code"])) >= {5000}
    assert [n for n, _ in prose_numbers("\n".join(b["prose"]))] == [5000]
    assert unshown(nb, "a lesson") == ["'12 %' under '## A'"]
