"""ex5b's expected history is CompactAll's wherever the strategy compacts at all."""

from __future__ import annotations

import pytest

from jupyter_compaction.grading import ex_compact
from jupyter_compaction.grading.histories import counter, reading_history
from jupyter_compaction.strategies import CompactAll


@pytest.mark.parametrize("build", [lambda: reading_history(4), lambda: reading_history(2),
                                   ex_compact.with_old_summary, ex_compact.two_block_task])
def test_the_expected_history_is_what_compact_all_returns(build):
    layer = CompactAll(summarizer=lambda prompt: ex_compact.SUMMARY)
    result = layer(build(), goal=10**9, counter=counter())
    assert result.dropped  # it compacted: the summary is smaller than what it replaced
    assert ex_compact.expected(build(), ex_compact.SUMMARY) == list(result.messages)
