"""TokenCounter against numbers published outside this project, not against its own tiktoken.

The expected token ids are copied from tiktoken's own test suite (openai/tiktoken,
tests/test_encoding.py: `test_simple`, `test_simple_regex`, `test_basic_encode`,
`test_encode_surrogate_pairs`, all for cl100k_base) and, for o200k_base, from the
"hello world" example published with OpenAI's harmony format (openai/harmony,
`test_encode_allowed_special`, whose encoding extends o200k_base). A wrong encoding
file, a different regex or a counter that counts anything but tokens fails here.
"""

import pytest

from jupyter_compaction.tokens import TokenCounter

PUBLISHED = {
    "cl100k_base": [
        ("hello world", [15339, 1917]),
        ("rer", [38149]),
        ("'rer", [2351, 81]),
        ("today\n ", [31213, 198, 220]),
        ("today\n \n", [31213, 27907]),
        ("today\n  \n", [31213, 14211]),
        (" \x850", [220, 126, 227, 15]),
        ("👍", [9468, 239, 235]),
    ],
    "o200k_base": [
        ("hello world", [24912, 2375]),
    ],
}
CASES = [(name, text, ids) for name, pairs in PUBLISHED.items() for text, ids in pairs]


@pytest.mark.parametrize(("encoding", "text", "ids"), CASES)
def test_counts_match_the_published_token_ids(encoding, text, ids):
    counter = TokenCounter(encoding)
    assert counter.count_text(text) == len(ids)
    assert counter.encoding.encode(text) == ids  # the bundled file is the published one


def test_the_default_counter_is_the_o200k_one():
    assert TokenCounter().encoding_name == "o200k_base"
    assert TokenCounter().count_text("hello world") == 2
    assert TokenCounter().count_text("") == 0
