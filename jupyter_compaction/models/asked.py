"""Which question a conversation asks now: the newest one its user asked.

A conversation can go on after an answer: the user asks a follow-up in the same
conversation (`Agent.ask`), and the model must answer that, not the first task again.
`asked(messages)` finds it, reading only what the request shows:

1. a **question turn** is a user message that answers no tool call: its text, without
   any summary folded into it, is a question (a message of tool results is a tool turn
   even when the library adds text to it: a context-usage line, a pinned note), unless it
   only says to carry on ("Go on.", "please continue": `CARRY_ON`);
2. a **summary** (a block the library marks as one, or a text with a Goal section, as a
   server compaction hands it over) states the task in the first line of its Goal
   section: the turns it replaced may have held the newest question;
3. the newest of these wins, but a Goal that is only the first line of a question still
   in view stands for that whole question (a summary restating the task as it was).

`asking_summary(messages)` is the summary block that alone states the newest question (rule
2 without a question turn behind it): a strategy that drops summaries keeps that one, or
the conversation falls back to an older question.

`asked_of(task, previous, entries)` does the same over what a summary prompt hands over:
its task, the previous summary's Goal, then the turns (`vocab.read_transcript`), where a
user entry that follows no tool output is a question.

Left out: the library's own messages that are not user turns (restated instructions are
`system` messages, summary requests are answered before any question is read), and a
question asked inside a tool result, which is data.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..history import Block, Message, blocks, opens_with_compaction
from ..summaries import is_summary, message_goal, strip_prefix
from ..vocab import UNKNOWN, Entry

GOAL = re.compile(r"^#+\s*Goal\s*\n(.+)", re.M)  # a summary's Goal section, first line
# A turn that only tells it to carry on ("Go on.", "please continue"): no new question.
CARRY_ON = re.compile(r"^\W*(?:(?:please|ok|okay|now|so|then|and|yes)\W+)*(?:continue|go(?:\s+on|"
                      r"\s+ahead)?|keep\s+going|carry\s+on|proceed|resume)(?:\W+(?:please|then|"
                      r"now|(?:with\s+)?(?:the|your)\s+(?:task|work)))*\W*$", re.I)


def goal_of(summary: str) -> str:
    """The first line of a summary's Goal section ("" when it has none)."""
    found = GOAL.search(strip_prefix(summary))
    return found.group(1).strip() if found and found.group(1).strip() != UNKNOWN else ""


def stated(messages: Sequence[Message]) -> list[tuple[int, str, bool]]:
    """Every statement of the task in view, oldest first: (message index, text, whether
    it is a summary's Goal)."""
    found = []
    for n in range(1 if opens_with_compaction(messages) else 0, len(messages)):
        message = messages[n]
        kinds = {b.get("type") for b in blocks(message)}
        if message["role"] == "user" and "tool_result" not in kinds:  # 1. a question turn
            text = message_goal(message).strip()
            if goal := goal_of(text):  # a summary handed over as the user's text
                found.append((n, goal, True))
            elif text and not CARRY_ON.match(text):
                found.append((n, text, False))
        found += [(n, goal, True) for b in blocks(message)  # 2. summaries' Goals
                  if b.get("type") == "text" and is_summary(b["text"])
                  and (goal := goal_of(b["text"]))]
    return found


def asked(messages: Sequence[Message]) -> tuple[int, str]:
    """The newest question of the conversation and the index of the message that states
    it; (-1, "") when there is none."""
    return newest(stated(messages))[:2]


def asking_summary(messages: Sequence[Message]) -> Block | None:
    """The summary block whose Goal states the newest question when no question turn in
    view states it; None when a question turn (or nothing) does."""
    n, text, from_goal = newest(stated(messages))
    if not from_goal:
        return None
    return next((b for b in blocks(messages[n]) if b.get("type") == "text"
                 and is_summary(b["text"]) and goal_of(b["text"]) == text), None)


def newest(found: Sequence[tuple[int, str, bool]]) -> tuple[int, str, bool]:
    """The newest of the task's statements `stated` lists, by rule 3 of the module
    docstring, and whether only a summary's Goal states it."""
    if not found:
        return -1, "", False
    n, text, from_goal = found[-1]
    if from_goal:  # 3. a Goal restating a question in view stands for all of it
        return next(((m, whole, False) for m, whole, goal in reversed(found)
                     if not goal and whole.split("\n")[0].strip() == text), (n, text, True))
    return n, text, False


def asked_of(task: str, previous: str, entries: Sequence[Entry]) -> str:
    """The newest question of what a summary prompt hands over: the `task` it names, the
    Goal of the `previous` summary (which may state a follow-up the task does not), then
    each user entry of the transcript that follows no tool output."""
    found = [(0, task.strip(), False)] if task.strip() else []
    found += [(1, goal, True)] if (goal := goal_of(previous)) else []
    in_results = False
    for entry in entries:
        if (entry.kind == "said" and entry.who == "user" and not in_results
                and not CARRY_ON.match(entry.body)):
            found.append((2, entry.body.strip(), False))
        in_results = entry.kind == "output" or (in_results and entry.kind == "said"
                                                and entry.who == "user")
    return newest(found)[1]
