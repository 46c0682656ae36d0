"""Images and documents: valid shapes, size-based token counts, labels in summary prompts."""

import base64

import pytest

from jupyter_compaction import TokenCounter, validate
from jupyter_compaction.history import InvalidHistory, block_text
from jupyter_compaction.media import (
    MAX_IMAGE_TOKENS,
    PDF_PAGE_TOKENS,
    UNKNOWN_PDF_PAGES,
    image_size,
    image_tokens,
    media_tokens,
)
from jupyter_compaction.summaries import build_prompt
from tests.support.histories import pdf, png

COUNTER = TokenCounter()
URL_IMAGE = {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}}


def image(data, media_type="image/png"):
    return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}}


def gif(width, height):
    return base64.b64encode(b"GIF89a" + width.to_bytes(2, "little")
                            + height.to_bytes(2, "little") + b"\0" * 8).decode()


def jpeg(width, height):
    app0 = b"\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    size = height.to_bytes(2, "big") + width.to_bytes(2, "big")
    sof = b"\xff\xc0\x00\x11\x08" + size + b"\0" * 10
    return base64.b64encode(b"\xff\xd8" + app0 + sof).decode()


def with_call(*parts):
    """The task, one call, and its result holding `parts`."""
    return [{"role": "user", "content": "look"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "shot",
                                               "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                          "content": list(parts)}]}]


@pytest.mark.parametrize("encode", [png, gif, jpeg])
def test_image_size_is_read_from_the_header(encode):
    assert image_size(encode(640, 480)) == (640, 480)


def test_unreadable_headers_have_no_size():
    assert image_size("not base64!") is None
    assert image_size(base64.b64encode(b"RIFF....WEBPVP8 ").decode()) is None


@pytest.mark.parametrize(("size", "tokens"), [
    ((750, 1), 1), ((200, 200), 54), ((1000, 1000), 1334),
    ((3136, 1568), 1600),  # scaled to 1568 x 784 = 1640 tokens, capped at the maximum
    ((4000, 100), 82),  # the long edge is scaled to 1568 first: 1568 x 39.2
    ((0, 10), MAX_IMAGE_TOKENS),
])
def test_image_tokens_follow_width_times_height_over_750(size, tokens):
    assert image_tokens(*size) == tokens


def test_a_known_image_costs_its_size_and_an_unknown_one_the_maximum():
    count = COUNTER.count_text
    assert media_tokens(image(png(200, 200)), count) == 54
    assert media_tokens(URL_IMAGE, count) == MAX_IMAGE_TOKENS
    assert media_tokens(image(base64.b64encode(b"junk").decode(), "image/webp"),
                        count) == MAX_IMAGE_TOKENS


def test_documents_cost_pages_or_their_text():
    count = COUNTER.count_text
    pdf_doc = {"type": "document", "source": {"type": "base64", "media_type": "application/pdf",
                                              "data": pdf(3)}}
    assert media_tokens(pdf_doc, count) == 3 * PDF_PAGE_TOKENS
    by_url = {"type": "document", "source": {"type": "url", "url": "https://x.org/a.pdf"}}
    assert media_tokens(by_url, count) == UNKNOWN_PDF_PAGES * PDF_PAGE_TOKENS
    text_doc = {"type": "document", "source": {"type": "text", "media_type": "text/plain",
                                               "data": "ORD-1042 ships today"}}
    assert media_tokens(text_doc, count) == count("ORD-1042 ships today")


def test_a_message_counts_its_images_including_those_inside_tool_results():
    plain = [{"role": "user", "content": [{"type": "text", "text": "look"}]}]
    with_image = [{"role": "user", "content": [{"type": "text", "text": "look"},
                                               image(png(1000, 1000))]}]
    label = COUNTER.count_text("[image: image/png]")
    assert COUNTER.count(with_image) - COUNTER.count(plain) == 1334 + label + 4
    small, big = with_call(image(png(10, 10))), with_call(image(png(1000, 1000)))
    assert COUNTER.count(big) - COUNTER.count(small) == 1334 - 1


@pytest.mark.parametrize("block", [
    image(png(1, 1)), image(gif(2, 2), "image/gif"), URL_IMAGE,
    {"type": "document", "title": "r.pdf", "source": {"type": "base64",
                                                      "media_type": "application/pdf",
                                                      "data": pdf(1)}},
    {"type": "document", "source": {"type": "url", "url": "https://x.org/a.pdf"}},
    {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "hi"}},
    {"type": "document", "source": {"type": "content",
                                    "content": [{"type": "text", "text": "hi"}]}},
])
def test_valid_media_pass_validate_in_user_messages_and_tool_results(block):
    validate([{"role": "user", "content": [block]}])
    validate(with_call({"type": "text", "text": "here"}, block))


@pytest.mark.parametrize(("block", "problem"), [
    ({"type": "image", "source": {"type": "file", "file_id": "f1"}}, "base64 or url"),
    ({"type": "image", "source": {"type": "base64", "media_type": "image/png"}}, "data"),
    (image(png(1, 1), "image/tiff"), "media_type of image blocks must be one of"),
    ({"type": "document", "source": {"type": "base64", "media_type": "image/png",
                                     "data": "eA=="}}, "application/pdf"),
    ({"type": "document", "source": {"type": "content", "content": "x"}}, "list of text blocks"),
])
def test_malformed_media_are_refused_with_the_rule(block, problem):
    with pytest.raises(InvalidHistory, match=problem):
        validate([{"role": "user", "content": [block]}])
    with pytest.raises(InvalidHistory, match=problem):
        validate(with_call(block))


def test_an_assistant_message_cannot_hold_an_image():
    with pytest.raises(InvalidHistory, match="cannot hold"):
        validate([{"role": "user", "content": "a"}, {"role": "assistant", "content": [URL_IMAGE]}])


def test_summary_prompts_show_media_by_label():
    doc = {"type": "document", "title": "report.pdf",
           "source": {"type": "base64", "media_type": "application/pdf", "data": pdf(1)}}
    messages = with_call({"type": "text", "text": "screenshot:"}, image(png(5, 5)))
    messages.append({"role": "assistant", "content": "and the report"})
    messages.append({"role": "user", "content": [URL_IMAGE, doc]})
    prompt = build_prompt(messages)
    assert "screenshot:[image: image/png]" in prompt
    assert "[user] [image: https://example.com/a.png]" in prompt
    assert "[user] [document: report.pdf]" in prompt
    assert png(5, 5) not in prompt and pdf(1) not in prompt
    assert block_text(URL_IMAGE) == "[image: https://example.com/a.png]"
