"""Output rules the simulated model honours, while the text stating them is in its request.

A user's instruction about the *form* of the answer ("Answer in one line.", "End every
answer with \"-- ops bot\".") is kept by a real model only as long as it can see it:
instructions inside a range a compaction summarized are summarized away (the Messages
API's documentation says so of mid-conversation system messages), which is why agents
restate them after compacting. The simulated model reads such rules from the
instructions its request shows (the system prompt and mid-conversation `system`
messages; the task is the question and is parsed as one), and applies each rule it finds
to its final answer; a rule stated only in a message that is gone is not applied.

Each rule is a pattern with its quoted part free (any text), not one wording:

| rule                                   | what the answer becomes             |
|----------------------------------------|-------------------------------------|
| `answer in one line`                   | its lines joined with " / "         |
| `start every/each/your answer with "X"`| X, a space, then the answer         |
| `end every/each/your answer with "X"`  | the answer, a newline, then X       |

A grader reads the content: `without_marks` takes off the openings and endings the
rules added (`scenarios.base.graded_answer`), so an answer that follows its rule is not
graded wrong for the words of its sign-off.

Left out: rules about content (what to look up, what to leave out), and a summary that
carries a rule forward (the simulated summarizer writes facts and steps only, so a rule
survives a compaction only when its message does, or when the agent restates it).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

ONE_LINE = re.compile(r"\banswer in one line\b", re.I)
EACH = r"(?:every|each|your) answers?"
QUOTED = r"\"([^\"\n]+)\""
START = re.compile(rf"\bstart {EACH} with {QUOTED}", re.I)
END = re.compile(rf"\bend {EACH} with {QUOTED}", re.I)
Rule = Callable[[str], str]


def _one_line(text: str) -> str:
    return " / ".join(line.strip() for line in text.splitlines() if line.strip())


def _marks(texts: list[str]) -> list[tuple[str, str]]:
    """("start" or "end", the quoted text) of each opening and ending `texts` state, in
    the order stated."""
    return [(kind, x) for _, _, kind, x in sorted(
        (n, m.start(), kind, m[1]) for n, text in enumerate(texts)
        for kind, pattern in (("start", START), ("end", END)) for m in pattern.finditer(text))]


def rules_in(texts: Iterable[str]) -> list[Rule]:
    """The rules `texts` state: the quoted openings and endings in the order stated, then
    "one line" (last, so that it joins what the others added)."""
    texts = list(texts)
    rules: list[Rule] = [(lambda t, x=x: f"{x} {t}") if kind == "start"
                         else (lambda t, x=x: f"{t}\n{x}") for kind, x in _marks(texts)]
    return rules + ([_one_line] if any(ONE_LINE.search(t) for t in texts) else [])


def without_marks(texts: Iterable[str], answer: str) -> str:
    """`answer` without the openings and endings the rules `texts` state added to it (the
    content a grader reads; a joined line stays joined)."""
    for kind, x in reversed(_marks(list(texts))):
        if kind == "start" and answer.startswith(f"{x} "):
            answer = answer[len(x) + 1:]
        elif kind == "end" and answer.endswith(f"\n{x}"):
            answer = answer[:-len(x) - 1]
    return answer


def apply(rules: Iterable[Rule], answer: str) -> str:
    """`answer` with each rule applied in turn."""
    for rule in rules:
        answer = rule(answer)
    return answer
