"""Local and compatible servers: the Messages API's shape, served by Ollama, llama.cpp, vLLM.

Ollama (0.14 and later), llama.cpp's server and vLLM answer `POST /v1/messages` with
`tool_use` and `tool_result` blocks, so `AnthropicModel` works against them with a
`base_url`. They differ from the Claude API in ways a run must survive:

- usage without the cache fields: they count as zero cache (`to_reply` already does so);
- no context-management betas: a request with `betas` or `context_management` (edits,
  the native memory tool) that the server refuses with a 400 is sent again without them
  (no edits; the memory tool as an ordinary tool), and the run says so once, in one
  line (a `CompatibilityWarning`);
- small models write malformed tool arguments (not an object, a required field
  missing): the request is sent once more, and if the arguments are still malformed
  they are replaced by `{}`, so the tool answers with a clear error ("missing a required
  argument") and the history stays valid;
- no `count_tokens` endpoint: `count_tokens()` fails with one line; the local
  `TokenCounter` is the count to use.

`compatible_model("ollama:qwen3")` is Ollama's `qwen3` at `OLLAMA_HOST` (Ollama's own
variable; default `http://127.0.0.1:11434`); `compatible_model("qwen3", base_url=...)`
any other server. The servers ignore the key, but the SDK needs one: `LOCAL_KEY` stands
in when `ANTHROPIC_API_KEY` is not set.

Left out: `tool_choice` (the agent never sends it) and servers that only speak the
OpenAI chat format.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

from ..settings import OLLAMA_PREFIX
from .anthropic import AnthropicModel, ModelError
from .base import Reply

OLLAMA_URL = "http://127.0.0.1:11434"
LOCAL_KEY = "local-server"  # any non-empty key: local servers do not check it
BETA_HINTS = ("beta", "context_management", "memory_20250818", "unknown field",
              "not supported", "unsupported", "extra inputs")


class CompatibilityWarning(UserWarning):
    """A feature the server does not offer; the run goes on without it."""


def compatible_model(model: str, base_url: str | None = None, **options: Any
                     ) -> CompatibleModel:
    """`ollama:NAME` at `OLLAMA_HOST`, or `model` at `base_url`."""
    if model.startswith(OLLAMA_PREFIX):
        model, base_url = model[len(OLLAMA_PREFIX):], base_url or os.environ.get(
            "OLLAMA_HOST", OLLAMA_URL)
    if not model or not base_url:
        raise ValueError("a compatible server needs a model name and a base URL, e.g. "
                         "'ollama:qwen3' or --base-url http://127.0.0.1:8080 --model qwen3")
    if "://" not in base_url:
        base_url = f"http://{base_url}"
    return CompatibleModel(model, base_url=base_url, **options)


def _malformed(reply: Reply, tools: list[dict[str, Any]]) -> bool:
    """Whether a tool call's input is not an object or lacks a required field."""
    required = {t.get("name"): (t.get("input_schema") or {}).get("required", [])
                for t in tools}
    return any(not isinstance(call.get("input"), dict)
               or any(key not in call["input"] for key in required.get(call.get("name"), []))
               for call in reply.tool_uses)


class CompatibleModel(AnthropicModel):
    """`AnthropicModel` for a server that speaks the Messages API but not all of it."""

    def __init__(self, model: str, *, base_url: str, api_key: str | None = None,
                 **options: Any):
        key = api_key or os.environ.get("ANTHROPIC_API_KEY") or LOCAL_KEY
        super().__init__(model, base_url=base_url, api_key=key, **options)
        self.base_url = base_url
        self.lacking: list[str] = []  # the features found missing, each reported once

    def __repr__(self) -> str:
        return f"CompatibleModel(model={self.name!r}, base_url={self.base_url!r})"

    def create(self, *, system: str, messages: list[dict[str, Any]],
               tools: list[dict[str, Any]], max_tokens: int, cache: bool | None = None
               ) -> Reply:
        request = {"system": system, "messages": messages, "tools": tools,
                   "max_tokens": max_tokens, "cache": cache}
        reply = self._create(request)
        if _malformed(reply, tools):  # one more try: small models often get it right
            reply = self._create(request)
        if _malformed(reply, tools):
            for call in reply.tool_uses:
                if not isinstance(call.get("input"), dict):
                    call["input"] = {}
        return reply

    def _create(self, request: dict[str, Any]) -> Reply:
        try:
            return super().create(**request)
        except ModelError as err:
            if not self._refused_betas(err):
                raise
        return super().create(**request)

    def _refused_betas(self, err: ModelError) -> bool:
        """After a 400 that refuses the betas: send plain requests from now on, and say so
        once, in one line. False when the error is about something else."""
        text = str(err).lower()
        if err.status != 400 or not self.native or not any(h in text for h in BETA_HINTS):
            return False
        self.native, self.edits = False, []
        self._report("the context-management betas (edits off, memory as a plain tool)")
        return True

    def _report(self, feature: str) -> None:
        if feature not in self.lacking:
            self.lacking.append(feature)
            warnings.warn(f"{self.base_url} does not offer {feature}; going on without",
                          CompatibilityWarning, stacklevel=4)
