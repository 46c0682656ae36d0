"""Secret redaction: every known key format goes, everything else stays."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jupyter_compaction.redact import redact
from jupyter_compaction.summaries import build_prompt
from tests.support.histories import TEXT

ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
PEM = ("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7\n"
       "-----END RSA PRIVATE KEY-----")


def token(prefix, size, alphabet=ALNUM + "_-"):
    return st.text(alphabet, min_size=size, max_size=size + 20).map(lambda s: prefix + s)


SECRETS = {
    "Anthropic key": token("sk-ant-api03-", 20),
    "OpenAI key": st.one_of(token("sk-", 40, ALNUM), token("sk-proj-", 40)),
    "GitHub token": st.one_of(token("ghp_", 36, ALNUM), token("gho_", 36, ALNUM),
                              token("github_pat_", 60, ALNUM + "_")),
    "AWS key id": st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", min_size=16, max_size=16)
                    .map(lambda s: "AKIA" + s),
}


@pytest.mark.parametrize("kind", SECRETS)
@settings(max_examples=50, deadline=None)
@given(data=st.data(), before=TEXT, after=TEXT)
def test_every_known_key_format_is_redacted_and_the_text_around_it_kept(kind, data, before,
                                                                       after):
    secret = data.draw(SECRETS[kind])
    out = redact(f"{before} {secret} {after}")
    assert secret not in out
    assert out == f"{before} [REDACTED {kind}] {after}"
    assert redact(out) == out  # idempotent


@settings(max_examples=100, deadline=None)
@given(text=TEXT)
def test_ordinary_text_is_unchanged(text):
    assert redact(text) == text


@pytest.mark.parametrize("text", [
    "task-abcdefghijklmnopqrstuvwxyz0123", "ORD-1042 VD-88317", "the disk-0123456789abcdefghijkl",
    "AKIA123", "sha256 446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    "Bearer short", "agents/router.py:42",
])
def test_near_misses_are_kept(text):
    assert redact(text) == text


def test_headers_keep_their_name():
    assert (redact("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig")
            == "Authorization: Bearer [REDACTED bearer token]")
    assert (redact('aws_secret_access_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"')
            == 'aws_secret_access_key = "[REDACTED AWS secret]"')


def test_a_private_key_block_goes_whole_even_when_truncated():
    assert redact(f"key:\n{PEM}\nafter") == "key:\n[REDACTED private key]\nafter"
    assert redact(f"key:\n{PEM[:80]}") == "key:\n[REDACTED private key]"


def test_build_prompt_is_redacted():
    secret = "sk-ant-api03-" + "x" * 40
    prompt = build_prompt([{"role": "assistant", "content": f"using {secret}"}],
                          previous=f"old {secret}", goal=f"task {secret}")
    assert secret not in prompt and prompt.count("[REDACTED Anthropic key]") == 3
