"""A task of several questions, cut into its parts and each part read on its own.

`split(task, understand)` gives the task's questions, each with how it is understood
(`understand` is `Scenario.understand`: a question and its slots, or None):

1. it is cut after each "?" when every piece ends with one ("X? and Y?"; "X? Then do
   Z." stays one task); when every piece is understood on its own it is read part by
   part even if one question also reads it whole ("What does X import? And which files
   import it?" asks two things); otherwise a task some question reads whole is one part;
2. a piece no question reads whole is cut once more where "and" (or ";") comes before a
   question opener ("..., and is there ...", "... and which ..."), only when both sides
   are understood: a single question that merely contains "and" stays whole;
3. a later part whose pronoun ("it", "them", "that", "this", "its", "their") stands for
   an entity takes the previous part's entity of the same kind: the pronoun is replaced
   by each slot value the previous part's text names in turn, and the first text that a
   question reads with that value in a slot of the same name is the part ("Is there an
   exception for it?" after a question about chardet asks about chardet). A pronoun
   that no earlier entity fits leaves the part not understood; `pronouns` names it;
4. parts that all ask the same question with the same slots are that one question, asked
   twice ("Where are the manifests kept? Which manifests are there?").

Left out: a pronoun that refers further back than the previous part, a pronoun in the
first question, and ellipsis ("and for billing?").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Understood = tuple[Any, dict[str, str]] | None  # (a Question, its slots) or None

BREAK = re.compile(r"(?<=\?)\s+(?=\S)")  # where one question of a task ends
OPENER = (r"is|are|was|were|does|do|did|has|have|can|could|what|which|who|whom|whose|"
          r"how|why|when|where|list|name|tell|show|give")
JOIN = re.compile(rf",?\s*(?:;|\band(?:\s+also)?)\s+(?=(?:{OPENER})\b)", re.I)
# "that" and "this" only where they end a phrase ("for that?"), not as in "that file"
PRONOUN = re.compile(r"\b(?:it|its|them|their)\b|\b(?:that|this)(?=\s*[?.!,;]|\s*$)", re.I)
NOT_ENTITIES = ("operators", "exclude")  # slots that name no entity a pronoun stands for


def pronouns(part: str) -> tuple[str, ...]:
    """The pronouns of `part` that may stand for an entity."""
    return tuple(dict.fromkeys(m.group(0) for m in PRONOUN.finditer(part)))


def split(task: str, understand: Callable[[str], Understood]) -> list[tuple[str, Understood]]:
    """The task's questions, each with how it is understood (see the module docstring)."""
    whole = understand(task)
    pieces = [p.strip() for p in BREAK.split(task) if p.strip()]
    if len(pieces) < 2 or not all(p.endswith("?") for p in pieces):  # 1.
        pieces = [task]
    questions = [q for piece in pieces for q in _joined(piece, understand)]  # 2.
    found: list[tuple[str, Understood]] = []
    for question in questions:  # 3.
        found.append(_resolved(question, found[-1], understand) if found
                     else (question, understand(question)))
    if len(found) < 2 or (whole is not None and not all(u for _, u in found)):
        return [(task, whole)]  # one question, or read whole better than part by part
    return [(task, found[0][1])] if _one_question(found) else found  # 4.


def _one_question(found: list[tuple[str, Understood]]) -> bool:
    """Whether every part is understood as the same question with the same slots."""
    asked = {(u[0].name, tuple(sorted(u[1].items()))) if u else None for _, u in found}
    return len(asked) == 1 and None not in asked


def _joined(piece: str, understand: Callable[[str], Understood]) -> list[str]:
    """`piece` cut at the first join both of whose sides are understood (the right
    side's pronouns resolved by the left's entities), else `piece` whole."""
    if understand(piece) is not None:
        return [piece]
    for join in JOIN.finditer(piece):
        left = piece[:join.start()].rstrip(" ,;") + "?"
        right = piece[join.end():]
        first = understand(left)
        if first is not None and _resolved(right, (left, first), understand)[1] is not None:
            return [left, right[0].upper() + right[1:]]
    return [piece]


def _resolved(part: str, previous: tuple[str, Understood],
              understand: Callable[[str], Understood]) -> tuple[str, Understood]:
    """`part` with its pronoun replaced by the entity of the same kind that the previous
    part names (a slot value its text states, not a default), and how that is
    understood; a pronoun no entity fits leaves it not understood."""
    if not pronouns(part):
        return part, understand(part)
    text, understood = previous
    entities = [(k, v) for k, v in (understood[1] if understood else {}).items()
                if k not in NOT_ENTITIES and v.lower() in text.lower()]
    for match in PRONOUN.finditer(part):
        for name, value in entities:
            said = part[:match.start()] + value + part[match.end():]
            if (found := understand(said)) is not None and found[1].get(name) == value:
                return said, found
    return part, None
