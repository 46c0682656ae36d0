"""Judging a summary, and seeing what a compaction threw away.

There is no single number for a good summary, so `eval_summary()` returns three that are
read together: *recall* of the facts that must survive (IDs, file names, decisions),
the *compression ratio* (summary tokens / source tokens), and *unsupported claims*:
identifiers and figures in the summary that the source never contained, an offline
stand-in for hallucination checks. `dropped_facts()` is the "what did compaction lose"
diff: identifiers present before a compaction and absent after it.

Recall counts a fact as kept only where the summary holds it whole and in its own case:
"dispatch tables" does not keep `DISPATCH`, nor "LD-17" `D-17`. A looser reading (any
case, any part of a word) is reported apart, as `SummaryEval.loose` and `loose_recall`,
and never mixed into `recall`. A time of day (12:00:00,380) is no fact, and none of its
digit groups is one either.

Left out: semantic judgements (paraphrase, contradictions) that need a model; the checks
here are exact string matches, so they are cheap, deterministic and strict.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from .history import Message, message_text
from .redact import redact
from .tokens import TokenCounter, estimate_tokens

# IDs like ORD-1042, LD-2.3, OAK-SD-160-FR or INV-2024-031188 (kept whole: a compound ID
# is one fact), ISO dates, versions, file paths and names, and numbers with an optional
# sign and unit. A time of day (09:30, 12:00:00,380, the 08:15:02.452 of an ISO timestamp)
# is matched whole so that none of its digit groups passes for a number, and then left out:
# a log line's clock time says when, not what.
TIME = r"(?<!\d)\d{1,2}(?::\d{2})+(?:[.,]\d+)?(?!\d)"
ID = r"\b[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*-\d+(?:\.\d+)*(?:-[A-Z0-9]+)*\b"
DATE = r"\b\d{4}-\d{2}-\d{2}\b"
VERSION = r"\bv\d+(?:\.\d+)+\b"
# A path starts at no ":", so the rest of a URL ("host:8080/v2/stock") is not one.
PATH = r"(?<![\w/.:-])/?[\w-][\w.-]*(?:/[\w.-]*\w)+"
FILE = r"\b[\w-]+\.(?:py|md|json|ya?ml|toml|txt|log|csv|cfg|ini|conf|js|ts|pdf)\b"
NUMBER = r"(?:(?<![\w.-])-)?\b\d+(?:[.,]\d+)*(?:\s?(?:ms|s|KB|MB|GB|%))?(?![\w.-]?\w)"
IDENTIFIER = re.compile("|".join((TIME, ID, DATE, VERSION, PATH, FILE, NUMBER)))
SMALL_NUMBER = 10  # bare numbers below this (list counters, section numbers) are not facts
# Two plain words joined by a slash ("user/assistant", "and/or") are prose, not a path.
PROSE_PAIR = re.compile(r"[a-z]+/[a-z]+")
KINDS = ("ids", "paths", "numbers")


_BARE_NUMBER = re.compile(r"-?\d+")
_TIME = re.compile(TIME)


def _is_fact(found: str) -> bool:
    if _TIME.fullmatch(found):
        return False
    if _BARE_NUMBER.fullmatch(found):
        return abs(int(found)) >= SMALL_NUMBER
    return not PROSE_PAIR.fullmatch(found)


def identifiers(text: str) -> set[str]:
    """The identifiers, paths and figures in `text`; none that a secret rule matches (a
    key with a "/" would pass for a path)."""
    return {found for found in IDENTIFIER.findall(text)  # whole matches
            if _is_fact(found) and not _secret(found)}


@lru_cache(maxsize=1 << 16)
def _secret(found: str) -> bool:
    """Whether `redact()` would change `found` (each identifier is checked once)."""
    return redact(found) != found


def kind(identifier: str) -> str:
    """Which of `KINDS` an identifier from `identifiers()` is (dates count as numbers)."""
    if re.fullmatch(ID, identifier):
        return "ids"
    if re.fullmatch(f"{PATH}|{FILE}", identifier):
        return "paths"
    return "numbers"


def by_kind(facts: Iterable[str]) -> dict[str, list[str]]:
    """`facts` grouped by `kind()`, each group sorted; kinds without facts are left out."""
    groups: dict[str, list[str]] = {k: [] for k in KINDS}
    for fact in sorted(facts):
        groups[kind(fact)].append(fact)
    return {k: v for k, v in groups.items() if v}


def _mentions(text: str, identifier: str) -> bool:
    r"""`identifier` occurs in `text` as a whole token, not as part of a longer one (the
    regex `(?<![\w-])identifier(?![\w-])`, found with `str.find`: a literal search is
    much faster than a lookbehind regex on a long real session)."""
    start = text.find(identifier)
    while start != -1:
        end = start + len(identifier)
        if not (_wordish(text, start - 1) or _wordish(text, end)):
            return True
        start = text.find(identifier, start + 1)
    return False


def _wordish(text: str, i: int) -> bool:
    return 0 <= i < len(text) and (text[i].isalnum() or text[i] in "_-")


def _text(source: str | Sequence[Message]) -> str:
    return source if isinstance(source, str) else "\n".join(message_text(m) for m in source)


@dataclass
class SummaryEval:
    recall: float  # share of the facts kept, each as a whole token in its own case
    kept: list[str]
    missed: list[str]
    compression: float  # summary size / source size (lower is smaller)
    unsupported: list[str] = field(default_factory=list)
    # Missed facts that a loose match (any case, any part of a word) finds in the summary:
    # "dispatch tables" loosely holds DISPATCH. Never counted in `recall`.
    loose: list[str] = field(default_factory=list)

    @property
    def loose_recall(self) -> float:
        """The share of facts a loose match finds: kept ones and `loose` ones."""
        total = len(self.kept) + len(self.missed)
        return (len(self.kept) + len(self.loose)) / total if total else 1.0

    def __str__(self) -> str:
        total = len(self.kept) + len(self.missed)
        loose = f"; loose match {len(self.kept) + len(self.loose)}/{total}" if self.loose else ""
        return (f"recall {self.recall:.0%} ({len(self.kept)}/{total}{loose})"
                f", compression {self.compression:.1%}, unsupported {len(self.unsupported)}")


def eval_summary(
    summary: str,
    must_keep: Iterable[str],
    source: str | Sequence[Message],
    counter: TokenCounter | None = None,
) -> SummaryEval:
    """Recall of `must_keep` (whole tokens, case kept), compression against `source`,
    unsupported identifiers, and the missed facts that only a loose match finds."""
    source_text = _text(source)
    facts = list(dict.fromkeys(must_keep))
    kept = [f for f in facts if _mentions(summary, f)]
    missed = [f for f in facts if f not in kept]
    lowered = summary.lower() if missed else ""
    loose = [f for f in missed if f.lower() in lowered]  # the loose match
    size = counter.count_text if counter else estimate_tokens
    compression = size(summary) / max(size(source_text), 1)
    unsupported = sorted(i for i in identifiers(summary) if not _mentions(source_text, i))
    recall = len(kept) / len(facts) if facts else 1.0
    return SummaryEval(recall, kept, missed, compression, unsupported, loose)


_WORD_RUN = re.compile(r"[\w-]+")  # the runs `_wordish` characters make


def dropped_facts(before: Sequence[Message], after: Sequence[Message]) -> list[str]:
    """Identifiers visible before a compaction that no longer appear anywhere after it.

    `before` is read redacted (`redact.py`), message by message (most messages then skip
    most of its patterns): a credential is no fact a summary may keep, and a fact list
    (shown in events and views) must not carry one. An identifier made
    only of word characters occurs as a whole token exactly when it is one of the text's
    word runs, so those are looked up in a set; the rest (paths) are searched for. A
    message that `after` still holds (the same object) loses nothing, so it is not read."""
    after_text = _text(after)
    runs = set(_WORD_RUN.findall(after_text))
    kept = {id(m) for m in after}
    before_text = "\n".join(redact(message_text(m)) for m in before if id(m) not in kept)
    return sorted(i for i in identifiers(before_text)
                  if (i not in runs if _WORD_RUN.fullmatch(i) else not _mentions(after_text, i)))
