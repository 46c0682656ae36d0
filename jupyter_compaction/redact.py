"""Redact API keys, tokens and private keys from text that goes to (or comes from) a summarizer.

A summary prompt copies the task and tool output verbatim, and a summary copies "every ID
verbatim" by design, so a key pasted into a task or printed by a tool would otherwise be
sent to the summarizer and then live on in every later request. `redact()` replaces each
match of `PATTERNS` with `[REDACTED <kind>]`; the text around it is kept, and so is a
header's name (`Authorization: Bearer [REDACTED bearer token]`), so the summary still
says that a credential was there.

The patterns follow each provider's published key format: Anthropic `sk-ant-...`, OpenAI
`sk-...`/`sk-proj-...`, GitHub `ghp_`/`gho_`/`ghu_`/`ghs_`/`ghr_` and `github_pat_`, AWS
access key ids (`AKIA`/`ASIA` + 16) and `aws_secret_access_key = ...` assignments, bearer
tokens, and PEM private-key blocks (a truncated one is redacted to the end of the text).

Left out: entropy-based detection of unlabelled secrets (passwords, random hex), which
would also eat the ids and hashes a summary must keep.
"""

from __future__ import annotations

import re

_EDGE = r"(?<![A-Za-z0-9_-])"  # a key starts at a word edge, not inside "task-..." or "desk-"

# (kind, pattern); a pattern's group 1, when it has one, is kept (a label before the secret).
PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("private key", re.compile(
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)",
        re.S)),
    ("Anthropic key", re.compile(_EDGE + r"sk-ant-[A-Za-z0-9_-]{16,}")),
    ("OpenAI key", re.compile(_EDGE + r"sk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,}")),
    ("GitHub token", re.compile(_EDGE + r"(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_\w{22,})")),
    ("AWS key id", re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])")),
    ("AWS secret", re.compile(r"(?i)(aws_secret_access_key[\"']?\s*[:=]\s*[\"']?)"
                              r"[A-Za-z0-9/+=]{40}")),
    ("bearer token", re.compile(r"(?i)(\bbearer\s+)[A-Za-z0-9._~+/-]{16,}=*")),
)


def _replacement(kind: str):
    def replace(match: re.Match[str]) -> str:
        label = match.group(1) if match.re.groups else ""
        return f"{label}[REDACTED {kind}]"
    return replace


def redact(text: str) -> str:
    """`text` with every credential `PATTERNS` knows replaced by `[REDACTED <kind>]`."""
    for kind, pattern in PATTERNS:
        text = pattern.sub(_replacement(kind), text)
    return text
