"""How long does `redact()` take on 2 MB of real session text?

The text is the shipped sessions' messages rendered as the summary prompt renders them
(`history.message_text`: tool inputs as JSON), repeated to 2,000,000 characters, so it
holds what redaction meets in a real replay: code, JSON, escaped strings, paths and
hashes. The time is the best of three calls after one warm-up call (which also reads the
vendored rule file). Run it against another checkout to compare:
`PYTHONPATH=<checkout> python benchmarks/bench_redact.py`.
"""

from __future__ import annotations

import time

from jupyter_compaction import sessions
from jupyter_compaction.history import message_text
from jupyter_compaction.redact import redact

SIZE = 2_000_000  # characters
RUNS = 3


def sample() -> str:
    """`SIZE` characters of the shipped sessions' rendered messages."""
    text = "\n".join(message_text(m) for path in sessions.shipped()
                     for segment in sessions.load(path).segments for m in segment)
    return (text * (SIZE // len(text) + 1))[:SIZE]


def main() -> None:
    text = sample()
    redact(text[:1000])  # warm up: rule files read, patterns compiled
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        redact(text)
        times.append(time.perf_counter() - start)
    print(f"redact() on {len(text):,} characters: best of {RUNS} {min(times) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
