"""Secret redaction: every known key format goes, everything else stays."""

import json

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from jupyter_compaction import secret_rules
from jupyter_compaction.redact import CONTINUED, PATTERNS, TRIGGERS, is_code, redact, strip_control
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
    # near-misses of the newer kinds
    "commit 9fceb02d0ae598e95dc970b74767f19372d61af8",  # a git SHA
    "request 550e8400-e29b-41d4-a716-446655440000",  # a UUID
    "eyJhbGciOiJIUzI1NiJ9 alone",  # a JWT header without payload and signature
    "xoxb-short", "the xoxbox-1234567890 model",  # too short, not a Slack prefix
    "AIzaShort", "sk_live_", "desk_live_4eC39HqLyjWDarjtT1zdp7dc",  # too short / inside a word
    "https://example.com/docs?page=2", "https://user@example.com/x",  # no password
    "https://example.com/a:b@c", "git@github.com:org/repo.git",
    "password reset link sent", "the secret sauce", "token_count = 5", "max_tokens=1024",
    '"input_tokens": 1234', "password_reset_url=https://example.com/reset",
    "secretKeyRef:", "Never commit secrets, tokens or credentials.",
    "api_key: anthropic_api_key()", "params: { _csrf_token: csrfToken }",  # code, not data
    "PWD=/home/user/project", "fetch(url, {credentials: 'include'})",
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


# -- the newer kinds: real-format samples, each kept label and the text around it -----------

JWT = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiw"
       "iaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c")
SAMPLES = [  # (text, what redact() makes of it)
    (f"token {JWT} expired", "token [REDACTED JWT] expired"),
    ("unsigned eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiJ9. end", "unsigned [REDACTED JWT] end"),
    (f"Authorization: Bearer {JWT}", "Authorization: Bearer [REDACTED JWT]"),
    ("bot xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx ok",
     "bot [REDACTED Slack token] ok"),
    ("xoxp-1234567890-1234567890-1234567890-abcdef1234567890abcdef1234567890",
     "[REDACTED Slack token]"),
    ("SLACK_APP=xapp-1-A0123BCDEF-1234567890123-abcdef0123456789abcdef",
     "SLACK_APP=[REDACTED Slack token]"),
    ("postgres://admin:hunter2@db.example.com:5432/prod",
     "postgres://admin:[REDACTED URL password]@db.example.com:5432/prod"),
    ("redis://:s3cr3t@cache:6379/0", "redis://:[REDACTED URL password]@cache:6379/0"),
    ("clone https://bob:p%40ss@git.example.com/repo.git",
     "clone https://bob:[REDACTED URL password]@git.example.com/repo.git"),
    ("maps key=AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY;", "maps key=[REDACTED Google API key];"),
    ("stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc", "stripe [REDACTED Stripe key]"),
    ("rk_test_51H8abcDEFghiJKLmnop pk_live_51H8abcDEFghiJKLmnop",
     "[REDACTED Stripe key] [REDACTED Stripe key]"),
    ("DB_PASSWORD=correcthorse", "DB_PASSWORD=[REDACTED secret]"),
    ("export API_TOKEN='a1b2c3d4'", "export API_TOKEN='[REDACTED secret]'"),
    ('password = "correct horse battery"', 'password = "[REDACTED secret]"'),
    ("db:\n  password: hunter2\n  user: app", "db:\n  password: [REDACTED secret]\n  user: app"),
    ('{"client_secret": "s3cr3t-v@lue", "id": 7}',
     '{"client_secret": "[REDACTED secret]", "id": 7}'),
    ("GET /v1/items?access_token=abc123&page=2",
     "GET /v1/items?access_token=[REDACTED secret]&page=2"),
    ("api-key: 0123456789abcdef", "api-key: [REDACTED secret]"),
    ("token=aBcDeF12", "token=[REDACTED secret]"),
    ("PASSWORD=changeme", "PASSWORD=[REDACTED secret]"),
    ("GITHUB_TOKEN=ghp_" + "a" * 36, "GITHUB_TOKEN=[REDACTED GitHub token]"),
]


@pytest.mark.parametrize(("text", "expected"), SAMPLES)
def test_real_format_samples_are_redacted_and_their_labels_kept(text, expected):
    assert redact(text) == expected
    assert redact(expected) == expected  # idempotent


def test_every_pattern_has_a_sample():
    kinds = {kind for kind, _ in PATTERNS}
    shown = {k for _, out in SAMPLES for k in kinds if f"[REDACTED {k}]" in out}
    assert kinds - shown <= {"private key", "Anthropic key", "OpenAI key", "AWS key id",
                             "AWS secret", "bearer token",  # sampled by the tests above
                             "authorization", "Google OAuth token", "netrc password",
                             "Docker auth", "Azure key", "SAS signature",
                             "Terraform password"}  # ... and in test_redact_kinds.py


def test_a_yaml_key_with_its_value_on_the_next_line_keeps_the_next_key():
    assert redact("password:\n  user: app") == "password:\n  user: app"


# -- terminal control sequences -------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("a\x1b[31mred\x1b[0m b", "ared b"),  # ANSI colour (CSI)
    ("\x1b[2J\x1b[1;1Hhome", "home"),  # clear screen, cursor move
    ("see \x1b]8;;https://evil.example\x1b\\here\x1b]8;;\x1b\\ now", "see here now"),  # OSC 8
    ("\x1b]0;title\x07x", "x"),  # window title, ended by the bell
    ("ding\x07 back\x08 cr\r c1\x9b2J\x85", "ding back cr c1"),
    ("tab\tnew\nline", "tab\tnew\nline"),  # kept
    ("ünïcødé → ok", "ünïcødé → ok"),
])
def test_strip_control_removes_whole_sequences(text, expected):
    assert strip_control(text) == expected


@settings(max_examples=100, deadline=None)
@given(text=st.text())
def test_strip_control_leaves_no_control_character(text):
    out = strip_control(text)
    assert not any(ord(c) < 32 and c not in "\t\n" or 0x7f <= ord(c) <= 0x9f for c in out)
    assert strip_control(out) == out


# -- the literal prefilter ------------------------------------------------------------------

def _unfiltered(text: str) -> str:
    """What `redact()` makes of `text` without its prefilters: every rule run on it all
    (an assigned value that is code, `PASSWORD==`, stays), then a redacted secret's wrapped
    rest on the next line."""
    def replaced(m, kind):
        label = m.group(1) if m.re.groups else ""
        code = kind == "secret" and is_code(label, m.group()[len(label):],
                                            m.string[m.end():m.end() + 1])
        return m.group() if code else label + f"[REDACTED {kind}]"

    for kind, pattern in PATTERNS:
        text = pattern.sub(lambda m, kind=kind: replaced(m, kind), text)
    found: dict[int, tuple[int, str]] = {}
    for rule in secret_rules.rules():
        for match in rule.pattern.finditer(text):
            start, end = match.span(rule.group)
            if (start >= 0 and secret_rules.entropy(text[start:end]) >= rule.entropy
                    and "REDACTED" not in text[start:end]):
                found.setdefault(start, (end, rule.kind))
    done, out = 0, ""
    for start in sorted(found):
        if start >= done:
            out += text[done:start] + f"[REDACTED {found[start][1]}]"
            done = found[start][0]
    return CONTINUED.sub(lambda m: m.group(1) + "[REDACTED secret]", out + text[done:])


def test_every_pattern_has_its_trigger_literals():
    assert set(TRIGGERS) == {kind for kind, _ in PATTERNS}


@pytest.mark.parametrize("text", [t for t, _ in SAMPLES])
def test_the_prefilter_skips_no_match_in_any_case(text):
    for variant in (text, text.upper(), text.lower(), text.swapcase(),
                    text.replace("s", "\u017f")):  # the long s, which "(?i)" reads as "s"
        assert redact(variant) == _unfiltered(variant)


@given(st.lists(st.sampled_from([t for t, _ in SAMPLES] + [
    " ", "\n", "=", ":", '"', "Bearer ", "-----BEGIN RSA PRIVATE KEY-----", "https://u:",
    "@db", "PASSWORD", "\u017fecret", "Token", "KEY", "sk-", "eyJ", "xoxb-", "AKIA"]),
    max_size=8).map("".join))
@example("PASSWORD==")  # found by hypothesis: a comparison, code rather than a secret
@example("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.SflKxwRJSMeKKF2QT4fw\n"
         "PASSWORDtoken=aBcDeF12")  # found by hypothesis: a long key line after a redaction
def test_the_prefilter_changes_nothing_redact_would_do(text):
    assert redact(text) == _unfiltered(text)


# -- values, not encodings: a secret in JSON (escaped, or encoded twice) is found ----------

ESCAPED = {"command": 'export DB_PASSWORD="Qx7-esc\\"aped-pw" && ./manage.py migrate'}
TWICE = {"metadata": {"annotations": {"kubectl.kubernetes.io/last-applied-configuration":
                                      json.dumps({"kind": "Secret", "stringData": {
                                          "db-password": "Kube-Pw-4471"}})}}}
STS = {"Credentials": {"AccessKeyId": "ASIAQWERTYUIOPASDFGH",
                       "SecretAccessKey": "q8Xr/7Fv+2LmNo/9pQ3sTu4vWx5yZa6bCd7eFg8h",
                       "SessionToken": "IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJH"}}
HIDDEN = ["Qx7-esc", "aped-pw", "Kube-Pw-4471", "QWERTYUIOPASDFGH", "q8Xr/7Fv", "IQoJb3Jp"]


@pytest.mark.parametrize("encode", [
    lambda v: v, json.dumps, lambda v: json.dumps(v, indent=2),
    lambda v: "ran " + json.dumps(json.dumps(v)) + " ok",  # JSON text inside a JSON string
], ids=["data", "json", "indented", "encoded twice"])
@pytest.mark.parametrize("value", [ESCAPED, TWICE, STS], ids=["escaped", "twice", "sts"])
def test_secrets_in_json_are_redacted_however_encoded(encode, value):
    given = encode(value)
    before = json.dumps(given)
    out = json.dumps(redact(given))
    assert not [h for h in HIDDEN if h in out] and "[REDACTED" in out
    assert json.dumps(given) == before  # the value given is not changed


def test_json_in_text_changes_only_the_redacted_strings():
    text = 'call {"cmd":  "DB_PASSWORD=\\"Pg-Pw-0193\\" psql",\n  "cwd": "/srv\\\\app"} end'
    assert redact(text) == ('call {"cmd":  "DB_PASSWORD=\\"[REDACTED secret]\\" psql",\n'
                            '  "cwd": "/srv\\\\app"} end')


def test_an_unencoded_at_sign_in_a_url_password_is_redacted_whole():
    out = redact("mysql://root:Pw@rd-77@db.local:3306/app and ping me@example.org")
    assert out == "mysql://root:[REDACTED URL password]@db.local:3306/app and ping me@example.org"


def test_a_tool_input_in_a_summary_prompt_is_redacted_as_data():
    messages = [{"role": "user", "content": "migrate"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t1",
                                                   "name": "bash", "input": ESCAPED}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                              "content": json.dumps(STS)}]}]
    prompt = build_prompt(messages)
    assert not [h for h in HIDDEN if h in prompt]
    assert messages[1]["content"][0]["input"] == ESCAPED  # the history itself is kept
