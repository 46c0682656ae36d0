"""The sandboxed process: define one learner's function, then call it on inputs it is sent.

`python -m jupyter_compaction.grading.worker` is started by `sandbox.py` for one exercise
of one learner. It reads JSON lines on stdin and answers one JSON line each:

- first `{"source": ..., "function": ...}`: the source runs in a namespace of its own;
  the answer is `{"ready": true, ...}` or `{"raised": "TypeError: ..."}`;
- then one `{"args": [...], "kwargs": {...}}` per call (`codec` data): the answer is
  `{"result": ..., "args": ..., "kwargs": ...}` (the arguments as the call left them, so
  the grader sees a mutated input) or `{"raised": ...}`.

It never learns what a case expects, the seed, the case names or an input before the call
that uses it: those stay in the grading process, which compares. What the learner prints
goes to /dev/null (fd 1 is redirected before the source runs; answers go to a saved copy),
and before the first request the worker puts the seccomp filter of `syscalls.py` on itself
(the ready answer says in `unfiltered` why, where it could not).
This module imports only `codec` and `syscalls`, so the sandbox needs no other part of the
grading package (`sandbox.py` hides the rest of it).

Left out: limits and isolation (`sandbox.py` sets them before this process starts).
"""

from __future__ import annotations

import os
import sys

from .codec import decode, dumps, encode, loads, one_line
from .syscalls import forbid

TYPE_CHECKING = False  # not typing's: importing typing costs every sandboxed worker's start
if TYPE_CHECKING:
    from typing import Any, TextIO


def define(request: dict[str, Any]) -> Any:
    namespace: dict[str, Any] = {"__name__": "__learner__"}
    exec(compile(request["source"], "<solution>", "exec"), namespace)
    return namespace.get(request["function"])


def call(fn: Any, request: dict[str, Any]) -> dict[str, Any]:
    args, kwargs = decode(request["args"], counts=True), decode(request["kwargs"], counts=True)
    result = fn(*args, **kwargs)
    return {"result": encode(result), "args": encode(list(args)), "kwargs": encode(kwargs)}


def answer(out: TextIO, reply: dict[str, Any]) -> None:
    out.write(dumps(reply) + "\n")
    out.flush()


def serve(requests: TextIO, out: TextIO, unfiltered: str | None) -> None:
    fn = None
    for line in requests:
        request = loads(line)
        try:
            if "source" in request:
                fn = define(request)
                reply: dict[str, Any] = {"ready": True, "callable": callable(fn),
                                         "kind": type(fn).__name__, "unfiltered": unfiltered}
            else:
                reply = call(fn, request)
        except (Exception, SystemExit) as exc:  # the learner's code: reported, never raised
            reply = {"raised": one_line(exc)}
        answer(out, reply)


def main() -> None:
    out = os.fdopen(os.dup(1), "w")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - open until the process ends
    serve(sys.stdin, out, forbid())


if __name__ == "__main__":
    main()
