"""Reading a task as one declared question: parse, don't spot.

Each `Question` of a scenario declares a small grammar (`Grammar`): the phrases that name
its attribute (`heads`, one of which must appear), the other phrases it accepts (`words`),
its slots (`Slot`: an entity read from the text, such as a path, an id or a service, with
aliases, a default and, for a verb with two sides, its `Role`: "files that import X" asks
about X as the object of "import", "what X imports" about X as its subject) and the
operators it supports:

- "exclude": "except / other than / not counting / ignoring ... <entity>" leaves items out;
- "not": negation ("do not", "lack", "no", "missing a"), the complement of a set;
- "count": "how many", "count", "number of";
- "largest": a superlative ("largest", "biggest");
- "ontime": "on time" where "late" is the attribute, which turns a yes/no around;
- "yesno": a question that opens with "is / does / has ...", ends "yes or no", "or not",
  "or no?" or ", right?", or asks "whether ...".

`read(name, grammar, task)` splits the task into tokens and lets the question consume what
its slots, head phrases, operators and other phrases cover, in that order; the rest must be
declared filler (articles, pronouns, politeness, a few task verbs such as "tell" or "list")
or lie in an aside, what the task says around its question (`asides.py`: "I'm debugging
the 504s: ...", "Would you mind ...", a sentence that states rather than asks). A head
phrase must be found outside the asides. A question that leaves a content word unconsumed
did not understand the task, so a task that adds an attribute, an entity or an operator no
question declares is refused, naming those words, instead of being answered as the
question whose keywords it happens to contain; so is a task that orders a change and asks
nothing ("Book the first free slot."), or orders one as a second step ("... and book it",
not "... and refund rules", where the word names a kind of thing): that verb (`CHANGES`) is
no question's word.
Among the questions that consume everything, the one that consumes most content words wins;
on a tie, the one with fewer operators (a yes/no is the question's form, not one of them).

Pure Python (regular expressions only): it runs offline and in the browser build.

Left out: synonyms a grammar does not declare, spelling mistakes (a task refused for a
misspelt word is read again by `Scenario.respelled`, `spelling.py`), and several questions in
one task: a parse reads one question (the second question's words stay unconsumed);
`Scenario.parts` splits a task of several ("X? and Y?") and parses each part. `Reader`
is shared with the summary prompt's reader (`models/summary_instructions.py`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from functools import lru_cache

from jupyter_compaction.scenarios import asides

# Words any task may contain without changing what it asks: articles, pronouns, auxiliary
# verbs, prepositions, politeness, time phrases, the verbs that only say "answer me", and
# the words for the workspace itself ("repo", "codebase"), and those that name a source
# ("according to the tracking": the source's own words must still be understood).
FILLER = asides.word_set("""
a an the this that these those it its it's there here what what's which whichever whatever
is are was were be been being do does did has have had got get gets having
of in on at to for from by with into under inside within across through about among
and or any some all every each also just only then so other such whether
i me my we us our you your he she her him his they them their one ones own itself themselves
i'd i'm i've we'd we're we've you've they've let's that's they're there's it'd
please kindly pls plz thanks thank thx could can would will may might shall should ought let
tell give show list enumerate name find report say look up see check read open go lookup
point out anywhere search figure quick question total looking wants wanted wonder wondering
identify determine explain describe confirm produce provide pull fetch grab gimme remind
summarise summarize
establish
telling listing checking pointing showing giving finding naming looking reporting
identifying determining explaining describing
know need want like ok okay hey hi bit
now today currently right away quickly briefly exactly moment rn atm roughly approximately
altogether overall suddenly specific particular someone somebody anyone anybody
actually really basically simply still already again entirely full complete entire whole
anything something everything thing stuff kind overview rundown breakdown picture w/ em
agent class everyone walk scan whatsoever else number / &
i.e e.g ie eg w.r.t wrt whats thats theres u ur q lol im ive ls
repo repository codebase project workspace bundle snapshot folder directory dir cfg config
svc svcs via grep double-check tl dr tldr
tho though lists dump must
according going based judging judged per using
but curious somewhere one's
we'll you'll i'll it'll they'll s
""")
# Verbs that order a change instead of asking ("Book the first free slot.", "Fix the
# violations."): a task that opens with one and asks nothing is not a question, so that verb
# is no question's word and the task is refused naming it.
CHANGES = asides.word_set("""book rebook schedule reschedule fix refund send cancel remove delete
add create update change replace rename upgrade downgrade raise lower move copy patch edit
translate rewrite refactor convert deploy install uninstall bump pin unpin revert draw plot roll
rollback""")
# What an ordering verb acts on ("book it", "refund the amount", "upgrade every package").
OBJECTS = asides.word_set("""it them the a an this that these those their its his her our my
your every each all any some one""")
WH = re.compile(r"\b(?:what|which|who|whom|whose|how|why|when|where|whether)\b", re.I)
# a yes/no opener ("Got a table in there?" drops its "has it")
AUX = asides.word_set("is are was were does do did has have got can any anything")
# ... unless it opens a request: "Can you tell me why ...?" asks why, not yes or no.
REQUEST = re.compile(r"(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:tell|show|give|list|"
                     r"find|explain|describe|name|say|report|look|see|figure|point|identify|"
                     r"determine|get|let)\b", re.I)
# A yes/no question said otherwise than by its opener: "..., yes or no?", "... or not?",
# "tell me whether ...", "check if ...".
YES_OR_NO = (r"yes\s+or\s+no|yes/no|true\s+or\s+false|or\s+not|or\s+nah|y/n|whether|"
             r"(?:does|do|is|are|has|have)\s+(?:it|they)\s+or\s+(?:doesn't|don't|isn't|aren't|"
             r"hasn't|haven't)\s+(?:it|they)|"
             r"(?<=,\s)(?:does|do|is|are|has|have)\s+(?:it|they|we)\b|it\s+true\s+that|"
             r"(?<=\bconfirm\s)(?:that|if)|"
             r"(?<=\bme\s)if|(?<=\bcheck\s)if|(?<=\bknow\s)if|(?<=\bsee\s)(?<!let's\ssee\s)if|"
             r"or\s+no(?=\s*[?.!]?\s*$)|(?<=,\s)right(?=\s*\?)")

ATTRIBUTE = "attribute"  # a parse that found none of its head phrases misses this

# Operator phrases (exclusion takes its entity through the question's `exclude` slot).
EXCLUDING = (r"(?:but\s+)?(?:except(?:\s+for)?|excluding|exclude|other\s+than|without|"
             r"(?:apart|aside)\s+from|besides|"
             r"not\s+counting|without\s+counting|ignoring|ignore|skipping|skip|"
             r"leaving\s+out|leave\s+out|(?:leaving|setting|putting)\s+aside|minus)")
SET_ASIDE = r"(?:but\s+)?(?:leaving|leave|setting|set|putting|put)"
# An exclusion that points back: "apart from that one", "leaving that file out", "I know
# about agents/router.py - which other files ...".
THAT_ONE = (r"{excluding}\s+(?:that|this|it)(?:\s+(?:one|file|module))?|"
            rf"{SET_ASIDE}\s+(?:that|this|it)(?:\s+(?:one|file|module))?\s+(?:out|aside)|"
            r"other(?=\s+(?:files?|modules?|ones)\b)")
# "but not Y" leaves Y out of a list ("every module but not agents/loop.py"), yet after a
# verb's object it negates the verb for Y ("files that import X but not Y"), which no
# question with such a verb (a slot's `Role`) supports: there it is not an exclusion.
BUT_NOT = r"but\s+not"
ONTIME = "ontime"
OPERATORS = {
    # "dont" typed without its apostrophe too, and "(anything) other than MIT"
    "not": r"do(?:es)?\s+not|(?:do|does|are|is|was|were|has|have)n'?t|not|no|lacks?|lacking|"
           r"without|none|never|(?:other|else)\s+than|missing(?=\s+(?:an?|any|the)\b)|nothing\s+(?:in\s+(?:them|it)\s+)?about",
    # ... not "how many times" or "how many seconds": a measure, not a count of the items
    "count": r"how\s+many(?!\s+(?:times|tries|attempts|retries|seconds|minutes|hours|days)\b)|"
             r"how\s+much(?=\s+\w+s\b)|count(?:ing)?|number\s+of|tally|\#\s*of",
    "largest": r"largest|biggest|bulkiest|heftiest|chunkiest|the\s+most\s+bytes|"
               r"(?:the\s+)?most\s+(?:big|large)|"
               r"(?:takes?\s+up\s+)?(?:the\s+)?most\s+(?:disk\s+)?(?:space|room)",
    # a yes/no asked as "on time?" (or "by the promised date?") rather than "late?"
    ONTIME: r"on\s+time|in\s+time|"
            r"by\s+the\s+(?:promised\s+)?(?:date|day)(?:\s+we\s+promised(?:\s+it)?)?",
}
_TOKEN = re.compile(r"[./]*\w[\w./'-]*[\w/]|[./]*\w|/")  # a lone / is a route


def bounded(phrase: str, inflected: bool = False) -> re.Pattern[str]:
    """`phrase` matched as whole tokens, case-insensitively ("gateway" is not the end of
    "payment-gateway", "core" is not inside "markdown/core.py"); `inflected`, in its
    inflected forms too ("contain" reads "contains", "declare" "declared")."""
    ending = r"(?:e?s|e?d)?" if inflected else ""
    return re.compile(rf"(?<![\w./-])(?:{phrase}){ending}(?![\w/-]|\.\w)", re.I)


# Words that may stand between a verb and its object ("import the module `.util`").
_GAP = r"(?:\s|[`'\"])*"  # spaces and quotes
_BETWEEN = rf"{_GAP}(?:(?:the|a|an|file|module|package|from|anything|something)\b{_GAP})*"
# Auxiliaries that may stand between an object and the verb's passive ("X is imported").
_PASSIVE = r"(?:[`'\"]?\s*(?:is|are|was|were|gets?|got|being|been|also|ever)\b)*\s*"


@dataclass(frozen=True)
class Role:
    """Which side of `verb` (a stem: "import") a slot's value stands on: its object
    ("import X", "importing the module X", "X is imported by") when `object`, else any
    other place ("X imports", "imported by X", "the imports of X"). `synonyms` are other
    active forms that take the same object ("depends on X", "uses X")."""

    verb: str
    object: bool
    synonyms: str = ""  # a regular expression of whole active forms

    def accepts(self, match: re.Match[str]) -> bool:
        """Whether the value `match` found stands on this role's side of the verb."""
        text = match.string
        active = rf"{self.verb}(?:s|es|ing)?" + (f"|{self.synonyms}" if self.synonyms else "")
        before = re.search(rf"\b(?:{active}){_BETWEEN}$", text[:match.start()], re.I) or \
            re.search(r"\bfrom\s+$", text[:match.start()], re.I) and \
            re.match(rf"\s+{self.verb}\b", text[match.end():], re.I)  # "from X import"
        after = re.match(rf"{_PASSIVE}{self.verb}e?d\b", text[match.end():], re.I)
        return (before is not None or after is not None) == self.object


@dataclass(frozen=True)
class Slot:
    """An entity a question reads from the task: `pattern` (group 1 is the value, found
    as whole tokens), `aliases` (phrase -> value) and a `default` when none is named."""

    name: str
    pattern: str = ""
    default: str | None = None
    aliases: tuple[tuple[str, str], ...] = ()
    many: bool = False
    optional: bool = False  # a question may go without it (see Grammar.any_slot)
    role: Role | None = None  # the side of a verb its value must stand on
    upper: bool = False  # an id written in any case is the same id ("tck-5521")
    under: str = ""  # a file named without its folder lies in this one ("router.py")

    def value(self, written: str) -> str:
        """The entity a value written in the task names (see `upper` and `under`)."""
        value = written.upper() if self.upper else written
        return f"{self.under}/{value}" if self.under and "/" not in value else value


@dataclass(frozen=True)
class Grammar:
    """How a task asks one question (see the module docstring)."""

    heads: tuple[str, ...]
    words: tuple[str, ...] = ()
    slots: tuple[Slot, ...] = ()
    operators: tuple[str, ...] = ()
    exclude: Slot | None = None  # the entity "except ..." takes, for the "exclude" operator
    any_slot: bool = False  # at least one of its (optional) slots must be named


@dataclass
class Parse:
    """One question's reading of a task: its slots and operators, and the content words
    it could not consume (none: the task asks this question)."""

    name: str
    slots: dict[str, str] = field(default_factory=dict)
    operators: tuple[str, ...] = ()
    unconsumed: tuple[str, ...] = ()
    consumed: int = 0
    applies: bool = True  # a head phrase and every required slot were found
    missing: str = ""  # why it does not apply: a required slot's name, or ATTRIBUTE

    @property
    def understood(self) -> bool:
        return self.applies and not self.unconsumed


class Reader:
    """The tokens of a task and which of them a grammar has consumed so far."""

    def __init__(self, task: str, around: bool = True):
        self.text = task
        self.tokens = [(m.start(), m.end(), m.group(0)) for m in _TOKEN.finditer(task)]
        self.used: set[int] = set()
        # the tokens no grammar must take: what a question's task says around it
        # (`asides.py`); `around` False for a text of instructions, each of which counts
        self.aside = _asides(task) if around else frozenset()
        self.ordered = _ordered(task, self.tokens, self.aside) if around else frozenset()

    def _before_used(self, pattern: re.Pattern[str], match: re.Match[str],
                     hit: set[int]) -> re.Match[str] | None:
        """`pattern` matched again at `match`'s start, ending before the first consumed
        token it ran into ("before" alone where "before it gives up" lost "gives up")."""
        limit = min(self.tokens[i][0] for i in hit & self.used)
        return pattern.match(self.text, match.start(), limit) if limit > match.start() else None

    def _hit(self, match: re.Match[str]) -> set[int]:
        """The indices of the tokens `match` overlaps."""
        return {i for i, (first, last, _) in enumerate(self.tokens)
                if first < match.end() and match.start() < last}

    def take(self, pattern: re.Pattern[str], group: int = 0, once: bool = False,
             role: Role | None = None, start: int = 0, end: int | None = None,
             asked: bool = False) -> list[str]:
        """The values of `pattern`'s matches in `text[start:end]` over tokens not yet
        consumed (on `role`'s side of its verb, when given; outside the asides, when
        `asked`); consumes them."""
        return [match.group(group)
                for match in self.matches(pattern, start, end, once, role, asked)]

    def matches(self, pattern: re.Pattern[str], start: int = 0, end: int | None = None,
                once: bool = False, role: Role | None = None,
                asked: bool = False) -> list[re.Match[str]]:
        """`pattern`'s matches in `text[start:end]` over tokens not yet consumed (a match
        over no token, over a consumed one, or off `role`'s side, is skipped); consumes
        their tokens. With `once`, the first match outside the asides, else the first."""
        candidates = list(self._scan(pattern, start, len(self.text) if end is None else end))
        if once:  # the asked part's value before an aside's ("... says LGPL ... the LGPL-...")
            candidates.sort(key=lambda m: bool(self._hit(m) & self.aside))
        found = []
        for match in candidates:
            hit = self._hit(match)
            if hit & self.used:  # a longer alternative ran into a consumed word: a shorter?
                match = self._before_used(pattern, match, hit) or match
                hit = self._hit(match)
            if not hit or hit & (self.used | self.ordered) or (role and not role.accepts(match)) \
                    or (asked and hit & self.aside):
                continue
            self.used |= hit
            found.append(match)
            if once:
                break
        return found

    def _scan(self, pattern: re.Pattern[str], start: int, end: int) -> Iterator[re.Match[str]]:
        """`pattern`'s matches in `text[start:end]`, left to right; after one that runs into
        a consumed token, the search goes on inside it ("send ORD-1042 out a second time":
        the long phrase ran into the order, "a second time" is still found)."""
        while (match := pattern.search(self.text, start, end)) is not None:
            yield match
            overlaps = bool(self._hit(match) & self.used)
            start = match.start() + 1 if overlaps or match.end() == match.start() \
                else match.end()

    def content(self) -> int:
        """How many consumed tokens are content words (not filler): what a parse explains."""
        return sum(self.tokens[i][2].lower().rstrip(".") not in FILLER for i in self.used)

    def left(self, filler: frozenset[str] = FILLER) -> tuple[str, ...]:
        """The content words not consumed: not used, not `filler`, in task order."""
        taken = self.used | self.aside
        words = (word for i, (_, _, word) in enumerate(self.tokens) if i not in taken)
        return tuple(dict.fromkeys(w for w in words if w.lower().rstrip(".") not in filler))


def _ordered(task: str, tokens: list[tuple[int, int, str]], aside: frozenset[int]
             ) -> frozenset[int]:
    """The indices of the verbs that order a change (`CHANGES`): one that opens `task` when
    the task asks nothing (no "?", no "tell me", "which", ...), and one that a second step
    opens ("... and book it", "..., then draw them"), asked or not."""
    words = [word.lower() for _, _, word in tokens]
    ordered = {i for i in range(1, len(words))
               if words[i] in CHANGES and words[i - 1] in ("and", "then")
               and _acts(task, tokens, i)}
    first = next((i for i in range(len(tokens)) if i not in aside), None)
    if first is not None and words[first] in CHANGES and "?" not in task \
            and not asides.ASKS.search(task) and not WH.search(task):
        ordered.add(first)
    return frozenset(ordered)


def _acts(task: str, tokens: list[tuple[int, int, str]], i: int) -> bool:
    """Whether the word at `i` is said as a verb that acts on something: what follows it is
    an object ("it", "the ...", an id or a path) or nothing (the sentence ends), not a
    noun it names a kind of ("refund rules", "fix version")."""
    if i + 1 == len(tokens) or re.search(r"[.;:!?,]", task[tokens[i][1]:tokens[i + 1][0]]):
        return True
    following = tokens[i + 1][2].lower()
    return following in OBJECTS or not following.isalpha()


@lru_cache(maxsize=1024)
def _asides(task: str) -> frozenset[int]:
    """The indices of `task`'s tokens that lie in an aside: found once per task, not once
    per question that reads it."""
    spans = [(m.start(), m.end()) for m in _TOKEN.finditer(task)]
    return frozenset(asides.around(task, spans))


def _slot(reader: Reader, slot: Slot) -> str | None:
    """A slot's value: its entity in the text, else an alias, else its default."""
    values = (reader.take(bounded(slot.pattern), 1, once=not slot.many, role=slot.role)
              if slot.pattern else [])
    for phrase, value in slot.aliases:  # ... or the entity named again ("the billing
        if not values or slot.many or value in values:  # service's requirements, services/...")
            values += [value for _ in reader.take(bounded(phrase), once=True)]
    values = [slot.value(value) for value in values]
    if values:
        return ", ".join(dict.fromkeys(values)) if slot.many else values[0]
    return slot.default


def _name_parts(slots: dict[str, str], grammar: Grammar, task: str) -> list[str]:
    """The parts of the names of the entities `task` writes out ("mcp" and "bridge" of
    agents/mcp_bridge.py), as patterns: not a default nobody wrote ("agents"), nor a part
    under three letters."""
    defaults = {slot.default for slot in grammar.slots}
    written = [name for value in slots.values() if value not in defaults
               for name in value.split(", ") if name.lower() in task.lower()]
    return sorted({re.escape(part) for value in written
                   for part in re.split(r"[^a-z0-9]+", value.lower()) if len(part) > 2})


def _excluded(reader: Reader, grammar: Grammar) -> dict[str, str]:
    """The entities an "except ..." phrase leaves out, under the exclude slot's name."""
    if not grammar.exclude or "exclude" not in grammar.operators:
        return {}
    phrase = EXCLUDING if any(s.role for s in grammar.slots) else f"(?:{EXCLUDING}|{BUT_NOT})"
    entity = bounded(f"{phrase}\\s+(?:the\\s+)?(?:(?:file|module|one|ones)\\s+)?"
                      f"(?:(?:in|from)\\s+)?({grammar.exclude.pattern})")
    left_out = reader.take(entity, 1)
    # "leaving agents/router.py aside", "setting X aside", "but leave X off the list"
    left_out += reader.take(bounded(rf"{SET_ASIDE}\s+(?:the\s+)?(?:file\s+)?"
                                    rf"({grammar.exclude.pattern})\s+"
                                    r"(?:aside|out|off(?:\s+the\s+list)?|to\s+one\s+side)"), 1)
    # "..., so leaving that one out, ...": the entity named last before the phrase
    for said in reader.matches(bounded(THAT_ONE.format(excluding=EXCLUDING))):
        named = list(bounded(grammar.exclude.pattern).finditer(reader.text, 0, said.start()))
        if named:
            left_out += reader.take(bounded(grammar.exclude.pattern), 1, start=named[-1].start(),
                                    end=named[-1].end())
    left_out = [grammar.exclude.value(value) for value in left_out]
    return {grammar.exclude.name: ", ".join(dict.fromkeys(left_out))} if left_out else {}


def _operators(reader: Reader, grammar: Grammar) -> tuple[str, ...]:
    """The operators the task applies, of those the question supports."""
    # "..., yes or no?" first: its "no" is not a negation
    asked = "yesno" in grammar.operators and bool(reader.take(bounded(YES_OR_NO)))
    ops = [op for op in grammar.operators if op in OPERATORS  # asked, not said aside
           and reader.take(bounded(OPERATORS[op]), asked=True)]
    if "yesno" in grammar.operators and (asked or _opens_yes_or_no(reader)):
        ops.append("yesno")
    return tuple(ops)


def _opens_yes_or_no(reader: Reader) -> bool:
    """Whether the question opens with an auxiliary ("Is ...", "Does ..."), not a request
    ("Can you tell me ..."): its first word outside the asides ("Our policy says ... . Has
    such an exception been recorded?"), or the first of a sentence that asks with "?"
    after the words that set it up ("Find out: does X ...?"), or of a clause after its
    comma ("In agents/router.py, is there ...?")."""
    first = next((start for i, (start, _, _) in enumerate(reader.tokens)
                  if i not in reader.aside), None)
    openings = [reader.text[first:]] if first is not None else []
    asked = [a for a in asides.questions(reader.text) if a.endswith("?")]
    topics = [re.split(r",\s+", a) for a in asked]  # "In X, is there ...?": a topic, then
    openings += asked + [parts[1] for parts in topics  # the question after its comma
                         if len(parts) > 1 and not WH.search(parts[0])]
    return any(opening.split()[0].lower() in AUX and not REQUEST.match(opening)
               for opening in openings if opening.split())


def read(name: str, grammar: Grammar, task: str) -> Parse:
    """How far the question `name` (asked with `grammar`) reads `task`: a copy of the
    reading kept for these three (a run reads the same task again every turn)."""
    kept = _read(name, grammar, task)
    return replace(kept, slots=dict(kept.slots))


@lru_cache(maxsize=4096)
def _read(name: str, grammar: Grammar, task: str) -> Parse:
    reader = Reader(task)
    # 1. Exclusions first: "except agents/router.py" must not fill the path slot.
    result = Parse(name, _excluded(reader, grammar))
    # 2. Slots, in declared order (a path before the folder that starts it).
    for slot in grammar.slots:
        value = _slot(reader, slot)
        if value is not None:
            result.slots[slot.name] = value
        elif not slot.optional:
            result.applies, result.missing = False, result.missing or slot.name
    if grammar.any_slot and not any(s.name in result.slots for s in grammar.slots):
        result.applies, result.missing = False, result.missing or "|".join(
            s.name for s in grammar.slots)
    # 3. The attribute: one head phrase at least, asked outside an aside.
    before = set(reader.used)
    for head in grammar.heads:
        reader.take(bounded(head, inflected=True))
    headless = not reader.used - before - reader.aside
    # 4. Operators the question supports (before its other phrases, which may share a
    # word: "what number of"); a yes/no opener when it supports one. "On time" names the
    # attribute too: "Was ORD-1042 on time?" asks whether it was late.
    result.operators = _operators(reader, grammar)
    if headless and ONTIME not in result.operators:
        result.applies, result.missing = False, ATTRIBUTE
    # 5. The other phrases it accepts.
    for word in grammar.words:
        reader.take(bounded(word, inflected=True))
    # 6. An entity the task names, named again by its own parts ("the MCP bridge in
    # agents/mcp_bridge.py").
    again = _name_parts(result.slots, grammar, task)
    if again:
        reader.take(bounded("|".join(again), inflected=True))
    result.unconsumed = reader.left()
    result.consumed = reader.content()
    return result


def best(parses: list[Parse]) -> Parse | None:
    """The parse that understood the task, consuming the most content words; on a tie the
    most direct reading (fewest operators: "no imports" is a question of its own before it
    is "not" applied to another; a yes/no is the question's form, not an operator), then
    the first declared. None when none understood it."""
    understood = [p for p in parses if p.understood]
    return max(understood, key=lambda p: (p.consumed, -len(set(p.operators) - {"yesno"}))) \
        if understood else None


def nearest(parses: list[Parse], n: int = 2) -> list[Parse]:
    """The `n` questions that came closest: applicable first, then fewest words left."""
    return sorted(parses, key=lambda p: (not p.applies, len(p.unconsumed), -p.consumed))[:n]


def not_understood(parses: list[Parse]) -> tuple[str, ...]:
    """The words no question understood; when each word is some question's, the words
    the nearest question left over. When that question took every word but found none
    of its head phrases (its words were another question's detail: "how many retries"),
    the words of the nearest question that left any; when it lacks an entity (a pronoun
    that names none), none."""
    common = [w for w in parses[0].unconsumed if all(w in p.unconsumed for p in parses)] \
        if parses else []
    ranked = nearest(parses, len(parses))
    if common or not ranked or ranked[0].unconsumed or ranked[0].missing != ATTRIBUTE:
        return tuple(common) or (ranked[0].unconsumed if ranked else ())
    return next((p.unconsumed for p in ranked if p.unconsumed), ())
