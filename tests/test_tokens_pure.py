"""The pure-Python encoder (what a browser tab's Pyodide kernel counts with) gives exactly
tiktoken's tokens: on every bundled scenario file, every shipped real session and
generated text; and `TokenCounter` picks it when tiktoken's extension cannot import."""

import sys
from pathlib import Path

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

from jupyter_compaction import sessions
from jupyter_compaction.tokens import (
    ENCODINGS,
    TokenCounter,
    ensure_encoding,
    pure_encoding,
    tiktoken_encoding,
)

PACKAGE = Path(__file__).resolve().parents[1] / "jupyter_compaction"
SCENARIO_FILES = sorted(p for p in (PACKAGE / "scenario-data").rglob("*")
                        if p.is_file())
SESSION_FILES = sessions.shipped()


def _tokens(encoding, text: str) -> list[int]:
    return encoding.encode(text, disallowed_special=())


@pytest.fixture
def no_tiktoken_extension(monkeypatch):
    """As in Pyodide: `import tiktoken` fails; the encoder cache starts empty and ends so."""
    monkeypatch.setitem(sys.modules, "tiktoken", None)
    ensure_encoding.cache_clear()
    yield
    ensure_encoding.cache_clear()


def test_there_are_files_to_compare():
    assert len(SCENARIO_FILES) > 10 and len(SESSION_FILES) >= 3


@pytest.mark.parametrize("path", SCENARIO_FILES + SESSION_FILES,
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_every_bundled_file_tokenizes_identically(path):
    text = path.read_text(encoding="utf-8", errors="replace")
    assert _tokens(pure_encoding(), text) == _tokens(tiktoken_encoding(), text)


@pytest.mark.parametrize("name", sorted(ENCODINGS))
@settings(max_examples=200, deadline=None)
@given(text=st.text(st.characters(exclude_categories=["Cs"]), max_size=400))
def test_generated_text_tokenizes_identically(name, text):
    assert _tokens(pure_encoding(name), text) == _tokens(tiktoken_encoding(name), text)


def test_without_the_extension_the_counter_uses_the_pure_encoder(no_tiktoken_extension):
    with pytest.raises(ImportError):
        tiktoken_encoding()
    counter = TokenCounter()
    assert not isinstance(counter.encoding, tiktoken.Encoding)
    assert counter.encoding is pure_encoding()
    assert counter.count_text("bad \ud800 char") > 0  # lone surrogates still count


@pytest.mark.parametrize("path", SESSION_FILES, ids=lambda p: p.name)
def test_real_sessions_count_the_same_without_the_extension(path, no_tiktoken_extension):
    messages = [m for segment in sessions.load(path).segments for m in segment]
    pure = TokenCounter().count(messages)
    ensure_encoding.cache_clear()
    sys.modules.pop("tiktoken")  # the extension is back
    assert TokenCounter().count(messages) == pure
