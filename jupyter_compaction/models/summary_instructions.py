"""What a summary prompt asks for, read the ways people write it.

`read_instructions(prompt)` returns the prompt's `Instructions`:

- sections, in order: heading lines (`## Goal`); names quoted in a sentence about
  sections or headings ("use exactly two sections, '## Goal' and '## Next Steps'"); or
  listed after one ("with these sections: Goal, Progress and Next Steps", or one per
  line below it as `- Goal` / `1. Goal`);
- length limits, the smallest per unit (words, tokens, lines or bullets): "at most /
  under / below / no more than / fewer than / less than / within / up to N words",
  "N words or fewer", "N words max", "a N-word summary", with N in digits or spelled out
  ("forty words", "two hundred tokens"); "at least 50 words" or "the file has 300 lines"
  are not limits;
- identifiers: True when it asks to keep them ("keep every identifier verbatim", "copy
  every ID"), False when it asks to leave them out ("leave out all identifiers", "do not
  keep ids", "no IDs"), None when it says neither. Each sentence that names identifiers
  counts its negations (not, never, no, without, and the verbs of leaving out: omit,
  drop, leave out ...): an odd count leaves them out ("don't drop IDs" keeps them). The
  last sentence that decides wins;
- focus: the words after "focus on", as lower-case words that can name a fact.

Left out: everything else a prompt may say (tone, audience, format beyond sections), and
any reading of meaning beyond these patterns.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

UNITS = {"word": "words", "token": "tokens", "line": "lines", "bullet": "bullets"}
ONES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
        "eighteen", "nineteen")
TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
        "eighty": 80, "ninety": 90}
SCALES = {"hundred": 100, "thousand": 1000}
NUMBER_WORD = "|".join([*ONES, *TENS, *SCALES])
NUMBER = (rf"\d[\d,]*|(?:{NUMBER_WORD})(?:(?:\s+|-|\s+and\s+)(?:{NUMBER_WORD}))*")
UNIT = r"(word|token|line|bullet)s?(?:\s+points?)?"
BEFORE = (r"at\s+most|under|below|no\s+more\s+than|not\s+more\s+than|fewer\s+than|"
          r"less\s+than|within|up\s+to|no\s+longer\s+than|a\s+maximum\s+of|max(?:imum)?|"
          r"not\s+(?:to\s+)?exceed(?:ing)?|limit(?:ed)?\s+to|keep\s+it\s+to|capped\s+at")
LIMITS = (  # each: (number group, unit group)
    re.compile(rf"\b(?:{BEFORE})\s+(?:of\s+)?({NUMBER})\s+{UNIT}\b", re.I),
    re.compile(rf"\b({NUMBER})\s+{UNIT}\s+(?:or\s+(?:fewer|less|under|below)|at\s+most|"
               rf"max(?:imum)?)\b", re.I),
    re.compile(rf"\ba\s+({NUMBER})[-\s]{UNIT}\s+(?:summary|limit|cap|maximum|max)\b", re.I),
)
HEADING = re.compile(r"^#{1,6}\s*(.+?)\s*$", re.M)
SECTION_WORD = re.compile(r"\b(?:sections?|headings?|headers?)\b", re.I)
QUOTED = re.compile(r"(?<!\w)['\"‘“`]#{0,6}\s*([^'\"‘’“”`\n]{1,40}?)['\"’”`](?!\w)")
LISTED = re.compile(r"\b(?:sections?|headings?|headers?)\b[^:\n]*:[ \t]*([^\n]*)", re.I)
LIST_ITEM = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+(.+?)\s*$")
LIST_SPLIT = re.compile(r"\s*(?:,\s*(?:and\s+|or\s+)?|;\s*|\s+and\s+|\s+then\s+)\s*", re.I)
SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+|;\s*|,\s+but\s+", re.I)
IDENTIFIER_WORD = re.compile(r"\b(?:identifiers?|ids?)\b", re.I)
KEEP_WORD = re.compile(r"\b(?:keep|preserve|retain|include|copy|quote|verbatim|exact|exactly|"
                       r"intact|word\s+for\s+word|survive)\b", re.I)
# Words that turn "identifiers" around; "without changing IDs" has two, so it keeps them.
NEGATION = re.compile(r"\b(?:not(?!\s+more)|never|no(?!\s+(?:more|longer|fewer|less)\b)|"
                      r"without|nor|omit\w*|drop\w*|remov\w*|exclud\w*|strip\w*|skip\w*|"
                      r"avoid\w*|discard\w*|redact\w*|leav\w*\s+out|left\s+out|chang\w*|"
                      r"alter\w*|paraphras\w*|shorten\w*|rewrit\w*|abbreviat\w*)\b|n't\b", re.I)
FOCUS = re.compile(r"\bfocus(?:ed)? on:?\s*(.+?)(?:\.\s|\.?$)", re.I | re.M)
FOCUS_WORD = re.compile(r"[\w./-]{3,}")
FOCUS_SKIP = {"the", "and", "for", "with", "about", "all", "any", "its", "our", "their", "what",
              "which", "that", "this", "how", "from", "into"}  # words that name no fact


@dataclass(frozen=True)
class Instructions:
    """What one summary prompt asks for (see the module docstring)."""

    sections: tuple[str, ...] = ()  # in order; empty when the prompt names none
    limits: dict[str, int] = field(default_factory=dict)  # unit -> at most this many
    identifiers: bool | None = None  # keep them (True), leave them out (False), unsaid
    focus: frozenset[str] = frozenset()


def read_instructions(prompt: str) -> Instructions:
    """The sections, limits, identifier rule and focus `prompt` states."""
    return Instructions(sections(prompt), limits(prompt), identifiers(prompt), focus(prompt))


def sections(prompt: str) -> tuple[str, ...]:
    """The section names, from heading lines, else quoted near the word "sections",
    else listed after it."""
    if found := HEADING.findall(prompt):
        return tuple(found)
    for sentence in SENTENCE.split(prompt):
        if SECTION_WORD.search(sentence) and len(quoted := QUOTED.findall(sentence)) > 1:
            return tuple(name.strip() for name in quoted)
    for match in LISTED.finditer(prompt):
        if inline := re.split(r"\.(?:\s|$)|;", match.group(1))[0].strip():  # one sentence
            return tuple(name.strip(" '\"") for name in LIST_SPLIT.split(inline) if name)
        below = prompt[match.end():].lstrip("\n").split("\n")
        if items := _leading_items(below):
            return tuple(items)
    return ()


def _leading_items(lines: list[str]) -> list[str]:
    """The list items (`- x`, `* x`, `1. x`) at the top of `lines`."""
    items = []
    for line in lines:
        if not (found := LIST_ITEM.match(line)):
            break
        items.append(found.group(1).rstrip("."))
    return items


def limits(prompt: str) -> dict[str, int]:
    """The smallest limit the prompt states for each unit."""
    found: dict[str, int] = {}
    for pattern in LIMITS:
        for number, unit in pattern.findall(prompt):
            value, name = parse_number(number), UNITS[unit.lower()]
            if value is not None and value > 0:
                found[name] = min(value, found.get(name, value))
    return found


def parse_number(text: str) -> int | None:
    """An integer written in digits ("1,000") or in English words ("two hundred and ten")."""
    text = text.strip().lower()
    if text[:1].isdigit():
        return int(text.replace(",", ""))
    total = current = 0
    for word in re.split(r"[\s-]+", text):
        if word in ONES:
            current += ONES.index(word)
        elif word in TENS:
            current += TENS[word]
        elif word in SCALES:
            current = max(current, 1) * SCALES[word]
            if SCALES[word] > 100:
                total, current = total + current, 0
        elif word != "and":
            return None
    return total + current


def identifiers(prompt: str) -> bool | None:
    """Whether the prompt asks to keep identifiers (True), leave them out (False), or
    says neither (None); the last sentence that decides wins."""
    verdict = None
    for sentence in SENTENCE.split(prompt):
        if not (IDENTIFIER_WORD.search(sentence) or re.search(r"\bverbatim\b", sentence, re.I)):
            continue
        negations = len(NEGATION.findall(sentence))
        if negations or KEEP_WORD.search(sentence):
            verdict = negations % 2 == 0
    return verdict


def focus(prompt: str) -> frozenset[str]:
    """The words of the focus a prompt names ("focus on: X"), lower-cased."""
    found = FOCUS.search(prompt)
    words = FOCUS_WORD.findall(found.group(1).lower()) if found else []
    return frozenset(w.strip("./-") for w in words) - FOCUS_SKIP - {""}
