"""A quiz question and how it judges an answer, without ever storing the answer readable.

A `Question` is either a multiple choice (lettered `options`, answered with a letter) or
a number (answered as the lesson printed it; "40,478", "93%" and "93.2" all parse), whose
tolerance is its rounding: an answer is right when it rounds to the stored value at the
question's `decimals` (half a unit of the last place either side). The answer is stored
sealed, as `seal()` writes it: a salted SHA-256 of the question's id and the normalized
answer (`normalize`), so the package source never holds it readable; a question's author
runs `seal()` once and pastes the digest. The explanation is stored plainly.

Left out: secrecy. A choice among four letters is found by trying each one; the seal only
keeps the answers from being read at a glance. Asking and scoring are `quiz.py`'s.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

SALT = "jupyter-compaction quiz v1"
LETTERS = "abcdefgh"
NUMBER_NOISE = str.maketrans("", "", ",_ $%")  # separators and units a lesson prints


class QuizError(ValueError):
    """An unknown question or quiz, or an answer of the wrong form (one line, what to do)."""


@dataclass(frozen=True)
class Question:
    id: str  # "q3.2": lesson 3, question 2
    text: str
    answer: str  # seal(id, normalized answer), never the answer itself
    explanation: str  # shown after an answer, right or wrong
    options: tuple[str, ...] = ()  # a multiple choice's options, lettered a, b, ...
    decimals: int = 0  # a number's rounding: its tolerance

    @property
    def lesson(self) -> int:
        return int(self.id[1:].split(".")[0])

    @property
    def kind(self) -> str:
        return "choice" if self.options else "number"

    def form(self) -> str:
        """What an answer to this question looks like, for messages."""
        if self.options:
            last = LETTERS[len(self.options) - 1]
            return f"a letter from a to {last}, e.g. quiz({self.id!r}, 'b')"
        return f"a number as the lesson printed it, e.g. quiz({self.id!r}, '1,234')"


def seal(question_id: str, normalized: str) -> str:
    """The stored form of an answer: a salted SHA-256 digest (16 hex digits)."""
    return hashlib.sha256(f"{SALT}|{question_id}|{normalized}".encode()).hexdigest()[:16]


def normalize(question: Question, given: Any) -> str:
    """`given` in the form its seal was made from; QuizError when it has the wrong form."""
    if question.options:  # a letter, as "b", "B", "(b)" or "b)"
        letter = str(given).strip().strip("().").lower()
        if len(letter) != 1 or letter not in LETTERS[:len(question.options)]:
            raise QuizError(f"{question.id} takes {question.form()}; got {given!r}")
        return letter
    try:  # a number: drop separators and units, then round to the question's decimals
        value = float(str(given).translate(NUMBER_NOISE))
    except ValueError:
        raise QuizError(f"{question.id} takes {question.form()}; got {given!r}") from None
    return f"{round(value, question.decimals):.{max(question.decimals, 0)}f}"


def is_right(question: Question, given: Any) -> bool:
    return seal(question.id, normalize(question, given)) == question.answer
