"""Asking the summarizer: echoed prefixes, redaction, focus and bounded (chunked) input."""

import pytest

from jupyter_compaction import CompactAll, SummarizeMiddle, TokenCounter
from jupyter_compaction.history import blocks
from jupyter_compaction.strategies.summary_call import clean, cut, summarize
from jupyter_compaction.summaries import ASSISTANT_PREFIX, USER_PREFIX, find_summary
from tests.support.histories import fixed_history
from tests.support.strategy_checks import Recorder, apply

COUNTER = TokenCounter()
SUMMARY = "## Goal\nfind ORD-1042\n## Progress\nfiles read"
GITHUB = "ghp_" + "A1b2C3d4E5" * 4
STRATEGIES = {"summarize": lambda s, **kw: SummarizeMiddle(s, protect_first=1, tail_tokens=50,
                                                           **kw),
              "compact": lambda s, **kw: CompactAll(s, **kw)}


def summary_texts(messages):
    return [b["text"] for m in messages for b in blocks(m)
            if b.get("type") == "text" and b["text"].startswith((ASSISTANT_PREFIX, USER_PREFIX))]


@pytest.mark.parametrize("name", STRATEGIES)
@pytest.mark.parametrize("echo", [ASSISTANT_PREFIX, USER_PREFIX])
def test_an_echoed_prefix_is_not_doubled(name, echo):
    out = apply(STRATEGIES[name](Recorder(f"  {echo}\n\n{echo}\n{SUMMARY}")), fixed_history(6, 80),
                goal=100_000)
    [text] = summary_texts(out.messages)
    assert text.count(ASSISTANT_PREFIX) + text.count(USER_PREFIX) == 1
    assert out.summary == SUMMARY and find_summary(out.messages) == SUMMARY


@pytest.mark.parametrize("name", STRATEGIES)
def test_secrets_reach_neither_the_prompt_nor_the_summary(name):
    messages = fixed_history(6, 80)
    messages[0] = {"role": "user", "content": f"Use the token {GITHUB} to open the PR."}
    messages[2] = {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_0",
         "content": "Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123\nAKIAIOSFODNN7EXAMPLE"}]}
    summarizer = Recorder(lambda prompt: f"{SUMMARY}\ntoken {GITHUB}")  # a leaky summarizer
    out = apply(STRATEGIES[name](summarizer), messages, goal=100_000)
    for text in [*summarizer.prompts, out.summary, *summary_texts(out.messages)]:
        assert GITHUB not in text and "abcdefghijklmnop" not in text
        assert "AKIAIOSFODNN7EXAMPLE" not in text
    assert "[REDACTED GitHub token]" in out.summary
    assert "Authorization: Bearer [REDACTED bearer token]" in summarizer.prompts[0]


@pytest.mark.parametrize("name", STRATEGIES)
def test_focus_reaches_the_prompt(name):
    summarizer = Recorder(SUMMARY)
    apply(STRATEGIES[name](summarizer, focus="the   waybill\nnumbers"), fixed_history(6, 80),
          goal=100_000)
    assert "focus on: the waybill numbers." in summarizer.prompts[0]
    plain = Recorder(SUMMARY)
    apply(STRATEGIES[name](plain), fixed_history(6, 80), goal=100_000)
    assert "focus" not in plain.prompts[0]


def test_clean_strips_repeated_prefixes_and_handles_no_text():
    assert clean(f"{USER_PREFIX}\n{ASSISTANT_PREFIX}\n\n{SUMMARY}\n") == SUMMARY
    assert clean(None) == clean("  ") == ""


def test_cut_keeps_the_beginning_and_says_what_was_left_out():
    text = " ".join(f"word{i}" for i in range(2_000))
    short = cut(text, 100, COUNTER)
    assert COUNTER.count_text(short) <= 100
    assert short.startswith("word0 word1") and "more tokens left out of the summary prompt" in short
    assert cut("small", 100, COUNTER) == "small"


def huge_history(turns=60, words=760):
    """About 3,000 tokens a turn: 60 turns make a 180k-token middle."""
    return fixed_history(turns, words)


@pytest.mark.parametrize("name", STRATEGIES)
def test_a_180k_token_middle_is_summarized_in_bounded_chunks(name):
    messages = huge_history()
    middle = COUNTER.count(messages[1:])
    assert middle >= 180_000
    limit = 32_000
    summarizer = Recorder(lambda prompt: f"{SUMMARY}\nsummary #{len(summarizer.prompts)}")
    out = apply(STRATEGIES[name](summarizer, input_limit=limit), messages, goal=300_000)
    sizes = [COUNTER.count_text(p) for p in summarizer.prompts]
    assert max(sizes) <= limit and len(sizes) >= middle // limit
    assert out.summary_prompt == summarizer.prompts[-1]
    assert out.note == f"summarized in {len(sizes)} chunks"
    # each chunk after the first updates the summary the one before it wrote
    for k, prompt in enumerate(summarizer.prompts[1:], start=1):
        assert f"<previous-summary>\n{SUMMARY}\nsummary #{k}\n</previous-summary>" in prompt
    # every turn of the middle is in exactly one prompt, oldest turns in the first prompts
    holders = [[k for k, p in enumerate(summarizer.prompts) if f"file{t}.json: item{t}_0 " in p]
               for t in range(60)]
    found = [h[0] for h in holders[:-1]]  # the newest turn is summarize's tail
    assert all(len(h) == 1 for h in holders[:-1]) and found == sorted(found)


def test_a_single_turn_bigger_than_the_limit_is_cut_with_a_note():
    messages = huge_history(turns=2, words=30_000)
    messages[1]["content"][1]["input"] = {"path": "big.json", "body": "x " * 500}
    summarizer = Recorder(SUMMARY)
    summary, prompts = summarize(summarizer, messages[1:], previous=None, goal="find it",
                                 focus="", counter=COUNTER, limit=8_000)
    assert summary == SUMMARY and len(prompts) == 2
    for prompt in prompts:
        assert COUNTER.count_text(prompt) <= 8_000
        assert "more tokens left out of the summary prompt" in prompt
    assert '"path": "big.json"' in prompts[0] and "[cleared: 1002 chars]" in prompts[0]


def test_an_empty_answer_for_any_chunk_leaves_the_history_unchanged():
    answers = iter([SUMMARY, ""])
    out = apply(CompactAll(lambda prompt: next(answers), input_limit=10_000),
                huge_history(turns=8), goal=300_000)
    assert not out.changed and "no text" in out.note


def test_a_long_task_and_previous_summary_are_cut_to_fit():
    long = " ".join(f"goal{i}" for i in range(20_000))
    summary, prompts = summarize(Recorder(SUMMARY), fixed_history(3, 50)[1:], previous=long,
                                 goal=long, focus="", counter=COUNTER, limit=5_000)
    assert COUNTER.count_text(prompts[0]) <= 5_000 and summary == SUMMARY
