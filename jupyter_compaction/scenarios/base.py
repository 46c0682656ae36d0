"""What a scenario is: its scope, how to read its tools' output, and how to answer.

A `Scenario` bundles a user task, a folder of real files (its workspace), the tools that
read them, and:
- its **scope**: the `Question`s it can answer, each with a small grammar (`grammar.py`:
  attribute phrases, slots such as ids, folders, paths or services, and operators such as
  negation, exclusion, counting); `understand(task)` maps a task to the question that
  consumes every content word of it, with its slots and operators, or to none (the model
  then declines honestly, naming the words it did not understand; a word one slip from a
  word it knows is read as that word when the task is then understood, and the restated
  question says so: `respelled`, `spelling.py`); answers with a slot
  naming an entity the workspace lacks say so (`or_missing`);
- `Step`s that say *how to read*, never what to say: a step's tool arguments are
  templates over facts already known ("{order}" is filled with the order id read from
  the task), a step with `each` runs once per item of a list fact, and a step's `Fact`s
  are extractors (a regular expression whose groups, found in the call's output, are the
  fact's value);
- **plans worked back from the question** (`steps_for`): the steps that reveal the facts
  a question needs, then those that reveal the facts their arguments need, so a narrower
  question makes fewer calls;
- answers written by the question's `compose` from fact values alone (`UNKNOWN` where a
  value was never seen); the scenario modules draw their conclusions with rules over
  facts, so a changed fact changes the conclusion.
`truth(workspace, task)` is the scenario's **independent** reading of the files
(`read_truth`, ordinary Python in each scenario module, helpers in `truth.py`), written
apart from the steps and extractors, so a model mistake is graded wrong; `extracted()`
replays the model's own steps; `expected_for()` answers a hand-labelled question from the
truth, without the parser, so a misparse is graded wrong. `grade()` tells a correct answer
from a wrong or a partial one, `outcome()`/`verdict()` how a run ended.

A task of several questions ("X? and Y?", "X, and is Y?") is read part by part
(`parts()`, `parts.py`, which also gives a later part's "it" the entity named before):
each part is understood on its own; the answer (`combine()`) gives one line per part,
"Part 2 ("Y?"): ...", and says which part it cannot answer and why; the truth is written
the same way, and the grade covers every part (a part it cannot answer makes the run
partial at best).

This module also holds the file tools several scenarios share (`list_files`, `read_file`,
`grep`), built as closures over a `Workspace`.

Left out: tools that change files (the scenarios only read), and randomness: every
scenario plays out the same way every time.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import re
import shutil
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jupyter_compaction.history import blocks, call_key
from jupyter_compaction.models.output_rules import without_marks
from jupyter_compaction.scenarios import grammar, parts, spelling
from jupyter_compaction.scenarios.grammar import Grammar, Parse
from jupyter_compaction.tools import ToolError
from jupyter_compaction.vocab import UNKNOWN
from jupyter_compaction.workspace import Workspace

# The bundled files live in a data folder, not a package: its name is no Python identifier,
# so nothing in it can be imported, and the wheel ships it as package data.
WORKSPACES_DIR = Path(__file__).resolve().parent.parent / "scenario-data"
MAX_GREP_LINES = 200  # more matches than this are counted, not shown
LIST_SEPARATOR = ", "  # how the items of a list fact are joined into one value
PART_LINE = re.compile(r'^Part (\d+) \(".*?"\): ', re.M)  # how each part's answer starts
ITEM = "item"  # the name a step with `each` gives the current item in its templates
EXCLUDE = "exclude"  # a slot: items of a list fact the task asks to leave out
OPERATORS = "operators"  # a slot: the operators the task applies ("count, not")
_LITERAL_WORD = re.compile(r"[A-Za-z0-9_]+(?:[-/][A-Za-z0-9_]+)*")  # words of a literal argument
MAX_CUTS = 40  # top-level statement starts tried when a source was cut short
FACT_READS = 1024  # (fact, output) readings kept: the model reads each visible output anew
# every turn, and the same output always shows the same facts


@dataclass(frozen=True)
class Fact:
    """An extractor: `pattern`'s groups in a tool's output are the fact's value.

    With `many`, every match counts and the value is the matches joined by ", ". A
    `default` is the value when the output is visible but nothing matches ("none").
    """

    name: str
    pattern: str
    default: str | None = None
    many: bool = False
    decision: bool = False  # a conclusion, listed under "Key Decisions" by summaries
    joiner: str = " "  # how the groups of one match are joined
    from_error: bool = False  # read from the call's error instead (a record that is missing)
    code: bool = False  # the output is Python source: match the heads of its statements

    def read(self, text: str) -> str | None:
        return _read_fact(self, text)


@functools.lru_cache(maxsize=FACT_READS)
def code_heads(source: str) -> str | None:
    """Python source read as Python: the first line of each top-level statement (a class
    or function without its decorators), unparsed, so strings, docstrings and comments are
    never code. A text cut short is read up to a top-level statement that parses; None
    when nothing of it parses."""
    lines = source.splitlines()
    starts = [n for n in range(len(lines) - 1, 0, -1) if lines[n][:1].strip()]
    for end in [len(lines), *starts[:MAX_CUTS]]:
        try:
            body = ast.parse("\n".join(lines[:end])).body
        except SyntaxError:
            continue
        heads = [next((line for line in ast.unparse(node).splitlines()
                       if not line.startswith("@")), "")
                 for node in body if not isinstance(node, ast.Expr)]
        return "\n".join(heads)
    return None


@functools.lru_cache(maxsize=FACT_READS)
def _read_fact(fact: Fact, text: str) -> str | None:
    if fact.code and (text := code_heads(text)) is None:
        return None  # no Python to read: the fact stays unknown
    regex = re.compile(fact.pattern, re.M)
    found = [fact.joiner.join(g for g in m.groups() if g) or m.group(0)
             for m in regex.finditer(text)]
    if fact.many:
        return LIST_SEPARATOR.join(dict.fromkeys(found)) if found else fact.default
    return found[0].strip() if found else fact.default


@dataclass(frozen=True)
class Step:
    """A tool call to make once its argument templates can be filled from known facts."""

    label: str
    tool: str
    args: dict[str, str] = field(hash=False)
    facts: tuple[Fact, ...]
    each: str = ""  # a list fact: one call per item, named {item} in the templates;
    # "name[*]" takes the value of every fact "name[...]" as an item; an item's
    # space-separated words are {item_0}, {item_1}, ... too.

    def __post_init__(self) -> None:
        if not self.facts:
            raise ValueError(f"step {self.label!r} needs at least one fact to read")


@dataclass(frozen=True)
class Call:
    """One step with its templates filled: what to call, and what its output tells."""

    label: str
    tool: str
    args: dict[str, str] = field(hash=False)
    facts: tuple[Fact, ...]

    @functools.cached_property
    def key(self) -> tuple[str, str]:
        return call_key(self.tool, self.args)

    def learn(self, output: str, error: bool = False) -> dict[str, str]:
        """The facts this call's output (or, with `error`, its error) shows, by name."""
        found = {f.name: f.read(output) for f in self.facts if f.from_error == error}
        return {name: value for name, value in found.items() if value is not None}

    def record(self, output: str) -> dict[str, str]:
        """`learn`, with UNKNOWN for each fact the output does not show (say, because it
        was truncated): what an agent writes down after looking."""
        return {f.name: UNKNOWN for f in self.facts if not f.from_error} | self.learn(output)

    def known(self, facts: Mapping[str, str]) -> bool:
        return all(f.name in facts for f in self.facts if not f.from_error)


class Known(dict):
    """Fact values by name; a missing one reads as `UNKNOWN` (for answer templates)."""

    def __missing__(self, name: str) -> str:
        return UNKNOWN


@dataclass(frozen=True)
class Question:
    """One question a scenario can answer, how a task asks it, and how it is answered.

    `grammar` says how a task asks it (attribute phrases, slots, operators; see
    `grammar.py`). `needs` names the facts the answer is made from (templates such as
    "table[{item}]" included): the plan is worked back from them. `compose` writes the
    answer from fact values, the task's slots and its operators (`operators(facts)`).
    """

    name: str
    ask: str  # how the question is listed to a user ("why the delivery failed")
    grammar: Grammar
    needs: tuple[str, ...]
    compose: Callable[[Known], str]
    example: str = ""  # one wording of it, shown when a task is out of scope

    def canonical(self, slots: Mapping[str, str]) -> str:
        """The question with the slot values and operators a task gave it, as a person
        would restate it ("which tool dispatch table one file defines (path
        agents/router.py; yes/no)")."""
        shown = [f"{name} {value}" for name, value in slots.items() if name != OPERATORS]
        shown += [OPERATOR_WORDS.get(op, op) for op in operators(slots)]
        return self.ask + (f" ({'; '.join(shown)})" if shown else "")


OPERATOR_WORDS = {"not": "negated", "count": "count", "largest": "largest",
                  "yesno": "yes/no", "ontime": "asked as on time"}


def operators(facts: Mapping[str, str]) -> set[str]:
    """The operators a task applies to its question ("count", "not", ...)."""
    return set(facts.get(OPERATORS, "").split(LIST_SEPARATOR)) - {""}


# What a refusal says when every word is known but together they ask no declared question:
# each word belongs to some question, but no one question reads them all.
ALL_KNOWN = "its wording (each word is one I know, but together they ask none of my questions)"
MISSING = "missing-"  # a fact "missing-<slot>": the slot's entity is not in the workspace


def missing(slot: str, pattern: str) -> Fact:
    """The fact that a call's error says the entity of `slot` does not exist."""
    return Fact(MISSING + slot, pattern, from_error=True)


def or_missing(compose: Callable[[Known], str]) -> Callable[[Known], str]:
    """`compose`, unless a slot names an entity the workspace lacks: then the answer says
    so ("agents/scheduler.py does not exist.") instead of answering from no facts."""
    def answer(f: Known) -> str:
        gone = [value for name, value in f.items() if name.startswith(MISSING)]
        return f"{gone[0]} does not exist." if gone else compose(f)

    answer.__doc__ = compose.__doc__
    return answer


def _fields(template: str) -> set[str]:
    """The fact names a template fills in ("{order}" -> {"order"})."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def _literal_words(template: str) -> list[str]:
    """The words a template writes itself, outside its {fields}."""
    text = "".join(literal for literal, *_ in string.Formatter().parse(template))
    return _LITERAL_WORD.findall(text)


def template(text: str) -> Callable[[Known], str]:
    """An answer written from a template over fact names ("tier {tier}"): a fact never
    seen reads as UNKNOWN."""
    return lambda facts: text.format_map(facts)


def _shown(step: Step, visible: str) -> bool:
    """Every word `step`'s argument templates write themselves is in `visible`."""
    return all(word in visible for template in step.args.values()
               for word in _literal_words(template))


def _step_calls(step: Step, facts: Mapping[str, str]) -> list[Call]:
    """`step`'s calls, one per item of its `each` list (or one), whose label and arguments
    `facts` can fill; a call with a fact missing is left out."""
    calls = []
    for item in _items(step.each, facts):
        values = facts if item is None else {
            **facts, ITEM: item,
            **{f"{ITEM}_{n}": word for n, word in enumerate(item.split(" "))}}
        args = {k: _fill(v, values) for k, v in step.args.items()}
        label = _fill(step.label, values)
        if label is None or None in args.values():
            continue
        facts_of = tuple(dataclasses.replace(f, name=_fill(f.name, values) or f.name)
                         for f in step.facts)
        calls.append(Call(label, step.tool, args, facts_of))
    return calls


def _items(each: str, facts: Mapping[str, str]) -> list[str | None]:
    """The items a step runs once for ([None]: a step without `each` runs once); items
    the task asked to leave out (the `exclude` slot) are not among them."""
    if not each:
        return [None]
    if each.endswith("[*]"):
        return [v for k, v in facts.items() if k.startswith(each[:-2]) and k.endswith("]")]
    return listed(facts, each)


def listed(facts: Mapping[str, str], name: str) -> list[str]:
    """The items of the list fact `name`, less those the task asked to leave out (the
    `exclude` slot); [] when the fact is not known."""
    left_out = set(facts.get(EXCLUDE, "").split(LIST_SEPARATOR)) - {""}
    return [item for item in facts[name].split(LIST_SEPARATOR)
            if item not in left_out] if name in facts else []


def _fill(template: str, values: Mapping[str, str]) -> str | None:
    try:
        return template.format_map(values)
    except KeyError:
        return None


@dataclass(frozen=True)
class Grade:
    """How an answer compares with the truth: "correct", "wrong" or "partial"."""

    status: str
    wrong: tuple[str, ...] = ()  # words the answer states that the truth does not
    missing: tuple[str, ...] = ()  # words of the truth the answer lacks

    def __str__(self) -> str:
        detail = [f"wrong: {', '.join(self.wrong)}"] if self.wrong else []
        detail += [f"missing: {', '.join(self.missing)}"] if self.missing else []
        return self.status + (f" ({'; '.join(detail)})" if detail else "")


_WORD = re.compile(r"[\w@/+-]+(?:[.,:][\w@/+-]+)*")
_UNKNOWN_WORDS = set(_WORD.findall(UNKNOWN))


def _compare(answer: str | None, truth: str) -> Grade:
    """How `answer` compares with the right answer `truth` (see `Scenario.grade`)."""
    truth, answer = truth.strip(), (answer or "").strip()
    if answer == truth:
        return Grade("correct")
    wrong = _words(answer) - _words(truth) - _UNKNOWN_WORDS
    missing = _words(truth) - _words(answer)
    return Grade("wrong" if wrong else "partial", tuple(sorted(wrong)), tuple(sorted(missing)))


def _part_answers(answer: str) -> dict[int, str]:
    """Part number -> its answer, from an answer written by `Scenario.combine`."""
    starts = list(PART_LINE.finditer(answer))
    ends = [m.start() for m in starts[1:]] + [len(answer)]
    return {int(m.group(1)): answer[m.end():end].strip() for m, end in zip(starts, ends,
                                                                          strict=True)}


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text))


@dataclass(frozen=True)
class Scenario:
    """A task with its workspace, tools, how to read them, and how to answer."""

    name: str
    title: str
    task: str
    given: tuple[Fact, ...]
    steps: tuple[Step, ...]
    must_keep: tuple[str, ...]
    compose: Callable[[Known], str]
    make_tools: Callable[[Workspace], list[Callable[..., str]]]
    questions: tuple[Question, ...] = ()  # the scope: what it can answer, narrowest first
    # The independent truth: every fact, read from the workspace root with ordinary Python
    # (given the task's slots), written apart from the steps and extractors above.
    read_truth: Callable[[Path, Mapping[str, str]], dict[str, str]] | None = None
    # The model calls a run of it gets when the settings keep their default cap: a long
    # task's own (None: the settings' `max_turns`).
    max_turns: int | None = None

    def tools(self, workspace: Workspace) -> list[Callable[..., str]]:
        """The scenario's tools, bound to `workspace`."""
        return self.make_tools(workspace)

    def parses(self, task: str) -> list[Parse]:
        """How each declared question reads `task` (see `grammar.py`)."""
        return [grammar.read(q.name, q.grammar, task) for q in self.questions]

    def question(self, name: str) -> Question:
        """The declared question called `name`."""
        found = [q for q in self.questions if q.name == name]
        if not found:
            raise KeyError(f"No question {name!r} in scenario {self.name!r}; questions: "
                           f"{', '.join(q.name for q in self.questions)}.")
        return found[0]

    def understand(self, task: str) -> tuple[Question, dict[str, str]] | None:
        """The question `task` asks, with its slot values (and its operators, under
        "operators"); None when no question consumes every content word of it."""
        parse = grammar.best(self.parses(task)) or \
            grammar.best(self.parses(self.respelled(task)[0]))
        if parse is None:
            return None
        ops = {OPERATORS: LIST_SEPARATOR.join(parse.operators)} if parse.operators else {}
        return self.question(parse.name), parse.slots | ops

    def canonical(self, task: str | None) -> str | None:
        """The question `task` asks, restated with its slots and operators; None when
        it asks none."""
        found = self.parts(self.task if task is None else task)
        if not any(understood for _, understood in found):
            return None
        read_as = [f'"{typed}" as "{meant}"' for part, understood in found if understood
                   for typed, meant in self.respelled(part)[1]]
        said = f" (read {', '.join(read_as)})" if read_as else ""
        if len(found) == 1:
            return found[0][1][0].canonical(found[0][1][1]) + said
        return "; ".join(f"{n}. {u[0].canonical(u[1]) if u else 'not understood'}"
                         for n, (_, u) in enumerate(found, 1)) + said

    def respelled(self, task: str) -> tuple[str, tuple[tuple[str, str], ...]]:
        """`task` with its misspelt words read as the words meant, and those (typed,
        meant) pairs (`spelling.py`): only when the task as typed is refused and the
        corrected one is understood; else `task` and no pairs."""
        if grammar.best(self.parses(task)) is not None:
            return task, ()
        return spelling.correct(task, lambda text: grammar.not_understood(self.parses(text)),
                                lambda text: grammar.best(self.parses(text)) is not None,
                                self._vocabulary())

    def _vocabulary(self) -> spelling.Vocabulary:
        """The words this scenario's questions read (see `spelling.Vocabulary`)."""
        phrases = [p for q in self.questions for p in q.grammar.heads + q.grammar.words]
        phrases += [*grammar.OPERATORS.values(), grammar.EXCLUDING, grammar.YES_OR_NO]
        return spelling.vocabulary(phrases, grammar.FILLER)

    def not_understood(self, task: str) -> tuple[tuple[str, ...], list[Question]]:
        """The words of `task` no question understood, and the nearest questions."""
        parses = self.parses(task)
        near = [self.question(p.name) for p in grammar.nearest(parses)]
        return grammar.not_understood(parses), near

    def parts(self, task: str) -> list[tuple[str, tuple[Question, dict[str, str]] | None]]:
        """The task's questions, each with how it is understood (None: not understood):
        the whole task when a question reads it whole or it is not a run of questions
        (`parts.py`: cut after each "?" or at "and" before a question when both sides are
        understood; a later part's pronoun takes the previous part's entity)."""
        return parts.split(task, self.understand)

    def answerable(self, task: str) -> bool:
        """Whether some question of the task is understood."""
        return any(understood for _, understood in self.parts(task))

    def combine(self, task: str, answers: Mapping[str, str]) -> str:
        """The answer to a task of several questions: one line per part, its answer from
        `answers` (part text -> answer), or why it cannot be answered."""
        lines = []
        for n, (part, understood) in enumerate(self.parts(task), 1):
            words = ", ".join(f'"{w}"' for w in self.not_understood(part)[0]
                              or parts.pronouns(part)) or ALL_KNOWN
            said = answers[part] if understood else (
                f"I cannot answer this part offline: I did not understand {words}.")
            lines.append(f'Part {n} ("{part}"): {said}')
        return "\n".join(lines)

    def read_task(self, task: str) -> dict[str, str]:
        """The `given` facts and the slots of the question the task text asks."""
        found = {f.name: f.read(task) for f in self.given}
        understood = self.understand(task)
        slots = understood[1] if understood else {}
        return {name: value for name, value in found.items() if value is not None} | slots

    def steps_for(self, question: Question) -> tuple[Step, ...]:
        """The steps `question` needs, worked back from its facts: the steps that reveal
        them, then the steps that reveal what those steps' arguments are filled with; each
        keeps only the facts that are needed."""
        needed: dict[Step, None] = {}
        wanted, asked = list(question.needs), set()
        while wanted:
            name = wanted.pop()
            if name in asked:
                continue
            asked.add(name)
            for step in self.steps:
                if step in needed or all(f.name != name for f in step.facts):
                    continue
                needed[step] = None
                inputs = set().union(_fields(step.label), *map(_fields, step.args.values()))
                wanted += [n for n in inputs if not n.startswith(ITEM)]
                if step.each:
                    wanted.append(step.each.replace("[*]", f"[{{{ITEM}}}]"))
        return tuple(dataclasses.replace(s, facts=tuple(f for f in s.facts
                                                        if f.name in asked or f.from_error))
                     for s in self.steps if s in needed)

    def plan(self, facts: Mapping[str, str], question: Question | None = None,
             visible: str | None = None) -> list[Call]:
        """Every call of `question`'s steps (default: all steps) whose arguments `facts`
        can fill, in the order the steps come. With `visible` (the request's text), a call
        whose argument writes a word of its own is planned only when that word is visible."""
        facts = {k: v for k, v in facts.items() if v != UNKNOWN}
        steps = self.steps_for(question) if question else self.steps
        return [call for step in steps if visible is None or _shown(step, visible)
                for call in _step_calls(step, facts)]

    def match(self, tool: str, args: Mapping[str, Any]) -> Call | None:
        """The call a visible `tool(args)` was, read back from the step templates (so a
        result can be read even when the facts that named the call are gone)."""
        for step in self.steps:
            if step.tool != tool or set(step.args) != set(args):
                continue
            values: dict[str, str] = {}
            for key, template in step.args.items():
                name = re.fullmatch(r"\{([^{}]+)\}", template)
                if name and isinstance(args[key], str):
                    values[name.group(1)] = args[key]
                elif template != args[key]:
                    break
            else:
                if step.each:
                    values[step.each] = values.get(ITEM, "")
                found = [c for c in self.plan(values) if c.tool == tool and c.args == dict(args)]
                if found:
                    return found[0]
        return None

    def answer(self, facts: Mapping[str, str], question: Question | None = None) -> str:
        """The answer to `question` (default: the full task) written from `facts` alone
        (UNKNOWN where one is missing)."""
        return (question.compose if question else self.compose)(Known(facts))

    def question_of(self, task: str | None) -> Question | None:
        """The question `task` asks (None for an out-of-scope task; the full task's first
        question when no task is given)."""
        understood = self.understand(self.task if task is None else task)
        return understood[0] if understood else None

    def truth(self, workspace: Workspace | None = None, task: str | None = None
              ) -> dict[str, str]:
        """The facts of `workspace` (by default the bundled files) for `task` (default: the
        scenario's own): read by the scenario's independent truth where it has one, else
        by its extractors (`extracted`)."""
        ws = workspace or Workspace(self.workspace_dir)
        task = self.task if task is None else task
        if self.read_truth is None:
            return self.extracted(ws, task)
        return self.read_truth(ws.root, self.read_task(task))

    def extracted(self, workspace: Workspace | None = None, task: str | None = None
                  ) -> dict[str, str]:
        """Every fact `task` needs, read with the model's own extractors, playing each of
        its calls once with the real tools: what a faultless run of the model would see."""
        ws = workspace or Workspace(self.workspace_dir)
        tools = {fn.__name__: fn for fn in self.tools(ws)}
        task = self.task if task is None else task
        question = self.question_of(task)
        facts, done = self.read_task(task), set()
        while pending := [c for c in self.plan(facts, question) if c.key not in done]:
            call = pending[0]
            done.add(call.key)
            try:
                output = tools[call.tool](**call.args)
            except ToolError as exc:
                output = str(exc)
            facts.update(call.learn(output))
        return facts

    def expected(self, workspace: Workspace | None = None, task: str | None = None) -> str:
        """The right answer to `task` (default: the scenario's own) for the files in
        `workspace` (default: the bundled ones); for a task of several questions, one line
        per part (`combine`)."""
        found = self.parts(self.task if task is None else task)
        if len(found) > 1:
            return self.combine(self.task if task is None else task, {
                part: self.expected(workspace, part) for part, understood in found
                if understood})
        question = self.question_of(task)
        if question is None:
            raise ValueError("the task asks no question this scenario declares; "
                             "see Scenario.questions")
        return self.answer(self.truth(workspace, task), question)

    def expected_for(self, question: str, slots: Mapping[str, str],
                     operators: tuple[str, ...] = (), workspace: Workspace | None = None) -> str:
        """The right answer to the question called `question` with these slot values and
        operators (a hand-labelled reading of a task, not the parser's), from the
        scenario's independent truth."""
        if self.read_truth is None:
            raise ValueError(f"scenario {self.name!r} has no independent truth to answer from")
        ws = workspace or Workspace(self.workspace_dir)
        facts = dict(slots) | ({OPERATORS: LIST_SEPARATOR.join(operators)} if operators else {})
        return self.answer(self.read_truth(ws.root, facts), self.question(question))

    @property
    def expected_answer(self) -> str:
        return self.expected()

    def grade(self, answer: str | None, workspace: Workspace | None = None,
              task: str | None = None) -> Grade:
        """Correct when it is the right answer; wrong when it states a word the right
        answer does not (a wrong slot, a wrong file); partial when it only lacks some. A
        task of several questions is graded part by part: wrong when a part is, partial
        when a part is partial or cannot be answered."""
        found = self.parts(self.task if task is None else task)
        if len(found) == 1:
            return _compare(answer, self.expected(workspace, task))
        said = _part_answers(answer or "")
        grades = [_compare(said.get(n), self.expected(workspace, part)) if understood
                  else Grade("partial", missing=(f"part {n}",))
                  for n, (part, understood) in enumerate(found, 1)]
        status = next((s for s in ("wrong", "partial") if any(g.status == s for g in grades)),
                      "correct")
        return Grade(status, tuple(sorted({w for g in grades for w in g.wrong})),
                     tuple(sorted({m for g in grades for m in g.missing})))

    def is_correct(self, answer: str | None, workspace: Workspace | None = None,
                   task: str | None = None) -> bool:
        return self.grade(answer, workspace, task).status == "correct"

    def outcome(self, run: Any, workspace: Workspace | None = None) -> str:
        """How a `Run` ended: "correct", "wrong", "partial", "unsupported", "max_turns",
        "stuck", "failed" (a model error or an interrupt) or "not graded" (a finished run
        whose task asks no declared question, as a real model may answer)."""
        if run.status == "finished":
            task = getattr(run, "task", None)
            if task is not None and not self.answerable(task):
                return "not graded"
            return self.grade(graded_answer(run), workspace, task).status
        if run.status == "failed":
            reasons = [getattr(e, "reason", "") for e in run.events if hasattr(e, "reason")]
            return "stuck" if reasons and reasons[-1] == "stuck" else "failed"
        return run.status

    def verdict(self, run: Any, workspace: Workspace | None = None) -> str:
        """`outcome`, with what is wrong or missing named for a wrong or partial answer
        ("wrong (wrong: 90; missing: 30)")."""
        result = self.outcome(run, workspace)
        if result in ("wrong", "partial"):
            return str(self.grade(graded_answer(run), workspace, getattr(run, "task", None)))
        return result

    @property
    def workspace_dir(self) -> Path:
        """The bundled files (inside the package: read them, never write there)."""
        return WORKSPACES_DIR / self.name

    def prepare(self, dest: str | Path) -> Workspace:
        """Copy the bundled workspace into `dest` (new or empty) and return a Workspace on it."""
        target = Path(dest)
        if target.exists() and (not target.is_dir() or any(target.iterdir())):
            raise FileExistsError(f"{str(target)!r} is not an empty folder; pick a fresh one")
        # Copy contents only, not permissions: a read-only install still gives a writable copy.
        for src in sorted(self.workspace_dir.rglob("*")):
            if "__pycache__" in src.parts or src.suffix == ".pyc":
                continue
            dst = target / src.relative_to(self.workspace_dir)
            if src.is_dir():
                dst.mkdir(parents=True, exist_ok=True)
            else:
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, dst)
        target.mkdir(parents=True, exist_ok=True)
        return Workspace(target)


def graded_answer(run: Any) -> str | None:
    """A run's answer as it is graded: without the openings and endings its instructions
    asked for (the rules its system prompt and system messages state, `output_rules.py`),
    which are form, not content."""
    said = [getattr(run, "system", "") or "", *(
        "\n".join(b.get("text", "") for b in blocks(m)) for m in getattr(run, "transcript", ())
        if m["role"] == "system")]
    return run.answer if run.answer is None else without_marks(said, run.answer)


# -- file tools shared by several scenarios ------------------------------------------------


def make_list_files(ws: Workspace) -> Callable[..., str]:
    def list_files(folder: str = ".") -> str:
        """List every file under a folder of the workspace, recursively, with sizes.

        Paths are relative to the workspace root; pass one of them to read_file.
        """
        paths = ws.list_files(folder)
        where = ws.relative(ws.resolve(folder))
        place = "the workspace root" if where == "." else f"{where}/"
        sizes = [(ws.root / p).stat().st_size for p in paths]
        lines = [f"{len(paths)} files under {place} ({sum(sizes):,} bytes):"]
        lines += [f"{p}  {size:,} bytes" for p, size in zip(paths, sizes, strict=True)]
        return "\n".join(lines)

    return list_files


def make_read_file(ws: Workspace) -> Callable[..., str]:
    def read_file(path: str) -> str:
        """Return the full text of one file of the workspace (a path from list_files)."""
        return ws.read_text(path) or f"({path} is empty)"

    return read_file


def make_grep(ws: Workspace) -> Callable[..., str]:
    def grep(pattern: str, path: str) -> str:
        """Show the numbered lines of one file that match a regular expression.

        The match is case-sensitive; use a plain word such as 'timeout' or a pattern such
        as 'duration_ms=\\d{5}'.
        """
        try:
            regex = re.compile(pattern)
        except re.error as exc:
            raise ToolError(f"Bad pattern {pattern!r}: {exc}; escape special characters.") from None
        lines = ws.read_text(path).splitlines()
        hits = [f"{n}: {line}" for n, line in enumerate(lines, start=1) if regex.search(line)]
        if not hits:
            return f"No line of {path} matches {pattern!r} ({len(lines)} lines searched)."
        head = f"{len(hits)} of {len(lines)} lines of {path} match {pattern!r}:"
        shown = hits[:MAX_GREP_LINES]
        if len(hits) > len(shown):
            shown.append(f"... {len(hits) - len(shown)} more matches not shown")
        return "\n".join([head, *shown])

    return grep


def read_record(ws: Workspace, folder: str, key: str, *, kind: str, example: str) -> str:
    """The text of `folder/<key>.json`, for a key shaped like `example` (e.g. ORD-1042).

    The key must have the example's prefix and be digits after it, so no path can be
    smuggled in; a well-formed key with no record is a ToolError too.
    """
    prefix = example.rstrip("0123456789")
    clean = key.strip().upper() if isinstance(key, str) else ""
    if not re.fullmatch(re.escape(prefix) + r"\d{1,8}", clean):
        raise ToolError(f"{key!r} is not a {kind} ID; {kind} IDs look like {example}.")
    if not ws.resolve(f"{folder}/{clean}.json").is_file():
        raise ToolError(f"No {kind} {clean!r} on record; check the ID and try again.")
    return ws.read_text(f"{folder}/{clean}.json")
