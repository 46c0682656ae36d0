"""TrimTurns: whole turns go, oldest first; the task and the newest turn stay."""


import pytest

from jupyter_compaction import SummarizeMiddle, TokenCounter, TrimTurns
from jupyter_compaction.history import blocks, tool_result_ids, tool_use_ids, validate
from jupyter_compaction.summaries import find_summary, summary_block
from tests.support.histories import fixed_history
from tests.support.strategy_checks import apply

COUNTER = TokenCounter()

def run(strategy, messages, budget):
    return apply(strategy, messages, budget)


def tokens(messages):
    return COUNTER.count(messages)


def turn_cost(messages, k):
    """Tokens of the k-th tool turn (messages 1+2k and 2+2k) of a fixed_history."""
    return tokens(messages[1 + 2 * k: 3 + 2 * k])


def test_under_budget_is_unchanged():
    messages = fixed_history(4, 50)
    out = run(TrimTurns(), messages, budget=tokens(messages))
    assert not out.changed
    assert out.note == f"fits under {tokens(messages)} tokens"
    assert all(a is b for a, b in zip(out.messages, messages, strict=True))


@pytest.mark.parametrize("n", [1, 2, 4])
def test_drops_whole_turns_oldest_first_and_only_as_many_as_needed(n):
    messages = fixed_history(6, 100)
    total = tokens(messages)
    freed = sum(turn_cost(messages, k) for k in range(n))
    out = run(TrimTurns(), messages, budget=total - freed)
    assert out.kind == "trim"
    assert out.dropped == 2 * n
    assert out.messages == [messages[0], *messages[1 + 2 * n:]]
    assert all(a is b for a, b in zip(out.messages[1:], messages[1 + 2 * n:], strict=True))
    assert out.tokens_after == total - freed
    # one token less and one more turn has to go
    tighter = run(TrimTurns(), messages, budget=total - freed - 1)
    assert tighter.dropped == 2 * n + 2


def test_keeps_the_newest_turn_even_when_over_budget():
    messages = fixed_history(6, 100)
    out = run(TrimTurns(), messages, budget=1)
    assert out.messages == [messages[0], messages[-2], messages[-1]]
    assert out.dropped == 10
    assert out.tokens_after > 1


@pytest.mark.parametrize("keep_first", [1, 3])
def test_the_note_says_why_the_goal_was_not_reached(keep_first):
    messages = fixed_history(6, 100)
    goal = tokens(messages[-2:])  # the newest turn alone fills it: the task tips it over
    out = run(TrimTurns(keep_first=keep_first), messages, budget=goal)
    head = len(out.messages) - 2
    assert out.tokens_after == tokens(out.messages) > goal
    assert out.messages[head:] == messages[-2:]
    assert out.note == (
        f"still {out.tokens_after} tokens, over the goal of {goal}: the task "
        f"({tokens(messages[:head])} tokens) and the newest turn "
        f"({tokens(messages[-2:])} tokens) are never dropped")


def test_a_trim_that_reaches_the_goal_has_no_note():
    messages = fixed_history(6, 100)
    out = run(TrimTurns(), messages, budget=tokens(messages) - 1)
    assert out.changed and out.tokens_after < tokens(messages) and out.note == ""


def test_a_task_over_the_goal_with_no_turn_says_nothing_can_go():
    messages = [{"role": "user", "content": "a very long task " * 50}]
    out = run(TrimTurns(), messages, budget=10)
    assert not out.changed
    assert out.note == ("over the goal of 10 tokens with nothing to drop: "
                        "the task (keep_first=1) stays")


def test_keeps_a_final_text_answer_as_the_newest_turn():
    messages = [*fixed_history(3, 100), {"role": "assistant", "content": "All done."}]
    out = run(TrimTurns(), messages, budget=1)
    assert out.messages == [messages[0], messages[-1]]


@pytest.mark.parametrize(("keep_first", "head"), [(0, 1), (1, 1), (2, 3), (3, 3), (4, 5)])
def test_keep_first_is_widened_to_a_turn_boundary(keep_first, head):
    messages = fixed_history(6, 100)
    out = run(TrimTurns(keep_first=keep_first), messages, budget=1)
    assert out.messages[:head] == messages[:head]
    assert out.messages[head:] == messages[-2:]
    assert out.dropped == len(messages) - 2 - head


def test_never_splits_parallel_calls():
    messages = [{"role": "user", "content": "Task: compare the three files in every folder."}]
    n = 0
    for t in range(5):
        ids = [f"p{n + i}" for i in range(3)]
        n += 3
        messages.append({"role": "assistant", "content": [
            {"type": "text", "text": f"Folder {t}: reading three files at once."},
            *({"type": "tool_use", "id": tid, "name": "read_file", "input": {"path": tid}}
              for tid in ids)]})
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tid, "content": f"{tid} " * (40 * (t + 1))}
            for tid in ids]})
    total = tokens(messages)
    for budget in range(0, total + 50, 25):
        out = run(TrimTurns(), messages, budget=budget)
        for i, m in enumerate(out.messages):
            if m["role"] == "assistant":
                assert sorted(tool_use_ids(m)) == sorted(tool_result_ids(out.messages[i + 1]))
                # the group is kept whole: its message object is the original
                assert any(m is original for original in messages)


def test_a_user_role_summary_in_the_head_stays_while_it_fits():
    messages = fixed_history(5, 100)
    messages[0] = {"role": "user", "content": [
        {"type": "text", "text": messages[0]["content"]},
        summary_block("## Progress\nread file0.json (ORD-1042)", "user")]}
    floor = tokens([messages[0], *messages[-2:]])
    out = run(TrimTurns(), messages, budget=floor)
    assert out.messages[0] is messages[0]
    assert find_summary(out.messages) == "## Progress\nread file0.json (ORD-1042)"
    # when even task + summary + newest turn is too much, the summary goes last
    out = run(TrimTurns(), messages, budget=floor - 1)
    assert find_summary(out.messages) is None
    assert blocks(out.messages[0]) == blocks(messages[0])[:1]
    assert out.messages[1:] == messages[-2:]


def test_nothing_older_than_the_newest_turn_to_drop():
    messages = fixed_history(1, 300)
    out = run(TrimTurns(), messages, budget=10)
    assert out.dropped == 0
    assert out.messages == messages


def test_an_assistant_role_summary_is_dropped_only_when_even_that_is_too_much():
    summarize = SummarizeMiddle(lambda prompt: "## Progress\nread file0-file5; ORD-1042 found",
                                protect_first=1, tail_tokens=1)
    compacted = summarize(fixed_history(8, 100), goal=10_000, counter=COUNTER).messages
    # task, then [summary + older turns...], then the newest turn
    messages = compacted + fixed_history(10, 100)[17:]
    without = {**messages[1], "content": messages[1]["content"][1:]}
    summary_cost = tokens(messages) - tokens([messages[0], without, *messages[2:]])
    budget = tokens([messages[0], *messages[-2:]]) + summary_cost + 5
    out = run(TrimTurns(), messages, budget=budget)
    assert find_summary(out.messages) == "## Progress\nread file0-file5; ORD-1042 found"


def test_the_turn_asking_a_follow_up_stays_like_the_task():
    def turn(n: int) -> list[dict]:
        call = {"type": "tool_use", "id": f"t{n}", "name": "read_file", "input": {"path": f"{n}"}}
        result = {"type": "tool_result", "tool_use_id": f"t{n}", "content": "x " * 300}
        return [{"role": "assistant", "content": [call]}, {"role": "user", "content": [result]}]

    follow_up = [{"role": "assistant", "content": "Done: three files."},
                 {"role": "user", "content": "And which of them is the largest?"}]
    messages = [{"role": "user", "content": "Read the files."}, *turn(1), *turn(2), *follow_up,
                *turn(3), *turn(4), *turn(5)]
    out = TrimTurns()(messages, goal=200, counter=TokenCounter()).messages
    validate(out)
    assert follow_up[1] in out and out[0] == messages[0] and out[-2:] == messages[-2:]
    assert turn(1)[0] not in out and turn(3)[0] not in out  # dropped before and after it


def test_the_summary_stating_a_follow_up_stays_when_summaries_go():
    """A summary whose Goal is the newest question (the turn that asked it was summarized
    away) is kept like that turn: it is all that says what is asked now."""
    def turn(n: int, *first: dict) -> list[dict]:
        call = {"type": "tool_use", "id": f"t{n}", "name": "read_file", "input": {"path": f"{n}"}}
        result = {"type": "tool_result", "tool_use_id": f"t{n}", "content": "x " * 300}
        return [{"role": "assistant", "content": [*first, call]},
                {"role": "user", "content": [result]}]

    older = summary_block("## Goal\nRead the files.\n## Progress\n- read 1-4")
    asking = summary_block("## Goal\nAnd which of them is the largest?\n## Progress\n- x")
    messages = [{"role": "user", "content": "Read the files."}, *turn(1, older), *turn(2),
                *turn(3, asking), *turn(4), *turn(5)]
    out = TrimTurns()(messages, goal=200, counter=TokenCounter()).messages
    validate(out)
    assert asking in blocks(out[1]) and older not in [b for m in out for b in blocks(m)]
    assert turn(2)[0] not in out and turn(4)[0] not in out  # dropped before and after it
