"""The maintained rule set (`secret_rules.py`): gitleaks' RE2 rules translate to Python
`re`, each compiles, and each finds a sample of its own (written from its pattern) through
`redact()` — so the keyword prefilter, the searched stretches and the entropy check let it
through; the file is read only when a text is first redacted."""

import re
import string
import subprocess
import sys
from pathlib import Path
from re import _constants as C  # noqa: N812
from re import _parser

import pytest

from jupyter_compaction import secret_rules
from jupyter_compaction.redact import redact

ALNUM = string.ascii_letters + string.digits


@pytest.mark.parametrize(("re2", "python"), [
    (r"ab(?i)cd", r"ab(?i:cd)"),  # a mid-expression flag: to the end of its group
    (r"(x(?i)y)z", r"(x(?i:y))z"),
    (r"(?i)abc", r"(?i)abc"),  # at the start it stays global
    (r"a\z", r"a\Z"),
    (r"[[:alnum:]_]+", r"[a-zA-Z0-9_]+"),
    (r"[a[b]", r"[a\[b]"),  # a "[" in a class is escaped (Python warns of nested sets)
    (r"[\w.-]{0,50}?(?:key)", r"(?:key)"),  # the name before a keyword is dropped
    (r"(?i)[\w.-]{0,50}?(?:key)", r"(?i)(?:key)"),
])
def test_translate(re2, python):
    assert secret_rules.translate(re2) == python


class _Sample:
    """Text matching a parsed pattern; characters cycle through each class, so a sample
    is as random as its rule's entropy asks."""

    def __init__(self) -> None:
        self.turn = 0
        self.groups: dict[int, str] = {}
        self.repeats: list[object] = []  # the repeats the current node is inside

    def pick(self, chars: str) -> str:
        self.turn += 7
        return chars[self.turn % len(chars)]

    def of(self, items) -> str:
        return "".join(self.item(op, av) for op, av in items)

    def item(self, op, av) -> str:  # noqa: C901 (one case per node type)
        if op is C.LITERAL:
            return chr(av)
        if op is C.NOT_LITERAL:
            return self.pick([c for c in ALNUM if ord(c) != av])
        if op is C.ANY:  # alone, most often meant as a dot (hooks.slack.com); in a lazy
            if not self.repeats:  # repeat, a gap between words
                return "."
            return " " if self.repeats[-1] is C.MIN_REPEAT else self.pick(ALNUM)
        if op is C.IN:
            return self.pick(self.members(av))
        if op is C.CATEGORY:
            return self.pick(self.members([(op, av)]))
        if op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
            low, high, sub = av
            count = low + 8 if low else int(op is C.MIN_REPEAT)  # lazy: one, parts words
            self.repeats.append(op)
            text = "".join(self.of(sub) for _ in range(min(count, high)))
            self.repeats.pop()
            return text
        if op is C.BRANCH:
            return self.of(av[1][0])
        if op is C.SUBPATTERN:
            text = self.of(av[3])
            if av[0]:
                self.groups[av[0]] = text
            return text
        if op is C.GROUPREF:
            return self.groups.get(av, "")
        return ""  # anchors and lookarounds: the sample is framed by spaces

    @staticmethod
    def members(items) -> str:
        chars, negate = [], False
        for op, av in items:
            if op is C.NEGATE:
                negate = True
            elif op is C.LITERAL:
                chars.append(chr(av))
            elif op is C.RANGE:
                chars += [chr(c) for c in range(av[0], av[1] + 1) if chr(c).isprintable()]
            elif op is C.CATEGORY:
                chars += {C.CATEGORY_DIGIT: string.digits, C.CATEGORY_SPACE: " ",
                          C.CATEGORY_WORD: ALNUM + "_", C.CATEGORY_NOT_SPACE: ALNUM,
                          C.CATEGORY_NOT_DIGIT: string.ascii_letters,
                          C.CATEGORY_NOT_WORD: "-"}.get(av, "")
        allowed = ("".join(c for c in ALNUM if c not in chars) if negate
                   else "".join(c for c in chars if c.isprintable()))
        return allowed or (" " if negate else "-")


def own_sample(rule: secret_rules.Rule) -> str:
    """A sample for `rule`, after its first keyword (which a match need not hold)."""
    parsed = _parser.parse(rule.pattern.pattern, rule.pattern.flags)
    return rule.keywords[0] + " " + _Sample().of(parsed) + " "


RULES = secret_rules.rules()


def test_the_rules_are_read_and_the_generic_one_left_out():
    assert len(RULES) > 200 and "generic-api-key" not in {r.kind for r in RULES}
    assert all(r.keywords for r in RULES)


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.kind)
def test_every_rule_finds_a_sample_of_its_own(rule):
    sample = own_sample(rule)
    match = rule.pattern.search(sample)
    assert match, f"{rule.kind} does not match its own sample {sample!r}"
    secret = match.group(rule.group)
    redacted = redact(sample)
    assert "[REDACTED" in redacted and secret not in redacted, (sample, redacted)


def test_the_rule_file_is_read_on_first_use_only():
    code = ("import jupyter_compaction, jupyter_compaction.redact as r, sys;"
            "from jupyter_compaction import secret_rules as s;"
            "assert s.rules.cache_info().currsize == 0; r.redact('x');"
            "assert s.rules.cache_info().currsize == 1")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_no_rule_needs_anything_but_the_standard_library():
    source = Path(secret_rules.__file__).read_text()
    assert re.search(r"^import tomllib$", source, re.M) and "yaml" not in source.lower()
