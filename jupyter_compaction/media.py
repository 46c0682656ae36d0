"""Images and documents in a history: their valid shapes, their labels, their token cost.

An `image` block carries `{"source": {"type": "base64", "media_type", "data"}}` or
`{"source": {"type": "url", "url"}}`; a `document` block the same (`application/pdf`), or
a `text` source (`text/plain` data) or a `content` source (a list of text blocks). Both may
sit in a user message or inside a `tool_result`'s content, as in the Messages API.

Token cost follows Anthropic's published rules where they are known:
- an image costs `width * height / 750` tokens after the API's downscaling (long edge at
  most `MAX_IMAGE_EDGE` px, at most `MAX_IMAGE_TOKENS`); the size is read from the header
  of a base64 PNG, GIF or JPEG. An image of unknown size (a URL, WebP, an unreadable
  header) counts as the maximum, `MAX_IMAGE_TOKENS`, so a count never comes out low;
- a PDF costs `PDF_PAGE_TOKENS` per page (the top of the API's 1,500-3,000 text tokens a
  page, which also covers the page image), its pages counted from the `/Type /Page`
  objects of a base64 PDF; one whose pages cannot be counted (by URL, or with its
  objects compressed) counts as `UNKNOWN_PDF_PAGES` pages;
- a text or content document costs what its text costs.
In a summary prompt a block is shown by its label, e.g. `[image: image/png]` or
`[document: report.pdf]`: the summarizer reads no pixels.

Left out: reading image pixels or PDF text, WebP headers, and the Files API (`file` sources).
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections.abc import Callable
from typing import Any

MEDIA_KINDS = ("image", "document")
IMAGE_MEDIA_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
PIXELS_PER_TOKEN = 750
MAX_IMAGE_EDGE = 1568  # the API scales a longer edge down to this
MAX_IMAGE_TOKENS = 1600  # ... and an image to at most about this many tokens
HEADER_BYTES = 65_536  # how much of an image is decoded to find its size
PDF_PAGE_TOKENS = 3000
UNKNOWN_PDF_PAGES = 10
_PDF_PAGE = re.compile(rb"/Type\s*/Page(?![a-zA-Z])")
_JPEG_SOF = set(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}  # start-of-frame markers hold the size

# source type -> (required string fields, allowed media types or None) per block kind
SOURCES: dict[str, dict[str, tuple[tuple[str, ...], tuple[str, ...] | None]]] = {
    "image": {"base64": (("media_type", "data"), IMAGE_MEDIA_TYPES), "url": (("url",), None)},
    "document": {"base64": (("media_type", "data"), ("application/pdf",)),
                 "text": (("media_type", "data"), ("text/plain",)),
                 "url": (("url",), None), "content": ((), None)},
}


def media_problem(block: dict[str, Any]) -> str | None:
    """Why an image or document block is malformed, or None when it is valid."""
    kind, source = block["type"], block.get("source")
    rules = SOURCES[kind]
    expected = f"{kind} blocks need a 'source' of type {' or '.join(rules)}"
    if not isinstance(source, dict) or source.get("type") not in rules:
        return expected
    fields, media_types = rules[source["type"]]
    if not all(isinstance(source.get(f), str) and source[f] for f in fields):
        return f"{expected}; a {source['type']} source needs {', '.join(fields)}"
    if media_types and source["media_type"] not in media_types:
        return f"the media_type of {kind} blocks must be one of {', '.join(media_types)}"
    if source["type"] == "content" and not _content_parts_ok(source.get("content")):
        return "a content source needs 'content': a list of text blocks"
    return None


def _content_parts_ok(content: Any) -> bool:
    return isinstance(content, list) and bool(content) and all(
        isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)
        for p in content)


def media_label(block: dict[str, Any]) -> str:
    """How a summary prompt shows the block: `[image: <url or media type>]`."""
    source = block.get("source", {})
    what = block.get("title") or source.get("url") or source.get("media_type") or source["type"]
    return f"[{block['type']}: {what}]"


def _decoded(data: str, limit: int | None = None) -> bytes:
    text = data if limit is None else data[: (limit * 4 // 3) // 4 * 4]
    try:
        return base64.b64decode(text)
    except (binascii.Error, ValueError):
        return b""


def image_size(data: str) -> tuple[int, int] | None:
    """`(width, height)` from a base64 PNG, GIF or JPEG header, or None."""
    head = _decoded(data, HEADER_BYTES)
    if head[:8] == b"\x89PNG\r\n\x1a\n" and len(head) >= 24:
        return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
    if head[:6] in (b"GIF87a", b"GIF89a") and len(head) >= 10:
        return int.from_bytes(head[6:8], "little"), int.from_bytes(head[8:10], "little")
    if head[:2] == b"\xff\xd8":
        i = 2
        while i + 9 <= len(head) and head[i] == 0xFF:
            marker = head[i + 1]
            if marker in _JPEG_SOF:
                return (int.from_bytes(head[i + 7:i + 9], "big"),
                        int.from_bytes(head[i + 5:i + 7], "big"))
            i += 1 if marker == 0xFF else 2 + int.from_bytes(head[i + 2:i + 4], "big")
    return None


def image_tokens(width: int, height: int) -> int:
    """Anthropic's estimate for an image of this size, after the API's downscaling."""
    if width <= 0 or height <= 0:
        return MAX_IMAGE_TOKENS
    scale = min(1.0, MAX_IMAGE_EDGE / max(width, height))
    tokens = math.ceil(width * scale * height * scale / PIXELS_PER_TOKEN)
    return max(1, min(tokens, MAX_IMAGE_TOKENS))


def _document_tokens(source: dict[str, Any], count_text: Callable[[str], int]) -> int:
    if source["type"] == "text":
        return count_text(source["data"])
    if source["type"] == "content":
        return sum(count_text(p["text"]) for p in source["content"])
    pages = len(_PDF_PAGE.findall(_decoded(source["data"]))) if source["type"] == "base64" else 0
    return PDF_PAGE_TOKENS * (pages or UNKNOWN_PDF_PAGES)


def media_tokens(block: dict[str, Any], count_text: Callable[[str], int]) -> int:
    """What the images and documents in `block` (itself, or a tool result's parts) cost."""
    if block.get("type") == "tool_result" and isinstance(block.get("content"), list):
        return sum(media_tokens(part, count_text) for part in block["content"])
    if block.get("type") == "document":
        return _document_tokens(block["source"], count_text)
    if block.get("type") != "image":
        return 0
    source = block["source"]
    size = image_size(source["data"]) if source["type"] == "base64" else None
    return image_tokens(*size) if size else MAX_IMAGE_TOKENS
