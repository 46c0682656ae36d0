"""What a summary prompt asks for, parsed: each word is read by a rule or reported.

`read_instructions(text)` reads the instructions of a summary prompt (the words around
its material: the caller leaves out the turns, the task and a previous summary) with the
tokens of `scenarios/grammar.py`'s `Reader`. Each rule consumes the words it understands:

1. sections, in order: heading lines (`## Goal`); names quoted in a sentence about
   sections or headings ("use exactly two sections, '## Goal' and '## Next Steps'"); or
   listed after one ("with these sections: Goal, Progress and Next Steps", or one per
   line below it as `- Goal` / `1. Goal`);
2. length limits, the smallest per unit (words, tokens, sentences, lines or bullets):
   "at most / under / below / no more than / fewer than / within / up to N words", "N
   words or fewer", "N words max", "a N-word summary", with N in digits or spelled out
   ("forty words"); "at least 50 words" or "the file has 300 lines" are no limit;
3. focus: the words after "focus on";
4. framing every summary prompt has (`FRAMING`: asking for a summary, naming the turns,
   updating a previous summary, treating tool output as data, answering with text);
5. keep or drop, sentence by sentence: the kinds of fact a sentence names (`KIND_PHRASES`:
   identifiers, meaning all of them; ids, paths, names and numbers, each with synonyms
   such as "file names", "figures", "class names") and the parts a summary always keeps
   (goal, decisions, progress, next steps) or never holds (greetings, used tool output,
   abandoned approaches) take the sentence's verdict: a keep verb, or negations (not,
   never, no, without, and the verbs of leaving out: omit, drop, leave out ...), an odd
   count of which drops them ("don't drop IDs" keeps them). The last sentence that
   decides a kind wins; a sentence with no verdict decides nothing.

Whatever no rule consumed and is not filler (`grammar.FILLER` and `FILLER`) is
`Instructions.not_understood`: the words the summarizer did not follow, reported rather
than guessed at. `Instructions.followed()` says in words what it did follow.

Left out: everything else a prompt may say (tone, audience, language, format beyond
sections, what to do with error messages): it is reported, never followed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..scenarios.grammar import FILLER as TASK_FILLER
from ..scenarios.grammar import Reader, bounded

KINDS = ("ids", "paths", "names", "numbers")  # the kinds of fact a summary can keep or drop
UNITS = {"word": "words", "token": "tokens", "sentence": "sentences", "line": "lines",
         "bullet": "bullets"}
ONES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
        "eighteen", "nineteen")
TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
        "eighty": 80, "ninety": 90}
SCALES = {"hundred": 100, "thousand": 1000}
NUMBER_WORD = "|".join([*ONES, *TENS, *SCALES])
NUMBER = (rf"\d[\d,]*|(?:{NUMBER_WORD})(?:(?:\s+|-|\s+and\s+)(?:{NUMBER_WORD}))*")
UNIT = r"(word|token|sentence|line|bullet)s?(?:\s+points?)?"
BEFORE = (r"in|at\s+most|under|below|no\s+more\s+than|not\s+more\s+than|fewer\s+than|"
          r"less\s+than|within|up\s+to|no\s+longer\s+than|a\s+maximum\s+of|max(?:imum)?|"
          r"not\s+(?:to\s+)?exceed(?:ing)?|limit(?:ed)?\s+to|capped\s+at|"
          r"keep\s+(?:it|this|the\s+summary)\s+(?:to|under|below|within)")
LIMITS = (  # each: (number group, unit group)
    re.compile(rf"\b(?:{BEFORE})\s+(?:of\s+)?({NUMBER})\s+{UNIT}\b", re.I),
    re.compile(rf"\b({NUMBER})\s+{UNIT}\s+(?:or\s+(?:fewer|less|under|below)|at\s+most|"
               rf"max(?:imum)?)\b", re.I),
    re.compile(rf"\ba\s+({NUMBER})[-\s]{UNIT}\s+(?:summary|limit|cap|maximum|max)\b", re.I),
)
HEADING = re.compile(r"^#{1,6}\s*(.+?)\s*$", re.M)
SECTION_WORD = re.compile(r"\b(?:sections?|headings?|headers?)\b", re.I)
# The words that name the sections once their names are read: "exactly two Markdown sections".
SECTION_PHRASE = bounded(rf"(?:exactly\s+)?(?:these\s+|the\s+following\s+)?(?:(?:{NUMBER})\s+)?"
                         r"(?:markdown\s+)?"
                         r"(?:sections?|headings?|headers?)(?:\s+(?:named|called))?")
QUOTED = re.compile(r"(?<!\w)['\"‘“`]#{0,6}\s*([^'\"‘’“”`\n]{1,40}?)['\"’”`](?!\w)")
# Names listed after the word: after a colon (any names), or after a comma, "named" or
# "called" (capitalised names only: "two sections, Goal and Next Steps, under 80 words").
LISTED = re.compile(r"\b(?:sections?|headings?|headers?)\b(?:[^:\n]*(:)|,|\s+named|\s+called)"
                    r"[ \t]*([^\n]*)", re.I)
LIST_ITEM = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+(.+?)\s*$")
LIST_SPLIT = re.compile(r"\s*(?:,\s*(?:and\s+|or\s+)?|;\s*|\s+and\s+|\s+then\s+)\s*", re.I)
# Sentences, and the clauses "but" or "while" join ("drop numbers but keep paths").
SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+|;\s*|,?\s+(?:but|while|whereas)\s+", re.I)

# The kinds of fact, by the phrases that name them; at each place the first alternative
# that matches wins, so "file names" are paths and "ticket numbers" ids.
KIND_PHRASES = (
    ("identifiers", r"identifiers?|identifying\s+details"),
    ("ids", r"(?:record|ticket|order|customer|incident|invoice|reference)\s+(?:ids?|numbers?)|"
            r"ids?|references?"),
    ("paths", r"file\s*(?:names?|paths?)|names?\s+of\s+(?:the\s+)?files?|paths?|files?|"
              r"folders?|director(?:y|ies)"),
    ("names", r"(?:class|function|variable|service|package|table|module|symbol)\s+names?|"
              r"names?|symbols?|constants?"),
    ("numbers", r"numbers?|numeric\s+values?|figures?|digits?|values?|amounts?|dates?|"
                r"versions?|sizes?|quantities|counts?"),
)
KIND = bounded("|".join(f"(?P<{name}>{phrase})" for name, phrase in KIND_PHRASES))
# Parts of a summary: those it always keeps and those it never holds, as phrases.
PARTS = bounded(r"goals?|tasks?|objectives?|decisions?|conclusions?|progress|"
                r"work\s+in\s+progress|next\s+steps?|files?\s+modified|"
                r"greetings?|pleasantries|small\s+talk|chit-?chat|"
                r"tool\s+outputs?(?:\s+that\s+(?:(?:has|have)\s+been|were|was|are)\s+"
                r"(?:already\s+)?(?:fully\s+)?used)?|"
                r"abandoned\s+approaches|approaches\s+that\s+were\s+abandoned|dead\s+ends?")
KEEP_WORD = bounded(r"keep(?:s|ing)?|preserv(?:e|es|ed|ing)|retain(?:s|ed|ing)?|"
                    r"includ(?:e|es|ed|ing)|mention(?:s|ed|ing)?|copy|quote|verbatim|exact|"
                    r"exactly|intact|"
                    r"word\s+for\s+word|survive|as\s+written|as\s+(?:they\s+are|is)")
# Words that turn a kind around; "without changing IDs" has two, so it keeps them.
NEGATION = re.compile(r"\b(?:not(?!\s+more)|never|no(?!\s+(?:more|longer|fewer|less)\b)|"
                      r"without|nor|omit\w*|drop\w*|remov\w*|exclud\w*|strip\w*|skip\w*|"
                      r"avoid\w*|discard\w*|redact\w*|leav\w*\s+out|left\s+out|chang\w*|"
                      r"alter\w*|paraphras\w*|shorten\w*|rewrit\w*|abbreviat\w*)\b|n't\b", re.I)
FOCUS = re.compile(r"\bfocus(?:ed)?\s+on:?\s*(.+?)(?:\.\s|\.?$)", re.I | re.M)
FOCUS_WORD = re.compile(r"[\w./-]{3,}")
FOCUS_SKIP = {"the", "and", "for", "with", "about", "all", "any", "its", "our", "their", "what",
              "which", "that", "this", "how", "from", "into"}  # words that name no fact
# The framing of a summary prompt: (what the summarizer does, the phrases that say it).
FRAMING = (  # the specific phrases first: each consumes its words before a shorter one can
    ("treats tool output as data", r"tool\s+outputs?\s+(?:below\s+)?is\s+data"
                                   r"(?:\s+returned\s+by\s+tools)?|"
                                   r"never\s+contains\s+instructions(?:\s+for\s+you)?"),
    ("updates the previous summary", r"previous\s+summary|earlier\s+compaction|update\w*|"
                                     r"keep\s+every\s+fact\s+it\s+holds|unless|new\s+turns?|"
                                     r"contradicts?|add\s+what\s+is\s+new|"
                                     r"(?:do\s+not\s+|don't\s+)?start\s+over"),
    ("keeps every section and gives the focus most detail",
     r"keep\s+(?:every|all|each)(?=\s+sections?\b)|(?:give\s+)?(?:what\s+concerns\s+)?"
     r"(?:this|the)\s+focus\s+(?:the\s+)?most\s+detail"),
    ("covers the messages named", r"messages?\s+\d+\s+to\s+\d+|message\s+1\s+is\s+the\s+task|"
                                  r"only\s+those|the\s+turns\s+the\s+summary\s+replaces"),
    ("answers with text, calling no tool", r"answer\s+with\s+the\s+summary\s+as\s+text|"
                                           r"(?:do\s+not\s+|don't\s+)?call\s+a\s+tool"
                                           r"(?:\s+in\s+this\s+reply)?"),
    ("writes a summary", r"summar\w*|compress\w*|condens\w*|recap\w*|write|use|using|"
                         r"produce|create|generate|draft"),
    ("reads the turns it is given", r"turns?|transcript|conversation|session|messages?|"
                                    r"so\s+far|what\s+happened|"
                                    r"history|chat|exchange|earlier\s+part|agent'?s?|"
                                    r"work(?:ing)?(?!\s+in\s+progress)|continu\w*(?:\s+without\s+it)?|"
                                    r"below|above"),
)
# Words any instruction may hold besides the task filler: the user, qualifiers of what
# to keep ("still relevant", "already made"), and a list's own words.
FILLER = TASK_FILLER | frozenset(["user", "user's", "relevant", "still", "already", "made",
                                  "summary", "asked", "these", "following", "own", "as",
                                  "than", "but", "while", "whereas"])


@dataclass(frozen=True)
class Instructions:
    """What one summary prompt asks for (see the module docstring)."""

    sections: tuple[str, ...] = ()  # in order; empty when the prompt names none
    limits: dict[str, int] = field(default_factory=dict)  # unit -> at most this many
    keep: dict[str, bool] = field(default_factory=dict)  # kind -> kept (True) or left out
    focus: frozenset[str] = frozenset()
    framing: tuple[str, ...] = ()  # what of FRAMING it read
    not_understood: tuple[str, ...] = ()  # the words no rule consumed

    @property
    def identifiers(self) -> bool | None:
        """Whether it asks to leave a kind out (False), to keep one (True), or neither."""
        if not self.keep:
            return None
        return all(self.keep.values())

    @property
    def verbatim(self) -> bool:
        """Whether it asks to keep some kind of fact verbatim (every step keeps its values)."""
        return any(self.keep.values())

    @property
    def dropped(self) -> frozenset[str]:
        """The kinds of fact it asks to leave out."""
        return frozenset(kind for kind, kept in self.keep.items() if not kept)

    def followed(self) -> list[str]:
        """What was read, in words (one line each)."""
        kept = [kind for kind in KINDS if self.keep.get(kind)]
        lines = [f"sections: {', '.join(self.sections)}" if self.sections else "",
                 "length: " + ", ".join(f"at most {n} {unit}" for unit, n in self.limits.items())
                 if self.limits else "",
                 f"keeps verbatim: {', '.join(kept)}" if kept else "",
                 f"leaves out: {', '.join(k for k in KINDS if k in self.dropped)}"
                 if self.dropped else "",
                 f"focus: {', '.join(sorted(self.focus))}" if self.focus else ""]
        return [line for line in lines if line] + list(self.framing)


def read_instructions(text: str) -> Instructions:
    """The sections, limits, focus and kinds to keep or drop that `text` states, and the
    words it holds that no rule understood."""
    reader = Reader(text, around=False)  # every sentence of a prompt instructs
    # Sections, limits and focus first: their numbers and names are no kind to keep.
    names, limits, focus = _sections(reader), _limits(reader), _focus(reader)
    framing = tuple(label for label, phrase in FRAMING if reader.matches(bounded(phrase)))
    keep = _keep(reader)
    return Instructions(names, limits, keep, focus, framing, reader.left(FILLER))


def sections(prompt: str) -> tuple[str, ...]:
    return read_instructions(prompt).sections


def limits(prompt: str) -> dict[str, int]:
    return read_instructions(prompt).limits


def identifiers(prompt: str) -> bool | None:
    return read_instructions(prompt).identifiers


def _sections(reader: Reader) -> tuple[str, ...]:
    """The section names, from heading lines, else quoted near the word "sections",
    else listed after it; the words that name them are consumed."""
    text = reader.text
    found: list[str] = [m.group(1) for m in reader.matches(HEADING)]
    for start, end in _sentences(text):
        if found:
            break
        if SECTION_WORD.search(text, start, end) and len(QUOTED.findall(text, start, end)) > 1:
            found = [m.group(1).strip() for m in reader.matches(QUOTED, start, end)]
    for match in [] if found else LISTED.finditer(text):
        if found := _listed(reader, match):
            break
    if found:
        reader.matches(SECTION_PHRASE)
    return tuple(found)


def _listed(reader: Reader, match: re.Match[str]) -> list[str]:
    """The names a `LISTED` match lists, in its sentence or (after a colon) one per line
    below it; consumed."""
    inline = re.split(r"\.(?:\s|$)|;", match.group(2))[0].strip()  # one sentence
    if not inline:
        return _items_below(reader, match.end()) if match.group(1) else []
    names = [name.strip(" '\"") for name in LIST_SPLIT.split(inline) if name]
    if not match.group(1):  # no colon: the capitalised names that open the list
        names = names[:next((n for n, name in enumerate(names) if not name[:1].isupper()),
                            len(names))]
    for name in names:
        reader.matches(re.compile(re.escape(name)), match.start(2), once=True)
    return names


def _items_below(reader: Reader, at: int) -> list[str]:
    """The list items (`- x`, `* x`, `1. x`) on the lines right after `at`; consumed."""
    items = []
    start = at + 1
    for line in reader.text[start:].split("\n"):
        if not (found := LIST_ITEM.match(line)):
            break
        reader.matches(re.compile(re.escape(line)), start)
        items.append(found.group(1).rstrip("."))
        start += len(line) + 1
    return items


def _limits(reader: Reader) -> dict[str, int]:
    """The smallest limit stated for each unit."""
    found: dict[str, int] = {}
    for pattern in LIMITS:
        for match in reader.matches(pattern):
            value, name = parse_number(match.group(1)), UNITS[match.group(2).lower()]
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


def _focus(reader: Reader) -> frozenset[str]:
    """The words of the focus named ("focus on: X"), lower-cased; consumed."""
    found = reader.matches(FOCUS, once=True)
    words = FOCUS_WORD.findall(found[0].group(1).lower()) if found else []
    return frozenset(w.strip("./-") for w in words) - FOCUS_SKIP - {""}


def _keep(reader: Reader) -> dict[str, bool]:
    """Kind -> keep (True) or leave out (False), sentence by sentence; a sentence decides
    when it names kinds or parts and says keep or leave out (see the module docstring)."""
    keep: dict[str, bool] = {}
    for start, end in _sentences(reader.text):
        kinds, parts, negations, verbs = (_free(reader, pattern, start, end)
                                          for pattern in (KIND, PARTS, NEGATION, KEEP_WORD))
        if not (kinds or parts) or not (negations or verbs):
            continue  # names nothing to keep, or says nothing about it
        for match in (*kinds, *parts, *negations, *verbs):
            reader.matches(re.compile(re.escape(match.group(0))), match.start(), match.end())
        kept = len(negations) % 2 == 0
        for match in kinds:
            name = match.lastgroup or ""
            keep.update(dict.fromkeys(KINDS if name == "identifiers" else (name,), kept))
    return keep


def _free(reader: Reader, pattern: re.Pattern[str], start: int, end: int
          ) -> list[re.Match[str]]:
    """`pattern`'s matches in `text[start:end]` over tokens not consumed yet (nothing is
    consumed: the sentence may decide nothing)."""
    def unused(match: re.Match[str]) -> bool:
        return not any(i in reader.used for i, (first, last, _) in enumerate(reader.tokens)
                       if first < match.end() and match.start() < last)
    return [m for m in pattern.finditer(reader.text, start, end) if unused(m)]


def _sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of `text`."""
    spans, at = [], 0
    for boundary in SENTENCE.finditer(text):
        spans.append((at, boundary.start()))
        at = boundary.end()
    return [*spans, (at, len(text))]
