"""Hypothesis strategies that generate valid agent histories (and a few fixed ones)."""

from __future__ import annotations

import base64
import struct

from hypothesis import strategies as st

WORDS = st.sampled_from(
    ["read", "file", "ORD-1042", "VD-88317", "agents/router.py", "timeout", "30", "s",
     "ok", "error", "the", "config.yaml", "42", "dispatch", "table", "{", "}", "\n"]
)
TEXT = st.lists(WORDS, min_size=1, max_size=30).map(" ".join)
LONG_TEXT = st.integers(min_value=50, max_value=1500).map(lambda n: ("log line ORD-77 " * n))


def png(width: int, height: int) -> str:
    """A base64 PNG header (signature and IHDR) for an image of this size."""
    ihdr = struct.pack(">II5B", width, height, 8, 6, 0, 0, 0)
    return base64.b64encode(b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + ihdr
                            + b"\0\0\0\0").decode()


def pdf(pages: int) -> str:
    """A base64 PDF-like file with `pages` page objects."""
    body = b"%PDF-1.4\n" + b"".join(b"%d 0 obj << /Type /Page >> endobj\n" % (k + 1)
                                     for k in range(pages))
    return base64.b64encode(body).decode()


def _image(source):
    return {"type": "image", "source": source}


MEDIA = st.one_of(
    st.builds(lambda w, h: _image({"type": "base64", "media_type": "image/png", "data": png(w, h)}),
              st.integers(1, 4000), st.integers(1, 4000)),
    st.sampled_from([_image({"type": "url", "url": "https://example.com/chart.png"}),
                     {"type": "document", "source": {"type": "url",
                                                     "url": "https://example.com/spec.pdf"}}]),
    st.builds(lambda n: {"type": "document", "title": "report.pdf", "source": {
        "type": "base64", "media_type": "application/pdf", "data": pdf(n)}}, st.integers(1, 5)),
    st.builds(lambda text: {"type": "document", "source": {
        "type": "text", "media_type": "text/plain", "data": text}}, TEXT),
)


@st.composite
def result_content(draw):
    text = draw(st.one_of(TEXT, LONG_TEXT))
    if draw(st.booleans()):
        return text
    extra = draw(MEDIA) if draw(st.integers(0, 3)) == 0 else {"type": "text", "text": draw(TEXT)}
    return [{"type": "text", "text": text}, extra]


@st.composite
def histories(draw, min_turns: int = 0, max_turns: int = 12):
    """A valid history: the task, then assistant turns with 1-3 parallel tool calls each,
    results (some errors, some list-form, some long, some with images or documents), text
    between calls, and maybe a final text answer. The task may carry an image or document."""
    task = "Task: " + draw(TEXT)
    if draw(st.integers(0, 3)) == 0:
        task = [{"type": "text", "text": task}, draw(MEDIA)]
    messages = [{"role": "user", "content": task}]
    n = 0
    for _ in range(draw(st.integers(min_turns, max_turns))):
        calls = []
        content = [{"type": "text", "text": draw(TEXT)}] if draw(st.booleans()) else []
        for _ in range(draw(st.integers(1, 3))):
            n += 1
            call = {"type": "tool_use", "id": f"toolu_{n:04d}", "name": "read_file",
                    "input": {"path": f"f{n}.txt"}}
            calls.append(call)
            content.append(call)
            if draw(st.integers(0, 4)) == 0:
                content.append({"type": "text", "text": draw(TEXT)})
        messages.append({"role": "assistant", "content": content})
        results = []
        for call in calls:
            block = {"type": "tool_result", "tool_use_id": call["id"],
                     "content": draw(result_content())}
            if draw(st.integers(0, 5)) == 0:
                block["is_error"] = True
            results.append(block)
        if draw(st.integers(0, 4)) == 0:
            results.append({"type": "text", "text": draw(TEXT)})
        messages.append({"role": "user", "content": results})
    if draw(st.booleans()):
        messages.append({"role": "assistant", "content": draw(TEXT)})
    return messages


def fixed_history(turns: int = 6, size: int = 400) -> list[dict]:
    """A deterministic history of `turns` tool turns, each result `size` words long."""
    messages = [{"role": "user", "content": "Find the order ORD-1042 and its waybill."}]
    for t in range(turns):
        messages.append({"role": "assistant", "content": [
            {"type": "text", "text": f"Step {t}: reading file{t}.json"},
            {"type": "tool_use", "id": f"toolu_{t}", "name": "read_file",
             "input": {"path": f"file{t}.json"}}]})
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"toolu_{t}",
             "content": f"file{t}.json: " + " ".join(f"item{t}_{i}" for i in range(size))}]})
    return messages


@st.composite
def thinking_histories(draw, min_turns: int = 0, max_turns: int = 12):
    """`histories()` with thinking (some redacted) in front of the calls of some turns."""
    messages = draw(histories(min_turns, max_turns))
    out = [messages[0]]
    for n, message in enumerate(messages[1:]):  # `n` makes every thought unique
        if message["role"] == "assistant" and not isinstance(message["content"], str) \
                and draw(st.booleans()):
            data = f"EmwKAhgB{n}" * draw(st.integers(1, 9))
            thought = ({"type": "redacted_thinking", "data": data}
                       if draw(st.integers(0, 3)) == 0 else
                       {"type": "thinking", "thinking": f"{n}: {draw(TEXT)}", "signature": "sig"})
            message = {**message, "content": [thought, *message["content"]]}
        out.append(message)
    return out
