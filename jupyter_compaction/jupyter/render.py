"""Shared rendering helpers: every text the Jupyter layer shows goes through here.

Tool outputs, summaries, file contents, answers and tool inputs come from files and
models, so they are untrusted. In HTML every one of them is passed through `html.escape`
(no tag, attribute or `javascript:` link from the data survives as markup); in plain
text, terminal escape sequences and control characters are removed
(`redact.strip_control`; every `Rich` text form gets it). Long texts are cut with a
visible "… N more characters". The Anthropic API key, if it appears in any text, is
replaced by "[redacted]", other credentials by "[REDACTED <kind>]" (`redact.py`), and
renderers only ever read messages and events, never model objects.

`Rich` carries one view in two forms (HTML for a rich frontend, plain text otherwise);
`show()` prints the text or displays both.

Left out: Markdown rendering (texts are shown verbatim in `<pre>` blocks).
"""

from __future__ import annotations

import html
import os
from collections.abc import Iterable, Sequence

from ..redact import redact as redact_secrets
from ..redact import strip_control

MAX_CHARS = 2_000
ELLIPSIS = "…"
REDACTED = "[redacted]"
KEY_ENV = "ANTHROPIC_API_KEY"
MIN_SECRET_CHARS = 8  # shorter values are not treated as keys (they would redact too much)
# JupyterLab lets output text break anywhere (`overflow-wrap: anywhere`, and `word-break:
# break-all` in a <pre>), which lets a table squeeze a column until its words break mid-word
# ("peak cont ext"). Cells undo it: labels and numbers stay on one line, long texts wrap
# between words and break only a word wider than the column.
PRE_STYLE = ("white-space:pre-wrap;word-break:normal;overflow-wrap:break-word;margin:0;"
             "font-size:12px")
TABLE_STYLE = "border-collapse:collapse;font-size:12px"
CELL_STYLE = ("border:1px solid #ddd;padding:2px 6px;text-align:left;vertical-align:top;"
              "word-break:normal;overflow-wrap:normal")
LABEL_STYLE = CELL_STYLE + ";white-space:nowrap"


def redact(text: str) -> str:
    """`text` without the API key (when one is set in the environment) and without the
    credentials `redact.PATTERNS` knows."""
    secret = os.environ.get(KEY_ENV, "")
    if len(secret) >= MIN_SECRET_CHARS and secret in text:
        text = text.replace(secret, REDACTED)
    return redact_secrets(text)


def truncate(text: str, limit: int | None = MAX_CHARS) -> str:
    """The first `limit` characters of `text` and a visible count of the rest."""
    if limit is None or len(text) <= limit:
        return text
    return f"{text[:limit]}{ELLIPSIS} {len(text) - limit} more characters"


def plain(text: object, limit: int | None = MAX_CHARS) -> str:
    """Safe plain text: a string, key redacted, control characters removed, truncated."""
    return truncate(strip_control(redact(str(text))), limit)


def esc(text: object, limit: int | None = MAX_CHARS) -> str:
    """Safe HTML text: `plain()`, then escaped (quotes included)."""
    return html.escape(plain(text, limit), quote=True)


def pre(text: object, limit: int | None = MAX_CHARS) -> str:
    """An escaped `<pre>` block."""
    return f'<pre style="{PRE_STYLE}">{esc(text, limit)}</pre>'


def text_table(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """Rows as aligned plain-text columns (cells are made safe, one line each)."""
    cells = [[plain(c, None).replace("\n", " ") for c in row] for row in rows]
    widths = [max([len(h), *(len(r[i]) for r in cells)]) for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
              for r in cells]
    return "\n".join(lines)


def html_table(headers: Sequence[str], rows: Iterable[Sequence[object]],
               *, pre_cells: bool = False, limit: int | None = MAX_CHARS) -> str:
    """Rows as an HTML table; every header and cell is escaped. Headers and plain cells
    stay on one line; `pre_cells` cells are texts that wrap between words."""
    def cell(value: object, tag: str) -> str:
        if pre_cells and tag == "td":
            return f'<td style="{CELL_STYLE}">{pre(value, limit)}</td>'
        return f'<{tag} style="{LABEL_STYLE}">{esc(value, limit)}</{tag}>'

    head = "".join(cell(h, "th") for h in headers)
    body = "".join("<tr>" + "".join(cell(c, "td") for c in row) + "</tr>" for row in rows)
    return (f'<table style="{TABLE_STYLE}"><thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table>")


def heading(text: str) -> str:
    return f"<b>{esc(text)}</b>"


class Rich:
    """One view as HTML (rich frontends) and plain text (everywhere else)."""

    def __init__(self, text: str, html_text: str):
        self.text, self.html = plain(text, None), html_text  # safe even where a view forgot

    def _repr_html_(self) -> str:
        return self.html

    def __repr__(self) -> str:
        return self.text


def show(view: Rich, *, rich: bool) -> None:
    """Display `view` with both forms in a rich frontend, else print its text."""
    if rich:
        from IPython.display import display

        display(view)
    else:
        print(view.text)
