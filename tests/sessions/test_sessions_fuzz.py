"""Damaged logs: truncated, reordered, corrupted. Every problem counted in a warning, never
a crash, every segment valid, and no intact entry silently lost."""

import json
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jupyter_compaction import sessions
from jupyter_compaction.history import validate

SMALL = [p for p in sessions.shipped() if p.name in ("short.jsonl", "tool_heavy.jsonl")]
LINES = {p.name: p.read_text().splitlines() for p in SMALL}
FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
GARBAGE = st.sampled_from(['{"type": "user", "mess', "not json", "[1, 2]", '"text"',
                           '{"type": "mystery", "uuid": "u-x"}', "{}"])


def named_lines(warnings: list[str]) -> tuple[set[int], bool]:
    """The line numbers the warnings name, and whether some were only counted ("and N
    more")."""
    named: set[int] = set()
    for found in re.finditer(r"\blines? ((?:\d+(?:, )?)+)", " ".join(warnings)):
        named |= {int(n) for n in found.group(1).split(", ") if n}
    return named, any(" more)" in w for w in warnings)


def tool_ids(line: str) -> set[str]:
    return set(re.findall(r'"(?:id|tool_use_id)": "(toolu_\w+)"', line))


def check(text: str, intact: list[str]):
    """Load `text`; every segment valid; every tool id of an intact line is in the
    history or named by a warning about its line."""
    session = sessions.loads(text, "fuzzed.jsonl")
    for segment in session.segments:
        validate(segment)
    loaded = json.dumps(session.segments)
    named, counted = named_lines(session.warnings)
    for line in intact:
        for tid in tool_ids(line):
            number = text.splitlines().index(line) + 1
            assert tid in loaded or number in named or counted, tid
    return session


@FUZZ
@given(name=st.sampled_from(sorted(LINES)), data=st.data())
def test_truncated(name, data):
    text = "\n".join(LINES[name])
    cut = data.draw(st.integers(len(LINES[name][0]) + 1, len(text)))
    head = text[:cut]
    complete = head.splitlines()[:-1] if not text[cut:].startswith("\n") else head.splitlines()
    session = check(head, complete)
    last = head.splitlines()[-1]
    if last not in LINES[name]:  # the cut went through a line: that line is reported
        assert len(head.splitlines()) in named_lines(session.warnings)[0]


@FUZZ
@given(name=st.sampled_from(sorted(LINES)), order=st.randoms(use_true_random=False))
def test_reordered_loses_nothing(name, order):
    lines = list(LINES[name])
    order.shuffle(lines)
    clean = sessions.loads("\n".join(LINES[name]))
    session = check("\n".join(lines), lines)
    assert session.segments == clean.segments  # the tree, not the file order, decides


@FUZZ
@given(name=st.sampled_from(sorted(LINES)), data=st.data())
def test_corrupted_lines_are_each_reported(name, data):
    lines = list(LINES[name])
    broken = data.draw(st.sets(st.integers(1, len(lines) - 1), max_size=len(lines) // 3))
    for i in broken:
        lines[i] = data.draw(GARBAGE)
    session = check("\n".join(lines), [ln for i, ln in enumerate(lines) if i not in broken])
    named, counted = named_lines(session.warnings)
    assert all(i + 1 in named for i in broken) or counted
    skipped = sum(int(n) for n in re.findall(r"^(\d+) lines skipped", " ".join(session.warnings)))
    assert skipped == len(broken) or len(broken) == 1 or not counted
