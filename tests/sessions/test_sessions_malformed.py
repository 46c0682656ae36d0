"""Malformed input never crashes a reader: a corpus of generated files (truncated lines,
wrong field types, parent cycles, deep nesting, bad bytes, binary and empty files, a
directory, a FIFO, a device) goes through `sessions.load`, `jupyter-compaction replay
--json` and `%replay`. Each gives a session whose every segment is valid, or one line of
error; none hangs, none grows memory without bound. The corpus is written by the test
into a temporary folder, never committed."""

import json
import os
import random
import resource
import signal
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output

from jupyter_compaction import cli, sessions
from jupyter_compaction.history import validate
from jupyter_compaction.replay import replay
from tests.support.shell import fresh_shell

SEED = 22
LIMIT_S = 10  # no input may take longer than this
MEMORY_MB = 400  # the most the whole corpus may add to the process's peak memory
CLI_SAMPLE, MAGIC_SAMPLE = 40, 60
SOURCES = [p for p in sessions.shipped() if p.name != "full_compacted.jsonl"]
FIELDS = ("parentUuid", "uuid", "type", "message", "timestamp", "isSidechain",
          "logicalParentUuid", "compactMetadata", "isCompactSummary", "subtype")
MESSAGE_FIELDS = ("content", "id", "usage", "role")
BLOCK_FIELDS = ("id", "name", "input", "tool_use_id", "content", "text", "type", "is_error")
WRONG = (7, -1, 2.5, True, None, [], [1, "a"], {}, {"a": {"b": []}}, "x", "")
CODEX = [{"type": "session_meta", "payload": {"id": "s"}},
         {"type": "response_item", "payload": {"type": "message", "role": "user",
                                               "content": [{"type": "input_text", "text": "go"}]}},
         {"type": "response_item", "payload": {"type": "function_call", "name": "shell",
                                               "arguments": "{\"c\": 1}", "call_id": "c1"}},
         {"type": "event_msg", "payload": {"type": "token_count", "info": {
             "last_token_usage": {"input_tokens": 10, "output_tokens": 2}}}},
         {"type": "response_item", "payload": {"type": "function_call_output",
                                               "call_id": "c1", "output": "ok"}}]


@contextmanager
def deadline(seconds: int = LIMIT_S):
    def stop(*_):
        raise TimeoutError(f"no answer within {seconds} s")

    old = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _mutate(value, rng: random.Random, keys: tuple[str, ...]):
    if isinstance(value, dict) and value:
        key = rng.choice([k for k in keys if k in value] or list(value))
        value[key] = rng.choice(WRONG)
    return value


def _wrong_types(lines: list[str], rng: random.Random) -> str:
    entries = [json.loads(line) for line in lines]
    for entry in rng.sample(entries, k=min(len(entries), rng.randint(1, 4))):
        message = entry.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        where = rng.randrange(3)
        if where == 0 or not isinstance(message, dict):
            _mutate(entry, rng, FIELDS)
        elif where == 1 or not isinstance(content, list) or not content:
            _mutate(message, rng, MESSAGE_FIELDS)
        else:
            _mutate(rng.choice(content), rng, BLOCK_FIELDS)
    return "\n".join(json.dumps(e) for e in entries)


def _cycle(lines: list[str], rng: random.Random) -> str:
    entries = [json.loads(line) for line in lines]
    linked = [e for e in entries if isinstance(e.get("uuid"), str)]
    a, b = sorted(rng.sample(range(len(linked)), 2))
    linked[a]["parentUuid"] = linked[b]["uuid"]
    return "\n".join(json.dumps(e) for e in entries)


def _deep(lines: list[str], rng: random.Random) -> str:
    depth = rng.randint(1000, 3000)
    nested = ("[" * depth + "]" * depth if rng.random() < 0.5
              else '{"a":' * depth + "1" + "}" * depth)
    at = rng.randrange(len(lines))
    entry = json.loads(lines[at])
    shape = rng.randrange(3)
    if shape == 0:
        line = nested
    elif shape == 1:
        line = json.dumps(entry)[:-1] + f', "deep": {nested}}}'
    else:
        line = json.dumps({**entry, "message": None})[:-1] + f', "x": {nested}}}'
    return "\n".join([*lines[:at], line, *lines[at + 1:]])


ENCODINGS = ("utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le",
             "utf-32-be")
UNHOLDABLE = ({"type": "tool_reference", "tool_name": "grep"}, {"type": "mystery"},
              {"type": "image"}, {"type": "tool_use", "id": 7})


def _unholdable(lines: list[str], rng: random.Random) -> str:
    """Blocks the history has no rule for, put into blocks lists and tool results."""
    entries = [json.loads(line) for line in lines]
    for entry in rng.sample(entries, k=min(len(entries), rng.randint(1, 6))):
        message = entry.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list) and content:
            block = rng.choice(content)
            target = (block["content"] if block.get("type") == "tool_result"
                      and isinstance(block.get("content"), list) else content)
            target.insert(rng.randrange(len(target) + 1), dict(rng.choice(UNHOLDABLE)))
    return "\n".join(json.dumps(e) for e in entries)


def corpus(folder: Path) -> list[Path]:
    """At least 500 malformed files of every kind named in the module docstring."""
    rng = random.Random(SEED)
    texts = {p.name: p.read_text().splitlines() for p in SOURCES}
    codex = [json.dumps(e) for e in CODEX]
    made: list[tuple[str, bytes]] = []

    def add(kind: str, data: str | bytes) -> None:
        made.append((kind, data.encode() if isinstance(data, str) else data))

    for _ in range(120):
        lines = texts[rng.choice(sorted(texts))]
        text = "\n".join(lines)
        add("truncated", text[:rng.randrange(1, len(text))])
    for _ in range(160):
        lines = rng.choice([*texts.values(), codex])
        add("types", _wrong_types(lines, rng))
    for _ in range(50):
        add("cycle", _cycle(texts[rng.choice(sorted(texts))], rng))
    for _ in range(30):
        add("deep", _deep(rng.choice([*texts.values(), codex]), rng))
    for _ in range(60):
        data = bytearray("\n".join(texts[rng.choice(sorted(texts))]).encode())
        for _hit in range(rng.randint(1, 20)):
            data[rng.randrange(len(data))] = rng.choice([0x80, 0xFF, 0xC3, 0x00, 0x0A, 0x7B])
        add("bytes", bytes(data))
    for _ in range(30):
        add("binary", rng.randbytes(rng.randint(1, 5000)))
    for _ in range(40):
        history = sessions.load(rng.choice(SOURCES)).messages
        data = {"messages": history} if rng.random() < 0.5 else history
        text = json.dumps(data)
        add("messages", _wrong_types([json.dumps(m) for m in history], rng).replace("\n", ",")
            .join("[]") if rng.random() < 0.5 else text[:rng.randrange(1, len(text))])
    for _ in range(20):
        lines = list(texts[rng.choice(sorted(texts))])
        rng.shuffle(lines)
        add("shuffled", "\n".join(lines + rng.sample(lines, k=min(5, len(lines)))))
    for _ in range(30):  # byte-order marks and wide encodings, some cut mid-character
        data = "\n".join(rng.choice([*texts.values(), codex])).encode(rng.choice(ENCODINGS))
        add("encoded", data[:rng.randrange(1, len(data))] if rng.random() < 0.3 else data)
    for _ in range(30):
        add("unholdable", _unholdable(texts[rng.choice(sorted(texts))], rng))
    for text in ("", "\n\n  \n", "{}", "[]", "null", '{"messages": []}', "[1, 2]",
                 '{"type": "user"}', '{"parentUuid": null}', '{"type": "compacted"}'):
        add("tiny", text)
    paths = []
    for n, (kind, data) in enumerate(made):
        path = folder / f"{n:03d}-{kind}.jsonl"
        path.write_bytes(data)
        paths.append(path)
    directory = folder / "a directory.jsonl"
    directory.mkdir()
    fifo = folder / "a fifo\nwith a newline.jsonl"
    os.mkfifo(fifo)
    return [*paths, directory, fifo, Path("/dev/zero")]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return corpus(tmp_path_factory.mktemp("malformed"))


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def test_the_corpus_is_large_and_varied(files):
    assert len(files) >= 500
    kinds = {p.name.split("-", 1)[-1].split(".")[0] for p in files}
    assert {"truncated", "types", "cycle", "deep", "bytes", "binary", "tiny", "encoded",
            "unholdable"} <= kinds


@pytest.mark.slow  # every file of the corpus; the command line and the magic take samples
def test_load_never_crashes(files):
    before, loaded = _peak_mb(), 0
    for path in files:
        try:
            with deadline():
                session = sessions.load(path)
        except sessions.SessionFormatError as err:
            assert "\n" not in str(err), path
            continue
        loaded += 1
        assert all("\n" not in w for w in session.warnings), path
        for segment in session.segments:
            validate(segment)
        with deadline():
            replay(session, "progressive", 2_000)
    assert loaded > len(files) // 2  # most damage is repaired, not refused
    assert _peak_mb() - before < MEMORY_MB


def test_the_command_line_answers_in_one_line(files, capsys):
    """`main()` in this process (a fresh Python per file costs a second; the entry point
    itself is run as a command in test_cli.py)."""
    for path in random.Random(SEED).sample(files, CLI_SAMPLE):
        with deadline():
            code = cli.main(["replay", str(path), "--json", "--budget", "2000"])
        out, err = capsys.readouterr()
        assert code in (0, 2), (path, err)
        if code == 2:
            assert err.startswith("error: ") and err.count("\n") == 1, path
        else:
            json.loads(out)


def test_the_magic_raises_only_usage_errors(files, monkeypatch):
    ip = fresh_shell(monkeypatch, ("_replay",), text=True)
    for path in random.Random(SEED + 1).sample(files, MAGIC_SAMPLE):
        try:
            with deadline(), capture_output():
                ip.run_line_magic("replay", f"'{path}' --budget 2000 --json")
        except UsageError as err:
            assert "\n" not in str(err), path


ENTRY = json.loads(SOURCES[0].read_text().splitlines()[1])
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                 max_size=3),
    max_leaves=8)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(key=st.sampled_from(FIELDS + MESSAGE_FIELDS), value=JSON_VALUES,
       line=st.integers(0, len(SOURCES[0].read_text().splitlines()) - 1))
def test_any_value_in_any_field(key, value, line):
    lines = SOURCES[0].read_text().splitlines()
    entry = json.loads(lines[line])
    target = entry["message"] if key in MESSAGE_FIELDS and isinstance(
        entry.get("message"), dict) else entry
    target[key] = value
    lines[line] = json.dumps(entry)
    session = sessions.loads("\n".join(lines), "fuzzed.jsonl")
    for segment in session.segments:
        validate(segment)
    assert all("\n" not in w for w in session.warnings)


def test_blocks_the_history_cannot_hold_lose_no_message(tmp_path):
    rng = random.Random(SEED)
    for source in SOURCES:
        path = tmp_path / source.name
        path.write_text(_unholdable(source.read_text().splitlines(), rng))
        whole, damaged = sessions.load(source), sessions.load(path)
        assert [len(s) for s in damaged.segments] == [len(s) for s in whole.segments], source


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_every_encoding_loads_as_utf_8_does(tmp_path, encoding):
    source = SOURCES[0]
    path = tmp_path / source.name
    path.write_bytes(source.read_text().encode(encoding))
    assert sessions.load(path).segments == sessions.load(source).segments
