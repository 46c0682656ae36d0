"""A misspelt word read as the one word the reader knows that it is a slip away from.

"which files have a dispatch tabel", "why didnt the parcel get deliverd": a careful reader
sees "table", "didn't" and "delivered" there. `correct(task, ...)` does so for the words a
task was refused for: each such word is read as a word of the scenario's vocabulary (a
phrase of some question's grammar, an operator, a filler word: `Vocabulary`) when it is a
single slip away from exactly one of them, and the task is read again. The correction is
kept only when the task is then understood; the "Question:" line says which words were
read how (`Scenario.canonical`).

A slip, inside the word (its first letter and its end stay as typed, so "later" is not
"late", "ports" not "posts"): a letter left out, one too many, one changed, two
neighbours swapped (the last two too: "tabel"), or an apostrophe left out ("didnt"). A
compound of known words joined by hyphens ("licence-policy violations") is read as those
words.

Left out: words under five letters (too many neighbours), two slips in one word, a word a
slip away from two known words (which one was meant is a guess), words with digits or
other punctuation (a misspelt id, path or package name stays a missing entity, never the
nearest existing one; a hyphenated name with an unknown part stays whole), and words run
together or split by a space ("database", "data base").
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Iterable
from functools import lru_cache

MIN_LENGTH = 5  # shorter words have too many neighbours one slip away
LETTERS = string.ascii_lowercase
# The endings of inflected forms ("defines", "contains", "passes", "listed"; not "builtd")
ENDING = r"(?:(?<=e)[sd]|(?<![es])s|e[sd])?"
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")  # a word that may be a slip: letters only
_COMPOUND = re.compile(r"[a-z]+(?:-[a-z]+)+")  # words joined by hyphens


class Vocabulary:
    """The words a scenario's reader knows: single words that one of its phrases (regular
    expressions, inflected forms included) reads whole, and its filler words."""

    def __init__(self, phrases: Iterable[str], filler: frozenset[str]):
        self.filler = filler
        self.pattern = re.compile(rf"(?:{'|'.join(f'(?:{p})' for p in phrases)}){ENDING}", re.I)

    def knows(self, word: str) -> bool:
        """Whether a phrase reads `word` whole, at the start of a text or after another
        word (a phrase may need one before it: "build" only after a word other than
        "please")."""
        return word in self.filler or any(self.pattern.fullmatch(text, len(text) - len(word))
                                          for text in (word, f"a {word}"))


def slips(word: str) -> set[str]:
    """The words one slip away from `word` (see the module docstring)."""
    inner = range(1, len(word) - 1)  # edits keep the first letter and the end
    return ({word[:i] + word[i + 1:] for i in inner}  # a letter typed too many
            | {word[:i] + word[i + 1] + word[i] + word[i + 2:] for i in inner}  # two swapped
            # one letter changed
            | {word[:i] + c + word[i + 1:] for i in inner for c in LETTERS if c != word[i]}
            # a letter (or an apostrophe) left out, anywhere before the last letter
            | {word[:i] + c + word[i:] for i in range(1, len(word)) for c in LETTERS + "'"})


@lru_cache(maxsize=4096)  # a refused task is read again every turn
def meant(word: str, vocabulary: Vocabulary) -> str | None:
    """The one known word `word` is a slip away from (or the known words a hyphenated
    compound joins); None when it is known itself, too short, not plain letters, or a slip
    away from none or several."""
    word = word.lower()
    if _COMPOUND.fullmatch(word) and not vocabulary.knows(word):
        parts = word.split("-")
        return " ".join(parts) if all(map(vocabulary.knows, parts)) else None
    if len(word) < MIN_LENGTH or not _WORD.fullmatch(word) or vocabulary.knows(word):
        return None
    found = {near for near in slips(word) if vocabulary.knows(near)}
    return found.pop() if len(found) == 1 else None


@lru_cache(maxsize=1024)
def _vocabulary(phrases: tuple[str, ...], filler: frozenset[str]) -> Vocabulary:
    return Vocabulary(phrases, filler)


def vocabulary(phrases: Iterable[str], filler: frozenset[str]) -> Vocabulary:
    """The vocabulary of `phrases` and `filler`, built once per set of phrases."""
    return _vocabulary(tuple(phrases), filler)


def correct(task: str, refused_for: Callable[[str], tuple[str, ...]],
            understood: Callable[[str], bool], vocabulary: Vocabulary,
            rounds: int = 3) -> tuple[str, tuple[tuple[str, str], ...]]:
    """`task` with the words it is refused for (`refused_for`) read as the words they
    were meant to be, and those (typed, meant) pairs, when the corrected task is
    `understood`; else `task` unchanged and no pairs. A correction may bring the
    refusal to other words, so it is tried again, at most `rounds` times."""
    text, fixed = task, []
    for _ in range(rounds):
        pairs = [(w, m) for w in refused_for(text) if (m := meant(w, vocabulary))]
        if not pairs:
            break
        for typed, word in pairs:  # the typed word, as a whole word, wherever it stands
            text = re.sub(rf"(?<![\w'-]){re.escape(typed)}(?![\w'-])", word, text)
        fixed += pairs
        if understood(text):
            return text, tuple(fixed)
    return task, ()
