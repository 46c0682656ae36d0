"""Make text safe to pass on: redact credentials, and strip terminal control sequences.

A summary prompt copies the task and tool output verbatim, and a summary copies "every ID
verbatim" by design, so a key pasted into a task or printed by a tool would otherwise be
sent to the summarizer and then live on in every later request.

`redact()` redacts values, not encodings: given data (a tool input) it walks it, and in a
string it decodes the JSON it finds (tool inputs rendered as JSON, JSON-escaped JSON) and
redacts its string values as data, re-encoding only those it changed, so an escaped quote
never splits a secret from its rule. Each value then goes through two rule sets: the
maintained one (gitleaks' rules, `secret_rules.py`), and `PATTERNS`, the project's own,
kept for the kinds gitleaks has no rule for (a value assigned to a secret's name, a URL
password, other Authorization schemes, .netrc, Docker and Azure credentials, Terraform
passwords) and for the kinds its labels name. A match becomes `[REDACTED <kind>]`; the
text around it is kept, and so is a label before the secret (`Authorization: Bearer
[REDACTED bearer token]`, `DB_PASSWORD=[REDACTED secret]`, `postgres://app:[REDACTED URL
password]@db`), so the summary still says that a credential was there and where it
belonged. A value that is code (`is_code`: a reference, a dotted name, a call, a type
name, an argument, a comparison) is never redacted. `SECURITY.md` lists where `redact()`
is applied; the blocks sent back to the model are never changed.

`strip_control()` removes what a terminal would act on rather than show: ANSI escape
sequences (colours, cursor moves, OSC 8 hyperlinks, window titles) whole, then any other
C0/C1 control character (the bell, backspace, carriage return) but the newline and tab.
Every plain-text view applies it to the data it prints.

Left out: entropy-based detection of unlabelled secrets (a bare random string, a password
that no `password=` names), which would also eat the ids and hashes a summary must keep;
a rule that needs two fields of a JSON document found inside escaped text (a Terraform
`result` there is read field by field); keywords written as `\\u` escapes in JSON.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from . import secret_rules


@dataclass(frozen=True)
class _Candidates:
    """The rules worth trying on the parts of a text: the `own` kinds whose literals the
    whole text holds and the `maintained` rules whose keywords it holds (a part holds none
    the whole does not), found once for the whole, not once per decoded string."""

    own: frozenset[str]
    maintained: list[secret_rules.Rule]


Rules = _Candidates | None  # None: find them in the text itself

REDACTED = "[REDACTED {kind}]"
_EDGE = r"(?<![A-Za-z0-9_-])"  # a key starts at a word edge, not inside "task-..." or "desk-"
_END = r"(?![A-Za-z0-9_-])"  # ... and ends at one
_NOT_DONE = r"(?!\[REDACTED[ \]])"  # a value redacted already stays (idempotent)
# A bare value that is code: a call, or a camelCase name ending where a value would end.
_NOT_CODE = r"(?-i:(?![A-Za-z_][\w.]*\(|[a-z]+(?:[A-Z][a-z]+)+(?=[\s,;)\]}]|\Z)))"
# A config or env-file key that names a secret: the word itself or ending in it after a
# separator (DB_PASSWORD, github.token, client-secret), optionally quoted (JSON, YAML).
# `token_count`, `max_tokens` and `password_reset_url` do not end in the word, so they stay;
# `bypassword` does not start it at a separator. Ambiguous words are not keys: `PWD` is the
# working folder, `credentials: "include"` a fetch option. (The key's first part is left
# outside the match: starting at the word keeps the scan fast on long texts.)
_SECRET_KEY = (r"(?:(?<![A-Za-z0-9])(?:password|passwd|passphrase|pass|secret|token|api[_-]?key"
               r"|(?:secret|private|access|account)[_-]?key)|(?<=[a-z0-9])(?-i:Password"
               r"|Passphrase|Secret|Token|ApiKey|(?:Secret|Private|Access|Account)Key)"
               r"|(?<=[A-Z])(?-i:PASSWORD|PASSWD)|(?<=[A-Za-z0-9][_-])pwd)[\"']?")

# A key whose value is a secret, as a whole name: `password`, `DB_PASSWORD`, `client-secret`,
# `SessionToken`, `SecretAccessKey`, `AccountKey` (the word last, after a separator or a
# camelCase hump); not `token_count` or `keyboard`.
_SECRET_WORD = (r"(?:password|passwd|passphrase|secret|token|api[_-]?key"
                r"|(?:secret|private|access|account)[_-]?key)")
_SECRET_NAME = re.compile(
    rf"(?i:(?:.*[_.-])?{_SECRET_WORD})|(?:.*[a-z0-9])?(?:Password|Passwd|Passphrase|Secret"
    r"|Token|ApiKey|SecretKey|PrivateKey|AccessKey|AccountKey|SecretAccessKey)")
# A value that is a literal rather than code or nothing: one line, no spaces at its ends.
_LITERAL = re.compile(r"(?!\s)[^\n]{4,}(?<!\s)")
# Where a JSON document may start: an array or object holding more than numbers, or a
# string whose text is escaped JSON (a document encoded twice).
_JSON_START = re.compile(r'[\[{]\s*["\[{]|"(?=[\[{]\s*\\")')
JSON_WINDOW = 1 << 16  # characters of text first read as one JSON document
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
class _Pairs(list):
    """A decoded JSON object as its (key, value) pairs, in order, duplicates kept."""


_DECODER = json.JSONDecoder(object_pairs_hook=_Pairs)

# (kind, pattern). Group 1, when a pattern has it, is kept (a label before the secret);
# lookarounds keep what follows. Specific formats come first, so they name their kind and
# the generic assignment below skips a value they have already redacted.
PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    # PEM private-key blocks; a truncated one is redacted to the end of the text.
    ("private key", re.compile(
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)",
        re.S)),
    # Anthropic API keys: sk-ant-api03-..., sk-ant-admin01-...
    ("Anthropic key", re.compile(_EDGE + r"sk-ant-[A-Za-z0-9_-]{16,}")),
    # OpenAI keys: sk-..., sk-proj-..., sk-svcacct-...
    ("OpenAI key", re.compile(_EDGE + r"sk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,}")),
    # GitHub tokens: ghp_/gho_/ghu_/ghs_/ghr_ + 36, fine-grained github_pat_...
    ("GitHub token", re.compile(_EDGE + r"(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_\w{22,})")),
    # AWS access key ids: AKIA (long-term) or ASIA (temporary) + 16 upper-case characters.
    ("AWS key id", re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])")),
    # AWS secret access keys (40 characters) where they are named, as in ~/.aws/credentials.
    ("AWS secret", re.compile(r"(?i)(aws_secret_access_key[\"']?\s*[:=]\s*[\"']?)"
                              r"[A-Za-z0-9/+=]{40}")),
    # JSON Web Tokens: base64url header and payload, both JSON objects ("eyJ" is '{"'),
    # then the signature (empty for an unsigned token).
    ("JWT", re.compile(_EDGE + r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"
                       + _END)),
    # Slack tokens: bot xoxb-, user xoxp-, app-level xapp-1-..., the legacy xoxa-/xoxr-/
    # xoxs-/xoxo- and the refreshable xoxe.xoxp-1-/xoxe-1-.
    ("Slack token", re.compile(_EDGE + r"(?:xox[aboprs]|xoxe(?:\.xox[bp])?|xapp)-\d*-?"
                               r"[A-Za-z0-9-]{10,}")),
    # Google API keys: AIza + 35 characters.
    ("Google API key", re.compile(_EDGE + r"AIza[0-9A-Za-z_-]{35}" + _END)),
    # Stripe keys: secret sk_, restricted rk_ and publishable pk_, live or test.
    ("Stripe key", re.compile(_EDGE + r"(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{10,}")),
    # Bearer tokens in an Authorization header (or anywhere after "Bearer ").
    ("bearer token", re.compile(r"(?i)(\bbearer\s+)[A-Za-z0-9._~+/-]{16,}=*")),
    # Other Authorization schemes: `Authorization: Basic <base64>`, `Authorization: token
    # <GitHub token>`, `Digest ...`; the header name and scheme stay.
    ("authorization", re.compile(r"(?i)(\bauthorization[\"']?[ \t]*[:=][ \t]*[\"']?"
                                 r"(?:(?:basic|token|digest)[ \t]+)?)" + _NOT_DONE
                                 + r"(?!bearer\s)[A-Za-z0-9._~+/=-]{8,}")),
    # Google OAuth access tokens (`gcloud auth print-access-token`): ya29. + 20 or more.
    ("Google OAuth token", re.compile(_EDGE + r"ya29\.[0-9A-Za-z_-]{20,}")),
    # A password in a .netrc file: `machine <host> [login <user>] password <secret>`.
    ("netrc password", re.compile(r"(?i)(\bmachine\s+\S+\s+(?:login\s+\S+\s+)?password\s+)"
                                  + _NOT_DONE + r"\S+")),
    # Docker's config.json: `"auth": "<base64 of user:password>"` under `auths`.
    ("Docker auth", re.compile(r"(?i)(\bauth[\"']?[ \t]*:[ \t]*[\"']?)"
                               r"[A-Za-z0-9+/]{12,}={0,2}(?![A-Za-z0-9+/=])")),
    # Azure storage: `AccountKey=<base64>` in a connection string, `sig=` in a SAS URL.
    ("Azure key", re.compile(r"(?i)(\bAccountKey=)[A-Za-z0-9+/]{20,}={0,2}")),
    ("SAS signature", re.compile(r"(?i)([?&]sig=)[A-Za-z0-9%+/]{16,}={0,2}")),
    # Terraform state: a `random_password` (or `random_string`) resource's `result`.
    ("Terraform password", re.compile(r"(?s)(\"type\":\s*\"random_(?:password|string)\""
                                      r".{0,4000}?\"result\":\s*\")[^\"]+")),
    # A password in a URL, scheme://user:password@host: the scheme, user and host stay; a
    # password may hold an unencoded "@", so it ends at the last one before the host.
    ("URL password", re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://[^\s:/@]*:)" + _NOT_DONE
                                + r"(?!\$?\{[A-Za-z_][\w.]*\}@)"  # a template: {password}
                                + r"[^\s/\"'<>]+(?=@[^\s@/])")),  # up to the last "@"
    # A secret assigned in a config or env file, a JSON/YAML mapping or a query string:
    # `export API_TOKEN=...`, `password: "..."`, `"client_secret": "..."`, `?token=...`.
    # A quoted value goes up to its closing quote; a bare one up to a space, quote or `&`,
    # unless it is code rather than data (`api_key: get_key()`, `token: csrfToken`).
    # A quoted value runs to its closing quote, past an escaped one (`"a\"b"` in a shell
    # command); a bare value never starts with a backslash, so a quote that is escaped (in
    # JSON the rules could not decode) opens a quoted value rather than being taken for one.
    # A YAML block value (`password: |` and the indented lines below) goes whole. A bare
    # value ends where an earlier rule's redaction begins (`token=abc[REDACTED ...]`).
    ("secret", re.compile(rf"(?i)({_SECRET_KEY}[ \t]*(?:=>|[:=])[ \t]*(?:\\?[\"'])?){_NOT_DONE}"
                          r"(?:[|>][-+]?[ \t]*\n[ \t]+[^\n]+(?:\n[ \t]{4,}[^\n]+)*"
                          rf"|(?<=[\"'])(?:[^\"'\n\\]|\\.)+(?=\\?[\"'])"
                          rf"|(?<![\"']){_NOT_CODE}(?:(?!\[REDACTED )[^\s\"'&\\])+)")),
)

# ANSI escape sequences: CSI (ESC [ ... final byte, or the one-byte C1 form \x9b), OSC
# (ESC ] ... ended by BEL or ST, as OSC 8 hyperlinks and window titles are), other string
# commands (DCS, SOS, PM, APC) and two-character escapes; then single control characters.
# A secret split across two lines: after a redaction, a whole next line of key characters
# is the rest of it when a shell line continuation (a backslash) joins the two, or when it
# is long (20 or more: a wrapped terminal line); a short word on the next line ("ORD-1042")
# is the text after the key.
_KEY_LINE = r"[A-Za-z0-9_+/=-]{%d,}[\"']?[ \t]*$"
CONTINUED = re.compile(r"(?m)(\[REDACTED [^\]\n]+\][ \t]*"
                       rf"(?:\\\n[ \t]*(?={_KEY_LINE % 8})|\n[ \t]*(?={_KEY_LINE % 20})))"
                       r"[A-Za-z0-9_+/=-]+(?=[\"']?[ \t]*$)")

_ANSI = re.compile(r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"
                   r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
                   r"|\x1b[ -/]*[0-~]")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # all C0/C1 but \t (09) and \n (0a)


# What every match of a pattern contains, case-folded: a text without any of a kind's
# literals cannot hold that kind, so its (much slower) regex is not run on it. Most texts
# hold none of the rarer literals, which makes `redact()` cheap on a long real session.
# (`casefold`, not `lower`: "(?i)" matches the long s "ſ" as "s", and only casefold maps
# it so; no literal of a case-insensitive pattern holds an "i", which "ı" would match.)
TRIGGERS: dict[str, tuple[str, ...]] = {
    "private key": ("-----begin ",), "Anthropic key": ("sk-ant-",), "OpenAI key": ("sk-",),
    "GitHub token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    "AWS key id": ("akia", "asia"), "AWS secret": ("aws_secret_access_key",),
    "JWT": ("eyj",), "Slack token": ("xox", "xapp"), "Google API key": ("aiza",),
    "Stripe key": ("_live_", "_test_"), "bearer token": ("bearer",), "URL password": ("://",),
    "secret": ("pass", "secret", "token", "key", "pwd"), "authorization": ("authorization",),
    "Google OAuth token": ("ya29.",), "netrc password": ("machine",), "Docker auth": ("auth",),
    "Azure key": ("accountkey=",), "SAS signature": ("sig=",),
    "Terraform password": ("random_",),
}


# Code, not a secret: an environment-variable or template reference (`$DB_PASSWORD`,
# `${{ secrets.NPM_TOKEN }}`, `%(password)s`, `{{ .Values.token }}`), a dotted name
# (`settings.SECRET_KEY`: each part letters, digits only at its end, unlike `hvs.CAE5x…`),
# a call or a subscript (`os.environ["X"]`, `get_key()`).
_CODE_VALUE = re.compile(r"[$%]\{|\$\(|\$[A-Za-z_]|%\(|\{\{|<%"
                         r"|[A-Za-z_]+\d*(?:\.[A-Za-z_]+\d*)+(?![\w.])"  # digits only last
                         r"|[A-Za-z_][\w.]*[ \t]*[(\[]")
_NAME = re.compile(r"[A-Za-z_][A-Za-z_]*")  # an identifier without digits
TYPE_NAMES = frozenset({"str", "int", "bytes", "bool", "float", "None", "True", "False",
                        "null", "true", "false", "nil", "undefined", "Any", "Optional",
                        "SecretStr", "string", "number", "boolean", "object"})


def is_code(label: str, value: str, after: str) -> bool:
    """Whether `value`, assigned after `label` and followed by `after`, is code rather than a
    literal secret: a reference, a dotted name, a call or subscript, a type name, an
    argument or parameter (followed by "," or ")"), a comparison (`==`), or a bare name
    without digits assigned with spaces around "=" (`self.token = token`)."""
    bare = value.rstrip(",;)]}")
    if value.startswith("=") or _CODE_VALUE.match(value) or bare in TYPE_NAMES:
        return True
    if not _NAME.fullmatch(bare) or label.rstrip()[-1:] in "\"'":
        return False
    return (bare != value or after[:1] in (",", ")")
            or bool(re.search(r"\s=\s*$", label)) and not label.rstrip().endswith(":"))


def _secret_replacement(kind: str):
    """As `_replacement`, but a value that `is_code` is left as it is."""
    redacted = _replacement(kind)

    def replace(match: re.Match[str]) -> str:
        label = match.group(1)
        value = match.group()[len(label):]
        if is_code(label, value, match.string[match.end():match.end() + 1]):
            return match.group()
        return redacted(match)
    return replace


def _replacement(kind: str):
    def replace(match: re.Match[str]) -> str:
        label = match.group(1) if match.re.groups else ""
        return label + REDACTED.format(kind=kind)
    return replace


def redact(value: Any) -> Any:
    """`value` with every credential replaced by `[REDACTED <kind>]`, redacted as data: a
    string's embedded JSON is decoded and its string values redacted in place (so escaping
    never splits a secret from its rule), a list or dict is walked (a string under a key
    that names a secret is redacted whole), anything else is returned as it is. A new
    value: the one given is never changed."""
    if isinstance(value, str):
        return _redact_text(value, None)
    if isinstance(value, list | tuple):
        return [redact(v) for v in value]
    if isinstance(value, dict):
        return {k: _redact_field(k, v) for k, v in value.items()}
    return value


def _redact_field(key: Any, value: Any, among: Rules = None) -> Any:
    """The value of a mapping's `key`: whole when the key names a secret and the value is
    a literal; else redacted as it would be after its key (`key: value`)."""
    if not isinstance(value, str) or not isinstance(key, str):
        return redact(value)
    if (_SECRET_NAME.fullmatch(key) and _LITERAL.fullmatch(value)
            and not value.startswith("[REDACTED") and not _CODE_VALUE.match(value)):
        return REDACTED.format(kind="secret")
    label = f"{key}: "
    joined = _redact_text(label + value, among)
    return joined[len(label):] if joined.startswith(label) else _redact_text(value, among)


def _redact_text(text: str, among: Rules) -> str:
    """`text` with its embedded JSON redacted as data and the rules applied to the rest;
    only the rules `among` are tried (when None, those the text calls for)."""
    if "\\" not in text:  # only escaped JSON can hide a secret from the rules
        return _apply_rules(text, among)
    if among is None:
        among = _candidates(text.casefold())
    pieces, done = [], 0
    for start, end, rewritten in _json_documents(text, among):
        pieces += [_apply_rules(text[done:start], among), rewritten]
        done = end
    return "".join(pieces) + _apply_rules(text[done:], among)


def _candidates(folded: str) -> _Candidates:
    """The rules a case-folded text calls for: the kinds of `PATTERNS` whose `TRIGGERS`
    it holds, and the maintained rules whose keywords it holds."""
    own = frozenset(kind for kind, literals in TRIGGERS.items()
                    if any(literal in folded for literal in literals))
    return _Candidates(own, secret_rules.present(folded))


def _apply_rules(text: str, among: Rules) -> str:
    """`text` with every match of `PATTERNS` and of the maintained rules replaced (a rule
    whose literals the text lacks is not run)."""
    folded = text.casefold()
    if among is None:
        among = _candidates(folded)
    for kind, pattern in PATTERNS:
        if kind in among.own and any(literal in folded for literal in TRIGGERS[kind]):
            new = pattern.sub((_secret_replacement if kind == "secret" else _replacement)(kind),
                              text)
            if new != text:
                text, folded = new, new.casefold()
    text = _apply_maintained(text, folded, among.maintained)
    return CONTINUED.sub(_replacement("secret"), text) if "REDACTED" in text else text


def _apply_maintained(text: str, folded: str, rules: list[secret_rules.Rule]) -> str:
    """`text` with the secret of every match of a gitleaks rule (`secret_rules`) replaced
    by `[REDACTED <rule id>]`, the rest of each match kept; a value already redacted
    stays."""
    found: dict[int, tuple[int, str]] = {}  # start -> (end, kind): the first rule wins
    for rule in rules:
        for start, end in rule.secrets(text, folded):
            if "REDACTED" not in text[start:end]:
                found.setdefault(start, (end, rule.kind))
    out, done = [], 0
    for start in sorted(found):
        end, kind = found[start]
        if start >= done:
            out += [text[done:start], REDACTED.format(kind=kind)]
            done = end
    return "".join(out) + text[done:]


def _json_documents(text: str, among: Rules) -> Iterator[tuple[int, int, str]]:
    """(start, end, redacted text) of each JSON object or array in `text` (or string of
    escaped JSON): its string values redacted as data, each changed one re-encoded in
    place, the rest of the document (spacing included) unchanged."""
    scanned = 0
    for match in _JSON_START.finditer(text):
        start = match.start()
        if start < scanned:
            continue  # inside a document already read
        found = _decode_at(text, start)
        if found is None:
            continue
        value, end = found
        scanned = end
        strings = list(_strings(value))
        changed = [_redact_field(key, s, among) if key is not None else _redact_text(s, among)
                   for key, s in strings]
        yield start, end, _rewrite(text[start:end], strings, changed)


def _decode_at(text: str, start: int) -> tuple[Any, int] | None:
    """(the JSON value at `start`, where it ends), or None. It is read from a window that
    doubles only while the value runs past it: a failure costs what was read, never a
    count of the lines before it (as `JSONDecodeError` makes on the whole text)."""
    window = JSON_WINDOW
    while True:
        chunk = text[start:start + window]
        try:
            value, end = _DECODER.raw_decode(chunk)
            return value, start + end
        except RecursionError:
            return None
        except ValueError as err:
            cut = start + window < len(text) and getattr(err, "pos", 0) >= len(chunk) - 1
            if not cut:
                return None
            window *= 2


def _strings(value: Any, key: str | None = None) -> Iterator[tuple[str | None, str]]:
    """Every string of a decoded document in document order, keys too, each as (its key
    when it is a value under one, the string)."""
    if isinstance(value, str):
        yield key, value
    elif isinstance(value, _Pairs):
        for k, v in value:
            yield None, k
            yield from _strings(v, k)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _rewrite(source: str, strings: list[tuple[str | None, str]], changed: list[str]) -> str:
    """The JSON `source` with its n-th string literal replaced where `changed` differs."""
    replaced = iter(zip(strings, changed, strict=True))

    def one(match: re.Match[str]) -> str:
        (_, before), after = next(replaced)
        return match.group() if after == before else json.dumps(after, ensure_ascii=False)
    return _JSON_STRING.sub(one, source)


def strip_control(text: str) -> str:
    """`text` without terminal escape sequences and control characters (but \\n and \\t)."""
    return _CONTROL.sub("", _ANSI.sub("", text))


def safe(text: str) -> str:
    """`text` fit to print: credentials redacted, control characters stripped."""
    return strip_control(redact(text))
