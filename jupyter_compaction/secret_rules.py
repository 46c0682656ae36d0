"""A maintained rule set for secrets: gitleaks' rules, read from the vendored
`vendored/gitleaks.toml` (MIT, attribution in that file) and translated to Python `re`.

Each gitleaks rule is a regular expression in RE2 syntax, the `keywords` one of which every
match holds (a cheap prefilter: a text without any of them is never searched), optionally
the capture group that is the secret (`secretGroup`, else the first group, else the whole
match) and a minimum Shannon `entropy` of that secret. `rules()` reads the file once, on
first use (never at import), with `tomllib` (pure Python: it runs in the browser build),
and `translate()` turns RE2 into Python `re`:

- a flag group in mid-expression (`ab(?i)cd`, which RE2 applies to the rest of its group)
  becomes a scoped group (`ab(?i:cd)`);
- `\\z` (end of text) becomes `\\Z`; POSIX classes (`[[:alnum:]]`) become ranges; a `[`
  inside a class is escaped;
- a leading `[\\w.-]{0,50}?` (the name before a keyword, which only widens the match) is
  dropped: it changes no secret found, and tried lazily at every position it would make
  each search slow.

Left out: rules without keywords (file-path rules) and the generic entropy-only rule
(`generic-api-key`: any long random value after "key", which would also take the ids and
hashes a summary must keep); rule allowlists (a sample the rule would skip is redacted).
"""

from __future__ import annotations

import math
import re
import tomllib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from importlib import resources

SOURCE = "vendored/gitleaks.toml"
BEFORE, AFTER = 256, 8192  # how far a match may start before its keyword and end after it
LEFT_OUT = frozenset({"generic-api-key"})  # entropy-only: any random value after "key"
POSIX = {"alnum": "a-zA-Z0-9", "alpha": "a-zA-Z", "digit": "0-9", "lower": "a-z",
         "upper": "A-Z", "space": r"\s", "xdigit": "0-9a-fA-F", "word": r"\w",
         "punct": r"!-/:-@\[-`{-~"}
_NAME_PREFIX = re.compile(r"^(\(\?i\))?\[\\w\.-\]\{0,\d+\}\?")


@dataclass(frozen=True)
class Rule:
    """One rule: `kind` (its gitleaks id), `pattern`, the `keywords` (lower case) one of
    which a text must hold to be searched, the secret's `group` and its least `entropy`."""

    kind: str
    pattern: re.Pattern[str]
    keywords: tuple[str, ...]
    group: int
    entropy: float

    def secrets(self, text: str, folded: str) -> Iterator[tuple[int, int]]:
        """The spans of this rule's secrets in `text` (`folded` is its case-folded copy),
        each random enough. Only the stretches around its keywords are searched, which
        keeps a long text with a common keyword ("ey", "api-") fast."""
        for start, end in _around(folded, self.keywords, len(text)):
            for match in self.pattern.finditer(text, start, end):
                if match.end() == end < len(text):
                    continue  # cut by the stretch's end: its keyword is too far away
                first, last = match.span(self.group)
                if first >= 0 and entropy(text[first:last]) >= self.entropy:
                    yield first, last


def _around(folded: str, keywords: tuple[str, ...], size: int) -> list[tuple[int, int]]:
    """The stretches of a text that may hold a match: from `BEFORE` characters before
    each keyword to `AFTER` after it, overlapping ones merged; the whole text when its
    folded copy is not as long (a character that folds to two)."""
    if len(folded) != size or size <= AFTER:  # a short text: searched whole, if at all
        return [(0, size)] if any(k in folded for k in keywords) else []
    places = sorted(at for k in keywords for at in _places(folded, k))
    stretches: list[tuple[int, int]] = []
    for at in places:
        start, end = max(0, at - BEFORE), min(size, at + AFTER)
        if stretches and start <= stretches[-1][1]:
            stretches[-1] = (stretches[-1][0], end)
        else:
            stretches.append((start, end))
    return stretches


def _places(text: str, keyword: str) -> Iterator[int]:
    at = text.find(keyword)
    while at >= 0:
        yield at
        at = text.find(keyword, at + 1)


def entropy(text: str) -> float:
    """The Shannon entropy of `text`, in bits per character."""
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


def translate(expression: str) -> str:
    """An RE2 `expression` as a Python `re` pattern (see the module docstring)."""
    expression = _NAME_PREFIX.sub(lambda m: m.group(1) or "", expression)
    out: list[str] = []
    closers: list[int] = [0]  # per open group: the flag groups to close with it
    i, in_class = 0, False
    while i < len(expression):
        char = expression[i]
        if char == "\\":  # an escape: copied as it is, but \z
            pair = expression[i:i + 2]
            out.append(r"\Z" if pair == r"\z" else pair)
            i += 2
            continue
        if in_class:
            posix = re.match(r"\[:(\w+):\]", expression[i:])
            if posix and posix.group(1) in POSIX:
                out.append(POSIX[posix.group(1)])
                i += posix.end()
                continue
            in_class = char != "]"
            out.append("\\[" if char == "[" else char)
        elif char == "[":
            in_class = True
            out.append(char)
            if expression[i + 1:i + 2] == "]":  # a "]" first in a class is a literal
                out.append("\\]")
                i += 1
        elif (flags := re.match(r"\(\?([imsU-]+)\)", expression[i:])) and out:
            out.append(f"(?{flags.group(1)}:")  # to the end of the enclosing group
            closers[-1] += 1
            i += flags.end()
            continue
        elif char == "(":
            closers.append(0)
            out.append(char)
        elif char == ")":
            out.append(")" * closers.pop() + char)
        else:
            out.append(char)
        i += 1
    return "".join(out) + ")" * closers[0]


def present(folded: str, among: list[Rule] | None = None) -> list[Rule]:
    """The rules (of `among`, else of all) one of whose keywords the case-folded text
    `folded` holds, in file order. Among all rules, one scan finds the keywords: the
    longest keyword at each place (a trie of them all, as one pattern), which stands for
    every keyword inside it too. (A keyword that starts inside another's occurrence and
    runs past its end is found only where it occurs on its own.)"""
    if among is not None:
        return [rule for rule in among if any(k in folded for k in rule.keywords)]
    pattern, inside, by_keyword = _keywords()
    chosen = {id(rule) for longest in set(pattern.findall(folded))
              for keyword in inside[longest] for rule in by_keyword[keyword]}
    return [rule for rule in rules() if id(rule) in chosen] if chosen else []


@cache
def _keywords() -> tuple[re.Pattern[str], dict[str, list[str]], dict[str, list[Rule]]]:
    """The keyword scan, the keywords inside each keyword, and the rules each selects."""
    by_keyword: dict[str, list[Rule]] = {}
    for rule in rules():
        for keyword in rule.keywords:
            by_keyword.setdefault(keyword, []).append(rule)
    inside = {k: [i for i in by_keyword if i in k] for k in by_keyword}
    return re.compile(_trie(list(by_keyword))), inside, by_keyword


def _trie(words: list[str]) -> str:
    """A pattern matching the longest of `words` that starts at a place: their shared
    beginnings written once, so each place costs one path down, not a try per word."""
    tree: dict[str, dict] = {}
    for word in words:
        node = tree
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}  # a word ends here

    def pattern(node: dict[str, dict]) -> str:
        branches = [re.escape(char) + pattern(child) for char, child in sorted(node.items())
                    if char]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else f"(?:{'|'.join(branches)})"
        return f"(?:{body})?" if "" in node else body
    return pattern(tree)


@cache
def rules() -> tuple[Rule, ...]:
    """The vendored rules that have keywords, translated and compiled (read once)."""
    text = resources.files(__package__).joinpath(SOURCE).read_text(encoding="utf-8")
    found = []
    for rule in tomllib.loads(text)["rules"]:
        if rule["id"] in LEFT_OUT or not rule.get("keywords") or "regex" not in rule:
            continue
        pattern = re.compile(translate(rule["regex"]))
        group = rule.get("secretGroup", 1 if pattern.groups else 0)
        found.append(Rule(rule["id"], pattern, tuple(k.lower() for k in rule["keywords"]),
                          group, float(rule.get("entropy", 0))))
    return tuple(found)
