"""ex6b (lesson 6): `session_chain`, follow a run's sessions back to its first (C11).

Each compaction starts a new session whose `parent_session_id` points at the one before,
so a run's full history is the chain of its sessions. The learner gets the parent links
as a dict and returns the ids from the run's first session down to the one asked for.
The expected chain is what `store.SessionStore.chain()` returns for the same links,
written to a temporary store: an ancestor that cannot be read (missing) or that closes a
loop ends the walk, and the chain starts after it. The teeth: a first session alone,
order (oldest first), a missing ancestor, a loop, and branches (two children of one
parent: only the asked-for branch).

Left out: reading the sessions' messages (`SessionStore.transcript`).
"""

from __future__ import annotations

import functools
import random
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..store import META, SessionStore, write_atomic
from .base import Case, Exercise, Space, Test, call, compare, numbered

HIDDEN_CASES = 8
CREATED = "2026-01-01T00:00:00+00:00"


def expected(parents: dict[str, str | None], session_id: str) -> list[str]:
    return list(_stored_chain(tuple(parents.items()), session_id))


@functools.lru_cache(maxsize=4096)
def _stored_chain(parents: tuple[tuple[str, str | None], ...], session_id: str
                  ) -> tuple[str, ...]:
    """The store's chain, computed once per distinct case in a grading process: every
    learner meets the same cases, and each write of the store flushes to disk."""
    with tempfile.TemporaryDirectory(prefix="compaction-chain-") as root:
        for sid, parent in parents:
            (Path(root) / sid).mkdir()
            write_atomic(Path(root) / sid / META, {"session_id": sid, "run_id": "run",
                                                   "parent_session_id": parent,
                                                   "created": CREATED})
        return tuple(s.session_id for s in SessionStore(root).chain(session_id))


def same_as_store(parents: dict[str, str | None], session_id: str) -> Test:
    def test(fn: Callable[..., Any]) -> str | None:
        got = fn(dict(parents), session_id)
        return compare(got, expected(parents, session_id),
                       call("session_chain", parents=parents, session_id=session_id) + " returned")
    return test


LINE = {"s1": None, "s2": "s1", "s3": "s2", "s4": "s3"}
BRANCHES = {"s1": None, "s2": "s1", "s3": "s2", "s3b": "s2", "s4b": "s3b"}

CASES = (
    Case("a chain of four", "follow parent links up to the session whose parent is None,"
         " then return the ids oldest first", same_as_store(LINE, "s4")),
    Case("the first session alone", "a session without a parent is a chain of one",
         same_as_store(LINE, "s1")),
    Case("from the middle of a chain", "start at the session asked for, not at the newest",
         same_as_store(LINE, "s3")),
    Case("a missing ancestor",
         "a parent id that is not in `parents` cannot be read: the chain starts after it",
         same_as_store({"s2": "s1", "s3": "s2"}, "s3")),
    Case("a loop", "a parent already in the chain closes a loop: stop there instead of"
         " walking forever", same_as_store({"a": "c", "b": "a", "c": "b"}, "c")),
    Case("two branches", "follow only the parents of the session asked for",
         same_as_store(BRANCHES, "s4b")),
)


def hidden_case(n: int, rng: random.Random) -> Case:
    ids = [f"2026{rng.randint(100000, 999999)}-{k:02d}" for k in range(rng.randint(1, 9))]
    parents: dict[str, str | None] = {ids[0]: None}
    for k, sid in enumerate(ids[1:], start=1):
        parents[sid] = ids[rng.randrange(k)] if rng.random() < 0.3 else ids[k - 1]
    if len(ids) > 2 and rng.random() < 0.3:
        del parents[ids[rng.randrange(len(ids) - 1)]]  # an unreadable ancestor
    if len(ids) > 2 and rng.random() < 0.2:
        parents[ids[0]] = ids[-1]  # a loop
    target = rng.choice(list(parents))
    return Case(f"hidden case {n}", f"session_chain({parents!r}, {target!r})",
                same_as_store(parents, target))


def chain_inputs():
    """Chains and branches of ids (some digits only, like "0"), missing ancestors, loops."""
    from hypothesis import strategies as st

    ids = st.lists(st.sampled_from(("0", "1", "s1", "s2", "s3", "a", "b", "20260101-01")),
                   min_size=1, max_size=6, unique=True)

    def linked(chosen: list[str]):
        links = st.tuples(*(st.one_of(st.none(), st.sampled_from([*chosen, "gone"]))
                            for _ in chosen))
        return st.tuples(links.map(lambda ps: dict(zip(chosen, ps, strict=True))),
                         st.sampled_from(chosen))
    return ids.flatmap(linked)


SPACE = Space(same_as_store, chain_inputs, edges=(
    ({"0": None}, "0"), ({"0": None, "1": "0"}, "1"), ({"1": "0"}, "1"),
    ({"a": "a"}, "a"), ({"0": "1", "1": "0"}, "0")))


EXERCISE = Exercise(
    id="ex6b", lesson=6, function="session_chain",
    signature="session_chain(parents, session_id)",
    contract="`parents` maps each session id to its parent's id (None for a run's first "
             "session). Return the ids from the first session down to `session_id`; a parent "
             "that is not in `parents`, or that is already in the chain, ends the walk.",
    cases=CASES,
    hidden=numbered(hidden_case, HIDDEN_CASES),
    library=("SessionStore", "chain"),
    space=SPACE,
)
