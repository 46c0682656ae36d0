"""Skip markers for optional packages that look for the package without importing it.

`pytest.importorskip` at a module's top imports the package while the tests are being
collected, in every pytest process, whether or not one of its tests runs; the `anthropic`
SDK alone takes over a second. These markers only ask whether it is installed.
"""

from __future__ import annotations

from importlib.util import find_spec

import pytest


def needs(package: str, extra: str) -> pytest.MarkDecorator:
    """Skip unless `package` (from this project's `extra`) is installed."""
    return pytest.mark.skipif(find_spec(package) is None,
                              reason=f"needs {package} (pip install -e '.[{extra}]')")


NEEDS_ANTHROPIC = needs("anthropic", "claude")
