"""`solved_or_reference()`: let a learner copy run on before its exercise is solved.

A lesson cell that uses the learner's function wraps it: while the function still raises
the released stub's `NotImplementedError`, the wrapper says so in one line and calls the
reference the lesson passes instead, so the notebook runs top to bottom unsolved. The
reference is whatever the lesson chooses: the library's implementation, or, where that
would give the exercise away (lesson 8's settings), a baseline that is not the answer.

Left out: any other exception, which is the learner's bug to see, not to hide.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

NOT_SOLVED = "{name}() is not solved yet, using the reference{what}"


def solved_or_reference(function: Callable[..., Any], reference: Callable[..., Any],
                        what: str = "") -> Callable[..., Any]:
    """`function`, or `reference` (saying so) while `function` raises NotImplementedError."""
    name = getattr(function, "__name__", "the function")

    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except NotImplementedError:
            print(NOT_SOLVED.format(name=name, what=f" {what}" if what else ""))
            return reference(*args, **kwargs)

    return call
