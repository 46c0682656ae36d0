# ruff: noqa: E501 (the samples are one line each, as the tools print them)
"""Every kind of secret the hostile-input suite found leaking is caught, in the formats real
tools print it, as plain text and inside a JSON-encoded tool input; and the ordinary code
it found mangled (names, attributes, calls, annotations, environment-variable references,
comparisons) is left exactly as it was. The samples are our own, not the suite's."""

import json

import pytest

from jupyter_compaction.redact import PATTERNS, redact

KINDS = {  # name: (text, a part that must not survive)
 "gitlab": ("GITLAB_TOKEN=glpat-Zx8Kq2Lm4Np6Rt8Vw0Yb", "Zx8Kq2Lm4Np6Rt8Vw0Yb"),
 "pypi": ("password = pypi-AgEIcHlwaS5vcmcCJDk3ZjQ2YzM1LWE5ODgtNGQ3Yy1hN2JhLTk1NjE0ZTUzYzg2ZQACKlszLCJhYmMiXQAABiBq", "CJDk3ZjQ2YzM1LWE5ODgt"),
 "npm": ("//registry.npmjs.org/:_authToken=npm_Qw7Er9Ty2Ui4Op6As8Df0Gh1Jk3Lz5Xc7Vb9", "Qw7Er9Ty2Ui4Op6As8Df0Gh1Jk3Lz5Xc7Vb9"),
 "npm-legacy": ("//registry.npmjs.org/:_authToken=5f3c2a1e-9b8d-4c7a-8e6f-1d2c3b4a5e6f", "5f3c2a1e-9b8d"),
 "pgpass": ("PGPASSWORD=Pg7dRw2xQ psql -h db", "Pg7dRw2xQ"),
 "mysql-pwd": ("MYSQL_PWD=Mq8-pw-x7 mysql -u root", "Mq8-pw-x7"),
 "mysql": ("MYSQL_ROOT_PASS=My5qlR00t!x", "My5qlR00t"),
 "hf": ("HF_TOKEN=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", "QwErTyUiOpAsDfGhJkLz"),
 "ya29": ('gcloud auth print-access-token\nya29.a0AfB_byC7xQ2mN8pL4kR6tV0wY3zA5bD7eF9gH1jK', "a0AfB_byC7xQ2mN8pL4kR6"),
 "vault": ("VAULT_TOKEN=hvs.CAESIJx8Qm2Nv4Bz6Lk8Jh0Gf2Ds4Aq6Wp8Eo0Iu2Yt4RrGh4KHGh2cy5VbjN3T0dZc1pXc1pXc1pXc1pX", "CAESIJx8Qm2Nv4Bz6Lk8"),
 "basic": ("Authorization: Basic ZGVwbG95OlMzY3JldC1QYXNz", "ZGVwbG95OlMzY3JldC1QYXNz"),
 "token-hdr": ("Authorization: token 7c2e9a4b1d6f8e3a5c0b2d4f6a8c1e3b5d7f9a0c", "7c2e9a4b1d6f8e3a5c0b"),
 "netrc": ("machine api.example.com\n  login deploy\n  password N3trc-Pa55w0rd", "N3trc-Pa55w0rd"),
 "netrc1": ("machine github.com login bob password N3trcOneL1ne", "N3trcOneL1ne"),
 "docker": ('{"auths": {"registry.example.com": {"auth": "ZGVwbG95OmQwY2tlci1wYXNz"}}}', "ZGVwbG95OmQwY2tlci1wYXNz"),
 "azure-key": ("DefaultEndpointsProtocol=https;AccountName=store1;AccountKey=Qm9yZXN0R3JlZW5LZXkxMjM0NTY3ODkwYWJjZGVmZ2hpams=;EndpointSuffix=core.windows.net", "Qm9yZXN0R3JlZW5LZXkx"),
 "azure-sas": ("https://store1.blob.core.windows.net/c/f.txt?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-01-01&sig=Xy7Zq%2B9Lm4Np6Rt8Vw0Yb2Cd4Ef6Gh8Jk%3D", "Xy7Zq%2B9Lm4Np6"),
 "pgp": ("-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBGX1abcBCADf7Qm2Nv4Bz6Lk8Jh0Gf2\n=Ab12\n-----END PGP PRIVATE KEY BLOCK-----", "lQOYBGX1abcBCADf7Qm2"),
 "twilio": ("TWILIO_API_KEY=SK3f9a2c7e1b5d8f0a4c6e2b9d7f1a3c5e", "3f9a2c7e1b5d8f0a4c6e"),
 "twilio-auth": ("TWILIO_AUTH_TOKEN=9f8e7d6c5b4a39281706f5e4d3c2b1a0", "9f8e7d6c5b4a3928"),
 "sendgrid": ("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", "Qm2Nv4Bz6Lk8Jh0Gf2Ds4A"),
 "mailgun": ("MAILGUN_API_KEY=key-3f9a2c7e1b5d8f0a4c6e2b9d7f1a3c5e", "3f9a2c7e1b5d8f0a4c6e"),
 "discord": ("DISCORD_BOT_TOKEN=MTA4NzY1NDMyMTA5ODc2NTQzMg.GxYz12.Qm2Nv4Bz6Lk8Jh0Gf2Ds4Aq6Wp8Eo0Iu2Yt4R", "Qm2Nv4Bz6Lk8Jh0Gf2Ds4Aq6"),
 "telegram": ("bot token: 6123456789:AAHq2Nv4Bz6Lk8Jh0Gf2Ds4Aq6Wp8Eo0Iu2Y for telegram", "AAHq2Nv4Bz6Lk8Jh0Gf2Ds4"),
 "slack-hook": ("curl -X POST https://hooks.slack.com/services/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", "Qm2Nv4Bz6Lk8Jh0Gf2Ds4Aq6"),
 "atlassian": ("JIRA_API_TOKEN=ATATT3xFfGF0Qm2Nv4Bz6Lk8Jh0Gf2Ds4Aq6Wp8Eo0Iu2Yt4Rr6Ee8Ww0Qq2Aa4Ss6Dd8Ff0Gg2Hh4Jj6Kk8Ll0Zz2Xx4Cc6Vv8Bb0Nn2Mm4Qm2Nv4Bz6Lk8Jh0Gf2Ds4Aq6Wp8Eo0Iu2Yt4Rr6Ee8Ww0Qq2Aa4Ss6Dd8Ff0Gg2Hh4Jj6Kk8Ll0Zz2Xx4Cc6Vv8Bb0Nn2Mm4Qm2Nv4Bz6Lk8Jh0=A1B2C3D4", "Qm2Nv4Bz6Lk8Jh0Gf2Ds4Aq6Wp8"),
 "tf-random": ('{"type": "random_password", "name": "db", "instances": [{"attributes": {"id": "none", "length": 24, "result": "Tf-R4nd0m-Pw-xQ9z", "special": true}}]}', "Tf-R4nd0m-Pw-xQ9z"),
 "k8s-secret": ("apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n  DB_PASS: UzNjcjN0LUs4cy1QYXNz\n  username: YWRtaW4=", "UzNjcjN0LUs4cy1QYXNz"),
 "split": ('OPENAI_API_KEY="sk-proj-Qm2Nv4Bz6Lk8Jh0Gf2Ds4Aq6\\\nWp8Eo0Iu2Yt4Rr6Ee8Ww0"', "Wp8Eo0Iu2Yt4Rr6Ee8Ww0"),
 "yaml-block": ("db:\n  password: |\n    Y4ml-Bl0ck-S3cret\n  user: app", "Y4ml-Bl0ck-S3cret"),
 "url-at": ("postgres://app:P@ss-w0rd@db:5432/x", "ss-w0rd"),
 "sts": (json.dumps({"Credentials": {"SecretAccessKey": "q8Xr/7Fv+2LmNo/9pQ3sTu4vWx5yZa6bCd7eFg8h", "SessionToken": "IQoJb3JpZ2luX2VjEJr//////////wEaCXVz"}}), "q8Xr/7Fv"),
}

NEAR_MISSES = [
 "def login(username: str, password: str, token: Optional[str] = None):",
 'SECRET_KEY = os.environ["DJANGO_SECRET_KEY"]',
 "client = OpenAI(api_key=api_key, timeout=30)",
 "if password == confirm_password:",
 "self.token = token",
 "      token: ${{ secrets.NPM_TOKEN }}",
 "export DB_PASSWORD=$VAULT_DB_PASSWORD",
 "password = getpass.getpass()",
 "api_key = settings.OPENAI_API_KEY",
 'headers = {"Authorization": f"Bearer {token}"}',
 "token_count = len(tokens)",
 "max_tokens: int = 4096",
 "password: SecretStr",
 "secret = secrets.token_hex(16)",
 "if not token:",
 'conn = psycopg.connect(password=os.getenv("PGPASSWORD"))',
 "key = cache_key(user_id)",
 "url = f\"postgres://{user}:{password}@{host}/db\"",
 "  password: \"{{ .Values.db.password }}\"",
 "return {'token': token, 'expires': ttl}",
 "password=password,",
 "auth: oauth2",
    "password_reset_url = build_url(user)",
    "PASSWORD_MIN_LENGTH = 12",
    "for token in tokenize(text):",
    "cd $PWD && PWD=/srv/app make",
]


@pytest.mark.parametrize("encode", [str, lambda t: json.dumps({"command": t})],
                         ids=["text", "tool input"])
@pytest.mark.parametrize(("text", "hidden"), KINDS.values(), ids=list(KINDS))
def test_every_kind_is_caught(text, hidden, encode):
    out = redact(encode(text))
    assert hidden not in out and "[REDACTED" in out


def test_every_own_rule_names_a_kind_sampled_here_or_in_test_redact():
    labels = {kind for kind, _ in PATTERNS}
    shown = {k for k in labels for text, _ in KINDS.values() if f"[REDACTED {k}]" in redact(text)}
    assert {"authorization", "Google OAuth token", "netrc password", "Docker auth",
            "Azure key", "SAS signature", "Terraform password"} <= shown


@pytest.mark.parametrize("code", NEAR_MISSES)
def test_code_is_not_a_secret(code):
    assert redact(code) == code
    assert redact(json.dumps({"command": code})) == json.dumps({"command": code})


def _texts() -> list[tuple[str, str]]:
    """(where, text) for every text file of the scenario workspaces (the vendored
    Python-Markdown sources among them) and every message of the shipped sessions, as text
    and as its JSON encoding."""
    from jupyter_compaction import sessions
    from jupyter_compaction.history import message_text
    from jupyter_compaction.scenarios.base import WORKSPACES_DIR

    found = [(str(p), p.read_text(encoding="utf-8")) for p in sorted(WORKSPACES_DIR.rglob("*"))
             if p.is_file() and p.suffix not in {".png", ".gz", ".pyc"}]
    for path in sessions.shipped():
        for segment in sessions.load(path).segments:
            found += [(path.name, message_text(m)) for m in segment]
            found.append((path.name + " (JSON)", json.dumps(segment)))
    return found


def test_redaction_changes_nothing_in_real_code_and_sessions():
    texts = _texts()
    assert any("markdown" in where for where, _ in texts) and len(texts) > 300
    changed = [where for where, text in texts if redact(text) != text]
    assert not changed


def test_secrets_are_not_identifiers():
    from jupyter_compaction.evaluation import dropped_facts, identifiers
    from jupyter_compaction.fallback_summary import fallback_summary
    from jupyter_compaction.tokens import TokenCounter

    sts = KINDS["sts"][0]
    bare = "AKIAZ7QWERTYUIOP2345 and wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY at /srv/app/main.py"
    before = [{"role": "user", "content": "deploy ORD-1042"},
              {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "sh",
                                                 "input": {"cmd": KINDS["pgpass"][0]}}]},
              {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                            "content": sts + "\n" + bare}]}]
    facts = dropped_facts(before, before[:1])
    summary = fallback_summary(before[1:], None, TokenCounter())
    assert "/srv/app/main.py" in facts
    for hidden in ("q8Xr/7Fv", "IQoJb3Jp", "Pg7dRw2xQ", "AKIAZ7QWERTYUIOP2345"):
        assert not [f for f in facts if hidden in f] and hidden not in summary
    token = "cd ghp_R8fK2mN9pQ4sT7vW1xZ3bD6gH0jL5nP8rU2y/src and src/app/x.py"
    assert identifiers(token) == {"src/app/x.py"}  # the token would pass for a path
