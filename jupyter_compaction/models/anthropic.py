"""The real Claude model: the `Model` protocol on top of the official `anthropic` SDK.

`AnthropicModel.create()` sends one Messages-API request and turns the SDK's `Message`
into a `Reply` of plain dicts, so the agent loop cannot tell it from the simulated model.
With caching on it marks three prompt-cache breakpoints, the system prompt, the last tool
definition and the last block of the last message, so every turn re-reads the long,
stable prefix from the cache instead of paying for it again (the "same" summarizer
relies on this). `count_tokens()` asks the API for the exact count. A tool named
`memory` (`MemoryFolder.tool()`) is sent as the API's own memory tool, `memory_20250818`,
with the beta it needs: Claude knows that tool's commands, and the client runs them.

Nothing happens at import time: `anthropic` is imported, the key is looked up and the
client is built on the first call. The key never appears in `repr()`, in our errors or in
a reply. SDK errors become one-line `ModelError`s; retries are the SDK's own
(`max_retries`, with its backoff and `retry-after` handling), there is no second loop.

`compact()` asks for an on-demand compaction. Every block a reply holds (a `compaction`
block with its signature and null content, a `thinking` block with its signature, a type
this module does not know) comes back as the API sent it, and is sent again unchanged.

Left out: streaming, images, extended thinking and batches.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Sequence
from typing import Any

from ..api_context import (
    CONTEXT_EDITING_BETA,
    ON_DEMAND_BETA,
    compaction_param,
    context_request,
    memory_tool,
)
from ..history import (
    SYSTEM,
    SYSTEM_KEYS,
    InvalidHistory,
    check_tools_defined,
    opens_with_compaction,
)
from ..memory_tool import MEMORY_TOOL_NAME
from .base import Reply, Usage

DEFAULT_MODEL = "claude-haiku-4-5"
EPHEMERAL: dict[str, str] = {"type": "ephemeral"}
_MAX_MESSAGE_CHARS = 300

# The keys the Messages API accepts on each input block; anything else we keep on a
# block for ourselves (timestamps, ids, notes) is dropped before sending.
_BLOCK_KEYS: dict[str, tuple[str, ...]] = {
    "text": ("type", "text"),
    "tool_use": ("type", "id", "name", "input"),
    "tool_result": ("type", "tool_use_id", "content", "is_error"),
    "image": ("type", "source"),
    "document": ("type", "source", "title", "context"),
    "thinking": ("type", "thinking", "signature"),
    "redacted_thinking": ("type", "data"),
    # SDK `BetaCompactionBlockParam`: every field is sent back as it was returned.
    "compaction": ("type", "content", "encrypted_content", "signature", "tool_changes"),
}
_TOOL_KEYS = ("type", "name", "description", "input_schema", "strict")


class MissingAPIKey(RuntimeError):
    """No API key (nor other SDK credential) is available for the real Claude model."""


class ModelError(RuntimeError):
    """A failed Claude API call, as one key-free line; the SDK error is the `__cause__`.

    `status` is the HTTP status (None when no response came back: timeout, dropped
    connection, unreadable body), `error_type` the API's error type (`rate_limit_error`,
    `overloaded_error`, ...) or ours (`timeout`, `connection_error`, `malformed_response`),
    `error_code` the body's `error.details.error_code` when it has one (the SDK's
    `APIStatusError.error_code`, e.g. `compaction_signature_invalid`),
    and `retryable` says whether trying again later can help (the SDK already retried
    `max_retries` times before this was raised).
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        error_type: str | None = None,
        retryable: bool = False,
        request_id: str | None = None,
        error_code: str | None = None,
    ) -> None:
        super().__init__(message)
        self.error_code = error_code
        self.status = status
        self.error_type = error_type
        self.retryable = retryable
        self.request_id = request_id


def _one_line(text: str, limit: int = _MAX_MESSAGE_CHARS) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _check_tools(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> None:
    """The API's rule that tool blocks need tool definitions, as a `ModelError`, unsent."""
    try:
        check_tools_defined(messages, tools)
    except InvalidHistory as err:
        raise ModelError(f"request not sent: {err}", error_type="invalid_request_error") from err
    except (KeyError, TypeError, AttributeError):
        return  # a malformed history: the API's own 400 says what is wrong with it


def _clean_block(block: Any) -> Any:
    """A copy of one content block holding only the keys the API accepts."""
    if not isinstance(block, dict):
        return copy.deepcopy(block)
    keys = _BLOCK_KEYS.get(block.get("type", ""))
    if keys is None:  # a block type we do not know: pass it on, minus our cache markers
        return {k: copy.deepcopy(v) for k, v in block.items() if k != "cache_control"}
    out = {k: copy.deepcopy(block[k]) for k in keys if k in block}
    if out["type"] == "tool_result" and isinstance(out.get("content"), list):
        out["content"] = [_clean_block(b) for b in out["content"]]
    return out


def _clean_message(message: dict[str, Any]) -> dict[str, Any]:
    """A copy of one message with the keys the API accepts: `role` and `content`, and a
    mid-conversation system message's `clear_at` and `output_config` (SDK
    `BetaSystemMessageParam`)."""
    content = message.get("content")
    if isinstance(content, list):
        content = [_clean_block(b) for b in content]
    extra = SYSTEM_KEYS - {"role", "content"} if message.get("role") == SYSTEM else ()
    return {"role": message.get("role"), "content": content,
            **{k: copy.deepcopy(message[k]) for k in extra if k in message}}


def _clean_tool(tool: dict[str, Any]) -> dict[str, Any]:
    if tool.get("type", "custom") != "custom":  # a server tool: its keys are its own
        return {k: copy.deepcopy(v) for k, v in tool.items() if k != "cache_control"}
    return {k: copy.deepcopy(tool[k]) for k in _TOOL_KEYS if k in tool}


def native_tools(tools: list[dict[str, Any]], edits: Sequence[dict[str, Any]] = (),
                 messages: Sequence[dict[str, Any]] = ()
                 ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """`tools` with our `memory` tool swapped for the API's memory tool definition, and the
    extra keyword arguments (`betas`, `context_management`) that switch it and `edits` on
    (none when there is neither). A history that opens with an on-demand `compaction`
    block goes out under the on-demand beta."""
    memory = any(t.get("name") == MEMORY_TOOL_NAME for t in tools)
    on_demand = opens_with_compaction(messages) and not edits
    if not memory and not edits and not on_demand:
        return tools, {}
    tools = [memory_tool() if t.get("name") == MEMORY_TOOL_NAME else t for t in tools]
    request = context_request(list(edits), memory=memory)
    betas = request["betas"] or ([] if on_demand else [CONTEXT_EDITING_BETA])
    extra: dict[str, Any] = {"betas": [*betas, *([ON_DEMAND_BETA] if on_demand else [])]}
    if edits:
        extra["context_management"] = request["context_management"]
    return tools, extra


def build_request(
    *, system: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]], cache: bool
) -> dict[str, Any]:
    """The `system`/`tools`/`messages` keyword arguments for the SDK, cleaned and copied.

    The caller's lists are never changed. With `cache`, three breakpoints are marked (the
    API allows four): the system prompt, the last tool and the last message's last block.
    Markers the caller left on blocks are dropped: this adapter owns the breakpoints.
    """
    msgs = [_clean_message(m) for m in messages]
    tls = [_clean_tool(t) for t in tools]
    kwargs: dict[str, Any] = {"messages": msgs}
    if system:
        kwargs["system"] = (
            [{"type": "text", "text": system, "cache_control": dict(EPHEMERAL)}]
            if cache
            else system
        )
    if tls:
        if cache:
            tls[-1]["cache_control"] = dict(EPHEMERAL)
        kwargs["tools"] = tls
    if cache and msgs:
        last = msgs[-1]
        if isinstance(last["content"], str):
            last["content"] = [{"type": "text", "text": last["content"]}]
        if isinstance(last["content"], list) and last["content"]:
            last["content"][-1]["cache_control"] = dict(EPHEMERAL)
    return kwargs


def _block_to_dict(block: Any) -> dict[str, Any]:
    kind = getattr(block, "type", None)
    if kind == "text":
        return {"type": "text", "text": block.text}
    if kind == "tool_use":
        return {
            "type": "tool_use",
            "id": block.id,
            "name": block.name,
            "input": copy.deepcopy(block.input) if block.input is not None else {},
        }
    if hasattr(block, "model_dump"):  # every field the API sent, a null one included
        return block.model_dump(mode="json", exclude_unset=True)
    return dict(block)


def _plain(value: Any) -> dict[str, Any]:
    """An SDK object (or dict) as a plain dict without None values."""
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", exclude_none=True)
    return {k: v for k, v in dict(value).items() if v is not None}


def to_reply(message: Any) -> Reply:
    """An SDK `Message` as a `Reply` (plain-dict blocks; missing cache counts become 0;
    server compaction's `usage.iterations` kept as plain dicts)."""
    usage = getattr(message, "usage", None)

    def count(name: str) -> int:
        return int(getattr(usage, name, None) or 0)

    steps = getattr(usage, "iterations", None) or []
    return Reply(
        content=[_block_to_dict(b) for b in message.content],
        stop_reason=message.stop_reason or "end_turn",
        usage=Usage(
            input_tokens=count("input_tokens"),
            output_tokens=count("output_tokens"),
            cache_creation_input_tokens=count("cache_creation_input_tokens"),
            cache_read_input_tokens=count("cache_read_input_tokens"),
            iterations=[_plain(step) for step in steps],
        ),
        model=str(message.model),
    )


class AnthropicModel:
    """Claude through the `anthropic` SDK, as a `Model`.

    `cache=True` (the default) marks prompt-cache breakpoints on every call that does not
    say otherwise; a call's own `create(..., cache=True/False)` wins over it. `api_key=None`
    lets the SDK find the key itself (`ANTHROPIC_API_KEY`). `client` replaces the SDK
    client altogether (then `api_key`, `base_url`, `max_retries` and `timeout` are unused).
    `edits` (from `api_context`, e.g. `[compact_edit(60_000)]`) go with every request,
    with the betas they need.
    """

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        *,
        client: Any = None,
        api_key: str | None = None,
        base_url: str | None = None,
        max_retries: int = 2,
        timeout: float = 60.0,
        cache: bool = True,
        edits: Sequence[dict[str, Any]] = (),
    ) -> None:
        self.name = model
        self.cache = cache
        self.edits = list(edits)  # context-management edits sent with every request
        self.native = True  # send the betas (False: a server that refuses them)
        self.max_retries = max_retries
        self.timeout = timeout
        self._client = client
        # The key lives only in this closure, not in an attribute anyone would print.
        self._connect = lambda: _make_client(model, api_key, base_url, max_retries, timeout)
        self._secret = (
            (lambda: api_key) if api_key else (lambda: os.environ.get("ANTHROPIC_API_KEY"))
        )

    def __repr__(self) -> str:
        return f"AnthropicModel(model={self.name!r}, cache={self.cache!r})"

    @property
    def client(self) -> Any:
        """The SDK client, built on first use (raises `MissingAPIKey` without a key)."""
        if self._client is None:
            self._client = self._connect()
        return self._client

    def create(
        self,
        *,
        system: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        max_tokens: int,
        cache: bool | None = None,
    ) -> Reply:
        """Send one request; `cache` (None: the model's own `cache`) marks the breakpoints.

        A history with tool blocks and no `tools` is refused here, unsent, as the API
        would refuse it."""
        _check_tools(messages, tools)
        tools, extra = (native_tools(tools, self.edits, messages) if self.native
                        else (tools, {}))
        kwargs = build_request(
            system=system, messages=messages, tools=tools,
            cache=self.cache if cache is None else cache,
        )
        return self._send(max_tokens=max_tokens, **kwargs, **extra)

    def compact(
        self,
        *,
        system: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        instructions: str | None = None,
        max_tokens: int = 16_000,
        cache: bool | None = None,
    ) -> Reply:
        """Ask for an on-demand compaction of `messages` (beta `compact-2026-09-04`): the
        reply holds one `compaction` block, to be put first in the next request's messages
        in place of `messages`; its cost is in `reply.usage.iterations`. The edits are not
        sent: the API refuses `compaction` with `context_management`."""
        _check_tools(messages, tools)
        tools, extra = native_tools(tools, (), messages)
        kwargs = build_request(system=system, messages=messages, tools=tools,
                               cache=self.cache if cache is None else cache)
        betas = [b for b in extra.get("betas", []) if b != ON_DEMAND_BETA]
        return self._send(max_tokens=max_tokens, **kwargs, betas=[*betas, ON_DEMAND_BETA],
                          compaction=compaction_param(instructions))

    def _send(self, **request: Any) -> Reply:
        """One `messages.create()` (the beta one when betas are asked for) as a `Reply`."""
        client = self.client
        try:
            api = client.beta.messages if "betas" in request else client.messages
            message = api.create(model=self.name, **request)
        except Exception as err:  # every SDK failure becomes one ModelError
            raise self._error(err) from err
        if not hasattr(message, "content"):  # a 2xx body that was not a Message
            raise ModelError(
                "Claude API returned a response that is not a message",
                error_type="malformed_response",
            )
        return to_reply(message)

    def count_tokens(
        self, *, system: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> int:
        """The exact input-token count of a request, from the API's count endpoint."""
        _check_tools(messages, tools)
        tools, extra = (native_tools(tools, self.edits, messages) if self.native
                        else (tools, {}))
        kwargs = build_request(system=system, messages=messages, tools=tools, cache=False)
        client = self.client
        try:
            api = client.beta.messages if extra else client.messages
            result = api.count_tokens(model=self.name, **kwargs, **extra)
        except Exception as err:
            raise self._error(err) from err
        if not hasattr(result, "input_tokens"):
            raise ModelError(
                "Claude API returned a token count that is not readable",
                error_type="malformed_response",
            )
        return int(result.input_tokens)

    # -- errors ------------------------------------------------------------------------

    def _redact(self, text: str) -> str:
        secrets = {
            self._secret(),
            getattr(self._client, "api_key", None),
            getattr(self._client, "auth_token", None),
        }
        for secret in secrets:
            if isinstance(secret, str) and len(secret) >= 8:
                text = text.replace(secret, "[redacted]")
        return _one_line(text)

    def _limits(self) -> str:
        client = self._client
        retries = getattr(client, "max_retries", self.max_retries)
        timeout = getattr(client, "timeout", self.timeout)
        timeout = f"{timeout:g} s" if isinstance(timeout, int | float) else "SDK default"
        return f"timeout {timeout}, {retries} retries"

    def _error(self, err: BaseException) -> BaseException:
        """Our one-line, key-free error for an SDK (or decoding) failure."""
        if isinstance(err, ModelError | MissingAPIKey):
            return err
        sdk = self._sdk_error(err)
        if sdk is not None:
            return sdk
        if isinstance(err, json.JSONDecodeError):
            return ModelError(
                self._redact(f"Claude API returned a malformed response: not JSON ({err.msg})"),
                error_type="malformed_response",
            )
        return ModelError(
            self._redact(f"Claude API call failed: {type(err).__name__}: {err}"),
            error_type=type(err).__name__,
        )

    def _sdk_error(self, err: BaseException) -> ModelError | None:
        """The SDK's own failures as a `ModelError`; None for any other exception."""
        try:
            import anthropic
        except ImportError:  # pragma: no cover - a client was passed in without the SDK
            return None
        if isinstance(err, anthropic.APIStatusError):
            return self._status_error(err)
        if isinstance(err, anthropic.APITimeoutError):  # before its base, a connection error
            return ModelError(
                self._redact(f"Claude API request timed out ({self._limits()})"),
                error_type="timeout",
                retryable=True,
            )
        if isinstance(err, anthropic.APIConnectionError):
            cause = err.__cause__
            detail = f"{type(cause).__name__}: {cause}" if cause else str(err)
            return ModelError(
                self._redact(f"Claude API connection error ({self._limits()}): {detail}"),
                error_type="connection_error",
                retryable=True,
            )
        if isinstance(err, anthropic.APIResponseValidationError):
            return ModelError(
                self._redact(f"Claude API returned an invalid response ({err.status_code})"),
                status=int(err.status_code),
                error_type="malformed_response",
            )
        return None

    def _status_error(self, err: Any) -> ModelError:
        """An HTTP error status (`anthropic.APIStatusError`): its status, type and message,
        retryable as the API's `x-should-retry` header says (else 408, 409, 429 and 5xx)."""
        status = int(err.status_code)
        kind = getattr(err, "type", None) or _body_field(err.body, "type") or "error"
        text = getattr(err, "api_message", None) or _body_field(err.body, "message")
        text = text or err.response.reason_phrase or "no message"
        should = err.response.headers.get("x-should-retry")
        retryable = (
            should == "true"
            if should in ("true", "false")
            else (status in (408, 409, 429) or status >= 500)
        )
        return ModelError(
            self._redact(f"Claude API error {status} {kind}: {text}"),
            status=status,
            error_type=str(kind),
            retryable=retryable,
            request_id=err.response.headers.get("request-id"),
            error_code=getattr(err, "error_code", None),
        )


def _body_field(body: Any, name: str) -> str | None:
    if isinstance(body, dict):
        inner = body.get("error")
        if isinstance(inner, dict) and isinstance(inner.get(name), str):
            return inner[name]
    return None


def _make_client(
    model: str, api_key: str | None, base_url: str | None, max_retries: int, timeout: float
) -> Any:
    hint = (
        f"Set ANTHROPIC_API_KEY (or pass api_key=...) to use {model}; "
        "the simulated model needs no key."
    )
    try:
        import anthropic
    except ImportError as err:
        raise ImportError(
            "The Claude model needs the anthropic package: pip install 'jupyter-compaction[claude]'"
        ) from err
    try:
        client = anthropic.Anthropic(
            api_key=api_key, base_url=base_url, max_retries=max_retries, timeout=timeout
        )
    except anthropic.AnthropicError as err:  # e.g. a broken credentials profile on disk
        raise MissingAPIKey(hint) from err
    has_credential = (
        getattr(client, "api_key", None)
        or getattr(client, "auth_token", None)
        or getattr(client, "credentials", None)
    )
    if not has_credential:
        client.close()
        raise MissingAPIKey(hint)
    return client
