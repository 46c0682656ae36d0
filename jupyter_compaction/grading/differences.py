"""Where a learner's result first differs from the expected one, with the field named.

`first_difference(got, expected)` walks two nested values (lists, dicts, strings,
numbers) in order and says where they first differ, in words a learner can act on:
"message 3, content: expected a str ('Go on.'), got a list ([...])", "message 2,
content[0].text differs at character 41: got '...', expected '...'", "4 messages, expected
5: message 4 is missing". A list of messages (dicts with a `role`) is walked message by
message; any other list item by item (`result[2]`). Types count: `1` is not `True`, a
tuple is not a list.

Given the input (`given`), a difference in a message the expected result returns exactly
as it was given says so, and when the learner's message holds the same blocks in another
form (string content turned into a block list, or back), the problem is `Advice`: it
names its own fix, a message you do not change is returned as it is, so `base.attempt()`
shows it in place of the case's hint, which is about another mistake.

Left out: diffs of more than the first difference (one fix at a time), and sets.
"""

from __future__ import annotations

from typing import Any

from .base import Advice, short

WINDOW = 30  # characters shown on each side of where two long strings part
UNCHANGED = " (this message comes back as it was given)"
SAME_FORM = ("the same message in another form: return a message you do not change as it is"
             " (string content stays a string)")


def kind(value: Any) -> str:
    """`a str`, `an int`, `None`: the type as the messages name it."""
    if value is None:
        return "None"
    name = type(value).__name__
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"


def described(value: Any) -> str:
    """`a str ('Go on.')`, or `None`."""
    return "None" if value is None else f"{kind(value)} ({short(value)})"


def is_messages(value: Any) -> bool:
    return (isinstance(value, list) and bool(value)
            and all(isinstance(m, dict) and "role" in m for m in value))


def as_blocks(message: Any) -> Any:
    """The message with string content as one text block (how `history.blocks` reads it)."""
    if isinstance(message, dict) and isinstance(message.get("content"), str):
        return {**message, "content": [{"type": "text", "text": message["content"]}]}
    return message


def where(path: tuple[Any, ...], what: str, messages: bool) -> str:
    """`message 2, content[0].text` for a message list, `result[2]['x']` otherwise."""
    if messages and path:
        head, rest = f"message {path[0]}", path[1:]
    else:
        head, rest = what, path
    field = ""
    for part in rest:
        if isinstance(part, int):
            field += f"[{part}]"
        elif isinstance(part, str) and part.isidentifier():
            field += f".{part}" if field or not messages else part
        else:
            field += f"[{part!r}]"
    if messages and path:
        return f"{head}, {field}" if field else head
    return head + field


def text_difference(got: str, expected: str) -> str:
    """Where two strings part: the whole values when short, else a window around it."""
    if len(repr(got)) <= 60 and len(repr(expected)) <= 60:
        return f": got {got!r}, expected {expected!r}"
    at = next((i for i, (a, b) in enumerate(zip(got, expected, strict=False)) if a != b),
              min(len(got), len(expected)))
    start = max(at - WINDOW, 0)
    dots = "..." if start else ""
    return (f" at character {at}: got {dots}{got[start:at + WINDOW]!r}, expected "
            f"{dots}{expected[start:at + WINDOW]!r}")


def first_difference(got: Any, expected: Any, given: list[Any] | None = None,
                     what: str = "result") -> str | Advice | None:
    """None when `got` equals `expected` (types included), else where they first differ.

    `given` is the input the expected result was computed from, if any: it lets the
    message say that a differing message should have come back as it was given."""
    messages = is_messages(expected) or is_messages(got)
    if messages and isinstance(got, list) and isinstance(expected, list):
        return _messages(got, expected, given or [], what)
    return _walk(got, expected, (), what, False)


def _messages(got: list[Any], expected: list[Any], given: list[Any],
              what: str) -> str | Advice | None:
    for index, (mine, theirs) in enumerate(zip(got, expected, strict=False)):
        found = _walk(mine, theirs, (index,), what, True)
        if not found:
            continue
        unchanged = any(theirs == original for original in given)
        if unchanged and as_blocks(mine) == as_blocks(theirs):
            return Advice(f"{found}: {SAME_FORM}")
        return found + (UNCHANGED if unchanged else "")
    if len(got) > len(expected):
        return (f"{len(got)} messages, expected {len(expected)}: message {len(expected)} is "
                f"one too many ({short(got[len(expected)])})")
    if len(got) < len(expected):
        return (f"{len(got)} messages, expected {len(expected)}: message {len(got)} is "
                f"missing ({short(expected[len(got)])})")
    return None


def _walk(got: Any, expected: Any, path: tuple[Any, ...], what: str,
          messages: bool) -> str | None:
    # the place is named only once a difference is found (most values are equal)
    if type(got) is not type(expected):
        return (f"{where(path, what, messages)}: expected {described(expected)}, "
                f"got {described(got)}")
    if isinstance(expected, dict):
        return _walk_dict(got, expected, path, what, messages)
    if isinstance(expected, (list, tuple)):
        return _walk_items(got, expected, path, what, messages)
    if got == expected:
        return None
    if isinstance(expected, str):
        return f"{where(path, what, messages)} differs{text_difference(got, expected)}"
    return f"{where(path, what, messages)}: got {short(got)}, expected {short(expected)}"


def _walk_dict(got: dict[Any, Any], expected: dict[Any, Any], path: tuple[Any, ...],
               what: str, messages: bool) -> str | None:
    for key in expected:
        if key not in got:
            return f"{where(path, what, messages)} lacks the key {key!r}"
        found = _walk(got[key], expected[key], (*path, key), what, messages)
        if found:
            return found
    extra = [k for k in got if k not in expected]
    if extra:
        return f"{where(path, what, messages)} has a key {extra[0]!r} that is not expected"
    return None


def _walk_items(got: list[Any] | tuple[Any, ...], expected: list[Any] | tuple[Any, ...],
                path: tuple[Any, ...], what: str, messages: bool) -> str | None:
    for index, (a, b) in enumerate(zip(got, expected, strict=False)):
        found = _walk(a, b, (*path, index), what, messages)
        if found:
            return found
    if len(got) != len(expected):
        return f"{where(path, what, messages)} has {len(got)} items, expected {len(expected)}"
    return None
