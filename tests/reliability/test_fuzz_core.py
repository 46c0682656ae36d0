"""Malformed histories: the core either says `InvalidHistory` or gives a valid answer.

Every input here is an agent history gone wrong: fields missing or of the wrong type,
orphan results, duplicate ids, empty content, 100k-character strings, lone surrogates,
nested garbage, None, ints and bytes where messages or blocks belong. The contract:

- `validate()` returns or raises `InvalidHistory`;
- every registered strategy (the summarizing ones bound to a trivial summarizer) raises
  `InvalidHistory` exactly when `validate()` does, and otherwise returns a `Compaction`
  whose messages are valid, without mutating its input;
- `TokenCounter.count()` raises `InvalidHistory` or returns an int >= 0.

Nothing else may escape. `malformed(tame=False)` generates everything; the hostile
shapes at the bottom are the ones that once escaped as TypeError/KeyError, each pinned
with an `@example`.
"""

from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from jupyter_compaction import Compaction, InvalidHistory, TokenCounter, validate
from jupyter_compaction.strategies import STRATEGIES, configure
from tests.support.histories import histories
from tests.support.quick import quick_first

COUNTER = TokenCounter()
SETTINGS = settings(max_examples=100, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])
FEW = settings(SETTINGS, max_examples=40)


def summarizer(prompt: str) -> str:
    return "## Progress\nsome work was done"


BOUND = {name: configure(strategy, summarizer=summarizer) for name, strategy in STRATEGIES.items()}

HUGE = "x" * 100_000
SURROGATES = ["\ud800", "a\udfffb", "\udc00" * 50, "ok \ud83d"]  # lone halves of a pair

# --- garbage values ---------------------------------------------------------------------

TEXTS = st.one_of(
    st.text(max_size=40),
    st.text(st.characters(codec=None, categories=("Cs", "Lo", "Zs", "Cc")), max_size=20),
    st.sampled_from(["", " ", "user", "assistant", "text", "tool_use", "tool_result",
                     "toolu_1", *SURROGATES, HUGE]),
)
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(),
                    st.floats(allow_nan=False), TEXTS)
JSON_GARBAGE = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(TEXTS, inner, max_size=3)),
    max_leaves=6,
)
HOSTILE_GARBAGE = st.recursive(
    st.one_of(SCALARS, st.binary(max_size=8), st.frozensets(st.integers(), max_size=2)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.tuples(inner, inner), st.sets(st.integers(), max_size=2),
        st.dictionaries(st.one_of(TEXTS, st.integers(), st.none()), inner, max_size=3)),
    max_leaves=6,
)


def garbage(tame: bool):
    """Any junk value. `tame` keeps it JSON-like (str keys, no bytes/sets inside)."""
    if tame:
        return st.one_of(JSON_GARBAGE, st.binary(max_size=8))
    return HOSTILE_GARBAGE


def hashable_garbage(tame: bool):
    return SCALARS if tame else garbage(False)


# --- mutations of a valid history ------------------------------------------------------

FIELDS = ("role", "content", "type", "text", "id", "name", "input", "tool_use_id", "is_error")


def _places(messages):
    """Every (container, key) in the history that a mutation may touch."""
    places = []
    for i, message in enumerate(messages):
        places.append((messages, i))
        if isinstance(message, dict):
            places += [(message, key) for key in list(message)]
            content = message.get("content")
            if isinstance(content, list):
                for j, block in enumerate(content):
                    places.append((content, j))
                    if isinstance(block, dict):
                        places += [(block, key) for key in list(block)]
                        inner = block.get("content")
                        if isinstance(inner, list):
                            places += [(inner, k) for k in range(len(inner))]
    return places


def _blocks(messages, kind=None):
    return [b for m in messages if isinstance(m, dict) and isinstance(m.get("content"), list)
            for b in m["content"]
            if isinstance(b, dict) and (kind is None or b.get("type") == kind)]


@st.composite
def mutated(draw, tame: bool):
    """A valid history with one to three things broken in it."""
    messages = draw(histories(max_turns=4))
    for _ in range(draw(st.integers(1, 3))):
        mutation = draw(st.sampled_from([
            "replace", "delete", "drop_message", "insert_message", "swap_roles",
            "orphan_result", "duplicate_id", "empty_content", "huge", "surrogate",
            "extra_key", "wrong_type_field",
        ]))
        places = _places(messages)
        if mutation == "replace" and places:
            container, key = draw(st.sampled_from(places))
            if tame and key == "type":
                container[key] = draw(hashable_garbage(tame))
            elif tame and key == "input":
                container[key] = draw(JSON_GARBAGE)
            else:
                container[key] = draw(garbage(tame))
        elif mutation == "delete" and places:
            container, key = draw(st.sampled_from(places))
            del container[key]
        elif mutation == "drop_message" and messages:
            del messages[draw(st.integers(0, len(messages) - 1))]
        elif mutation == "insert_message":
            junk = draw(st.one_of(garbage(tame), st.fixed_dictionaries(
                {"role": st.sampled_from(["user", "assistant", "system", "tool"]),
                 "content": st.one_of(TEXTS, st.just([]))})))
            messages.insert(draw(st.integers(0, len(messages))), junk)
        elif mutation == "swap_roles":
            for m in messages:
                if isinstance(m, dict) and m.get("role") in ("user", "assistant"):
                    m["role"] = "assistant" if m["role"] == "user" else "user"
        elif mutation == "orphan_result":
            target = [m for m in messages if isinstance(m, dict) and m.get("role") == "user"]
            if target:
                message = draw(st.sampled_from(target))
                message["content"] = [
                    {"type": "tool_result", "tool_use_id": draw(TEXTS), "content": draw(TEXTS)},
                    *([] if isinstance(message.get("content"), str)
                      else list(message.get("content") or []))]
        elif mutation == "duplicate_id":
            uses = _blocks(messages, "tool_use")
            if len(uses) >= 2:
                first, second = draw(st.permutations(uses))[:2]
                second["id"] = first.get("id", "toolu_0001")
        elif mutation == "empty_content":
            target = [m for m in messages if isinstance(m, dict)]
            if target:
                draw(st.sampled_from(target))["content"] = draw(st.sampled_from(["", []]))
        elif mutation in ("huge", "surrogate"):
            texts = [b for b in _blocks(messages) if isinstance(b.get("text"), str)
                     or isinstance(b.get("content"), str)]
            value = HUGE if mutation == "huge" else draw(st.sampled_from(SURROGATES))
            if texts:
                block = draw(st.sampled_from(texts))
                block["text" if "text" in block else "content"] = value
            elif messages and isinstance(messages[0], dict):
                messages[0]["content"] = value
        elif mutation == "extra_key":
            targets = [m for m in messages if isinstance(m, dict)] + _blocks(messages)
            if targets:
                key = draw(TEXTS if tame else st.one_of(TEXTS, st.integers()))
                draw(st.sampled_from(targets))[key] = draw(garbage(tame))
        elif mutation == "wrong_type_field":
            targets = [m for m in messages if isinstance(m, dict)] + _blocks(messages)
            if targets:
                field = draw(st.sampled_from(FIELDS))
                value = draw(hashable_garbage(tame) if field == "type" and tame
                             else JSON_GARBAGE if field == "input" and tame
                             else garbage(tame))
                draw(st.sampled_from(targets))[field] = value
    return messages


def malformed(tame: bool):
    """Mutated histories, plus whole histories that are not lists of messages at all."""
    return st.one_of(
        mutated(tame),
        st.lists(garbage(tame), max_size=4),
        garbage(tame),
    )


@st.composite
def well_shaped(draw):
    """Histories whose *rules* are broken (order, pairing, ids, sizes) but whose messages
    all have the right shape: what a counter must count without complaint."""
    messages = draw(histories(max_turns=4))
    for _ in range(draw(st.integers(1, 3))):
        mutation = draw(st.sampled_from(["drop", "swap", "orphan", "duplicate", "empty",
                                         "huge", "surrogate", "extra_key", "role"]))
        if mutation == "drop" and messages:
            del messages[draw(st.integers(0, len(messages) - 1))]
        elif mutation == "swap" and len(messages) > 1:
            i = draw(st.integers(0, len(messages) - 2))
            messages[i], messages[i + 1] = messages[i + 1], messages[i]
        elif mutation == "orphan":
            messages.insert(draw(st.integers(0, len(messages))), {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": draw(TEXTS), "content": draw(TEXTS)}]})
        elif mutation == "duplicate":
            uses = _blocks(messages, "tool_use")
            if len(uses) >= 2:
                uses[-1]["id"] = uses[0]["id"]
        elif mutation == "empty" and messages:
            messages[draw(st.integers(0, len(messages) - 1))]["content"] = draw(
                st.sampled_from(["", []]))
        elif mutation in ("huge", "surrogate") and messages:
            value = HUGE if mutation == "huge" else draw(st.sampled_from(SURROGATES))
            messages[draw(st.integers(0, len(messages) - 1))]["content"] = value
        elif mutation == "extra_key" and messages:
            messages[draw(st.integers(0, len(messages) - 1))][draw(TEXTS)] = draw(JSON_GARBAGE)
        elif mutation == "role" and messages:
            messages[draw(st.integers(0, len(messages) - 1))]["role"] = draw(
                st.sampled_from(["system", "tool", "", "USER"]))
    return messages


# --- the contract ----------------------------------------------------------------------


def validate_or_invalid(messages) -> bool:
    """True if `messages` is valid, False if `validate` said InvalidHistory."""
    try:
        validate(messages)
    except InvalidHistory as err:
        assert isinstance(err.index, int) and err.rule
        assert str(err).startswith(f"messages[{err.index}]: ")
        return False
    return True


def check_strategy(name, messages, budget):
    valid = validate_or_invalid(messages)
    snapshot = copy.deepcopy(messages)
    try:
        result = BOUND[name](messages, goal=budget, counter=COUNTER)
    except InvalidHistory:
        assert not valid, f"{name} rejected a history that validate() accepts"
        return
    assert valid, f"{name} accepted a history that validate() rejects"
    assert isinstance(result, Compaction)
    validate(result.messages)
    assert messages == snapshot, "the input must not be mutated"
    assert 0 <= result.tokens_after <= result.tokens_before
    assert result.tokens_after == COUNTER.count(result.messages)


def check_count(messages):
    try:
        n = COUNTER.count(messages)
    except InvalidHistory:
        return
    assert isinstance(n, int) and not isinstance(n, bool) and n >= 0


# --- validate ----------------------------------------------------------------------------


@SETTINGS
@given(malformed(tame=True))
@example(None)
@example(42)
@example(b"bytes")
@example("a string is not a history")
@example({"role": "user", "content": "a dict, not a list"})
@example([None, 1, b"x", "s", [], {}])
@example([{"role": "user", "content": [None, 1, "text", b"x", {"type": None}]}])
@example([{"role": "user", "content": [{"type": "tool_result", "tool_use_id": None}]}])
@example([{"role": "user", "content": "\ud800" + HUGE}])
def test_validate_says_invalid_history_or_nothing(messages):
    validate_or_invalid(messages)


# --- strategies ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", quick_first(STRATEGIES))
@FEW
@given(messages=malformed(tame=True), budget=st.integers(0, 5_000))
@example(messages=[{"role": "user", "content": HUGE},
                   {"role": "assistant", "content": "\ud800"},
                   {"role": "user", "content": "x " * 5000}], budget=10)
@example(messages=[{"role": "user", "content": ""}], budget=0)
def test_strategies_raise_invalid_history_or_return_a_valid_compaction(name, messages, budget):
    check_strategy(name, messages, budget)


@pytest.mark.parametrize("name", quick_first(STRATEGIES))
@FEW
@given(messages=well_shaped(), budget=st.integers(0, 5_000))
def test_strategies_on_rule_breaking_histories(name, messages, budget):
    check_strategy(name, messages, budget)


# --- TokenCounter.count ------------------------------------------------------------------


@SETTINGS
@given(well_shaped())
def test_count_of_a_well_shaped_history_is_a_non_negative_int(messages):
    check_count(messages)
    # a warm counter and a fresh one agree: the caches never change the answer
    assert COUNTER.count(messages) == TokenCounter().count(messages)


# --- hostile shapes that once escaped (regressions) ------------------------------------------


@SETTINGS
@given(malformed(tame=False))
@example([{"role": "user", "content": [{"type": ["text"], "text": "x"}]}])
def test_validate_on_hostile_garbage(messages):
    validate_or_invalid(messages)


@pytest.mark.parametrize("name", quick_first(STRATEGIES))
@FEW
@given(messages=malformed(tame=False), budget=st.integers(0, 5_000))
@example(messages=[{"role": "user", "content": "go"},
                   {"role": "assistant", "content": [
                       {"type": "tool_use", "id": "t", "name": "n", "input": {"x": b"bytes"}}]},
                   {"role": "user", "content": [
                       {"type": "tool_result", "tool_use_id": "t", "content": "r"}]}],
         budget=10)
def test_strategies_on_hostile_garbage(name, messages, budget):
    check_strategy(name, messages, budget)


@SETTINGS
@given(malformed(tame=True))
@example(None)
def test_count_on_malformed_histories(messages):
    check_count(messages)


@pytest.mark.parametrize("messages", [
    None, 42, "text", {"role": "user", "content": "x"}, [None], [{"role": "user"}],
    [{"role": "user", "content": 7}], [{"role": "user", "content": [None]}],
    [{"role": "user", "content": [{"type": "text"}]}],
    [{"role": "user", "content": [{"type": "text", "text": 5}]}],
    [{"role": "user", "content": "x", 1: "non-string key"}],
])
def test_count_on_each_kind_of_malformed_message(messages):
    check_count(messages)


def test_huge_strings_and_lone_surrogates_are_counted():
    assert COUNTER.count([{"role": "user", "content": HUGE}]) == COUNTER.count_text(HUGE) + 3
    for text in SURROGATES:
        assert COUNTER.count([{"role": "user", "content": text}]) > 3
