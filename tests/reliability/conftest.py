"""Shared set-up for the reliability suite: a warm tokenizer.

tiktoken loads its encoding on first use (about a second); doing that inside the fake
server's first response would trip the tests' 0.3 s client timeout, so it is loaded up
front.
"""

from __future__ import annotations

import pytest

from jupyter_compaction.tokens import TokenCounter


@pytest.fixture(scope="session", autouse=True)
def _warm_tokenizer():
    TokenCounter().count_text("warm up the encoding")
