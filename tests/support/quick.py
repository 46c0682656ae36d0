"""The quick subset (`python -m pytest -m "not slow"`) runs a parametrized test on its
first few parameters only: `quick_first(values, keep)` marks the rest `slow`, so the whole
suite still runs every one.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest


def quick_first(values: Iterable[Any], keep: int = 1) -> list[Any]:
    """`values` for `parametrize`, the ones after the first `keep` marked `slow`."""
    return [value if index < keep else pytest.param(value, marks=pytest.mark.slow)
            for index, value in enumerate(values)]
