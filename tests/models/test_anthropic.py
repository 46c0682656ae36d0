"""The real Claude adapter, driven through the real `anthropic` SDK against a local fake API.

Nothing here touches the network: every client points at `FakeMessagesAPI` on 127.0.0.1.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.support.needs import NEEDS_ANTHROPIC

pytestmark = NEEDS_ANTHROPIC

from jupyter_compaction.models.anthropic import (  # noqa: E402
    AnthropicModel,
    MissingAPIKey,
    ModelError,
    to_reply,
)
from jupyter_compaction.models.base import Model, Reply, Usage  # noqa: E402
from tests.support.fake_messages_api import (  # noqa: E402
    FakeMessagesAPI,
    Fault,
    approx_tokens,
    model_responder,
    validate_request,
)

KEY = "sk-ant-test-MARKER123"
MARKER = "MARKER123"
REPO = Path(__file__).resolve().parents[2]
SYSTEM = "You are a logistics assistant. Answer with the waybill number."
TOOLS = [
    {
        "name": "lookup_order",
        "description": "Look up an order by id.",
        "input_schema": {
            "type": "object",
            "properties": {"order_id": {"type": "string"}},
            "required": ["order_id"],
        },
    },
    {
        "name": "read_file",
        "description": "Read a file from the workspace.",
        "input_schema": {
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
        },
    },
]
QUESTION = {"role": "user", "content": "Which waybill is order ORD-1042 on?"}
TOOL_CALL = {
    "type": "tool_use",
    "id": "toolu_01A",
    "name": "lookup_order",
    "input": {"order_id": "ORD-1042"},
}
ANSWER = "ORD-1042 ships on waybill VD-88317."


class ScriptedModel:
    """A tiny `Model`: calls `lookup_order` until it sees a tool result, then answers."""

    name = "scripted"

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def create(
        self,
        *,
        system: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        max_tokens: int,
        cache: bool = False,
    ) -> Reply:
        self.calls.append({"system": system, "messages": messages, "tools": tools, "cache": cache})
        last = messages[-1]["content"]
        answered = isinstance(last, list) and any(b.get("type") == "tool_result" for b in last)
        if not answered:
            return Reply(
                content=[{"type": "text", "text": "Let me look that up."}, dict(TOOL_CALL)],
                stop_reason="tool_use",
                usage=Usage(output_tokens=21),
            )
        return Reply(content=[{"type": "text", "text": ANSWER}], usage=Usage(output_tokens=9))


def claude(fake: FakeMessagesAPI, **kwargs: Any) -> AnthropicModel:
    options: dict[str, Any] = {"max_retries": 2, "timeout": 5.0}
    options.update(kwargs)
    return AnthropicModel(api_key=KEY, base_url=fake.base_url, **options)


def ask(model: AnthropicModel, messages: list[dict[str, Any]] | None = None, **kwargs: Any):
    return model.create(
        system=SYSTEM, messages=messages or [QUESTION], tools=TOOLS, max_tokens=256, **kwargs
    )


def tool_round(result: str = "waybill VD-88317") -> list[dict[str, Any]]:
    return [
        QUESTION,
        {"role": "assistant", "content": [{"type": "text", "text": "Looking."}, TOOL_CALL]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_01A", "content": result}],
        },
    ]


def assert_one_line(err: BaseException) -> None:
    text = str(err)
    assert text and "\n" not in text and "\r" not in text
    assert MARKER not in text and MARKER not in repr(err)


@pytest.fixture
def fake():
    with FakeMessagesAPI() as api:
        yield api


@pytest.fixture
def scripted_fake():
    scripted = ScriptedModel()
    with FakeMessagesAPI(model_responder(scripted)) as api:
        api.scripted = scripted  # type: ignore[attr-defined]
        yield api


# -- replies -------------------------------------------------------------------------------


def test_is_a_model_and_repr_hides_the_key(fake):
    model = claude(fake)
    assert isinstance(model, Model)
    assert model.name == "claude-haiku-4-5"
    assert repr(model) == "AnthropicModel(model='claude-haiku-4-5', cache=True)"
    ask(model)  # the client exists now; still nothing in repr
    assert MARKER not in repr(model) and MARKER not in str(model)


def test_text_reply(fake):
    reply = ask(claude(fake))
    assert reply.content == [{"type": "text", "text": "Hello from the fake Messages API."}]
    assert reply.text == "Hello from the fake Messages API."
    assert reply.stop_reason == "end_turn"
    assert reply.model == "claude-haiku-4-5"
    assert reply.usage.output_tokens > 0 and reply.usage.total_input > 0
    (request,) = fake.message_requests
    assert request["auth"] is not None and request["headers"]["anthropic-version"]
    assert request["body"]["model"] == "claude-haiku-4-5"
    assert request["body"]["max_tokens"] == 256


def test_tool_use_then_text(scripted_fake):
    model = claude(scripted_fake)
    history = [QUESTION]
    first = ask(model, history)
    assert first.stop_reason == "tool_use"
    assert first.tool_uses == [TOOL_CALL]
    assert first.content[0] == {"type": "text", "text": "Let me look that up."}

    history = history + [
        first.as_message(),
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_01A", "content": "VD-88317"}],
        },
    ]
    second = ask(model, history)
    assert second.stop_reason == "end_turn"
    assert second.text == ANSWER and second.tool_uses == []

    calls = scripted_fake.scripted.calls
    assert [c["system"] for c in calls] == [SYSTEM, SYSTEM]
    assert calls[1]["messages"] == history  # what the model saw: our history, no markers
    assert calls[1]["tools"] == TOOLS and calls[1]["cache"] is True
    assert "cache_control" not in json.dumps(calls)


def test_usage_fields_are_mapped(scripted_fake):
    reply = ask(claude(scripted_fake))
    sent = scripted_fake.message_requests[-1]["response"]["usage"]
    assert reply.usage.to_dict() == {
        "input_tokens": sent["input_tokens"],
        "output_tokens": sent["output_tokens"],
        "cache_creation_input_tokens": sent["cache_creation_input_tokens"],
        "cache_read_input_tokens": sent["cache_read_input_tokens"],
    }
    assert reply.usage.output_tokens == 21  # the responder's own count is kept


def test_missing_cache_counts_become_zero():
    from anthropic.types import Message

    message = Message.model_validate(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-haiku-4-5",
            "content": [{"type": "tool_use", "id": "toolu_9", "name": "f", "input": {"a": [1]}}],
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": {
                "input_tokens": 12,
                "output_tokens": 3,
                "cache_creation_input_tokens": None,
                "cache_read_input_tokens": None,
            },
        }
    )
    reply = to_reply(message)
    assert reply.usage == Usage(input_tokens=12, output_tokens=3)
    assert reply.content == [
        {"type": "tool_use", "id": "toolu_9", "name": "f", "input": {"a": [1]}}
    ]
    assert isinstance(reply.content[0]["input"], dict)


# -- prompt caching --------------------------------------------------------------------------


def test_cache_markers_and_the_callers_messages_are_untouched(fake):
    history = tool_round()
    tools = copy.deepcopy(TOOLS)
    before = (copy.deepcopy(history), copy.deepcopy(tools))
    claude(fake).create(system=SYSTEM, messages=history, tools=tools, max_tokens=64)
    assert (history, tools) == before  # not mutated, not even the last block

    body = fake.message_requests[-1]["body"]
    ephemeral = {"type": "ephemeral"}
    assert body["system"] == [{"type": "text", "text": SYSTEM, "cache_control": ephemeral}]
    assert body["tools"][-1]["cache_control"] == ephemeral
    assert all("cache_control" not in t for t in body["tools"][:-1])
    assert body["messages"][-1]["content"][-1]["cache_control"] == ephemeral
    assert json.dumps(body).count("cache_control") == 3


def test_a_string_last_message_becomes_a_marked_block(fake):
    ask(claude(fake), [QUESTION])
    body = fake.message_requests[-1]["body"]
    assert body["messages"] == [
        {
            "role": "user",
            "content": [
                {
                    "type": "text",
                    "text": QUESTION["content"],
                    "cache_control": {"type": "ephemeral"},
                }
            ],
        }
    ]
    assert QUESTION["content"] == "Which waybill is order ORD-1042 on?"


def test_no_markers_when_caching_is_off(fake):
    model = claude(fake, cache=False)
    ask(model, tool_round())
    body = fake.message_requests[-1]["body"]
    assert body["system"] == SYSTEM
    assert "cache_control" not in json.dumps(body)
    ask(model, tool_round(), cache=True)  # the per-call flag turns it on
    assert json.dumps(fake.message_requests[-1]["body"]).count("cache_control") == 3


def test_a_second_request_reads_the_cached_prefix(scripted_fake):
    model = claude(scripted_fake)
    first = ask(model, [QUESTION])
    assert first.usage.cache_read_input_tokens == 0
    assert first.usage.cache_creation_input_tokens > 0

    history = [QUESTION, first.as_message()]
    history.append(
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_01A", "content": "VD-88317"}],
        }
    )
    second = ask(model, history)
    assert second.usage.cache_read_input_tokens > 0
    # everything the first request sent is the prefix the second one reads back
    assert second.usage.cache_read_input_tokens == first.usage.total_input
    assert second.usage.cache_creation_input_tokens > 0


def test_the_same_request_twice_is_read_entirely_from_the_cache(fake):
    model = claude(fake)
    first = ask(model)
    again = ask(model)
    assert again.usage.cache_read_input_tokens == first.usage.total_input
    assert again.usage.cache_creation_input_tokens == 0


def test_internal_keys_are_stripped_before_sending(fake):
    history = tool_round()
    history[0] = {**QUESTION, "id": "m0", "tokens": 12}
    history[1] = {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Looking.", "_turn": 1},
            {**TOOL_CALL, "_elapsed": 0.2},
        ],
    }
    history[2]["content"][0]["_cleared"] = False
    tools = [{**TOOLS[0], "_source": "tools.py"}, TOOLS[1]]
    reply = claude(fake).create(system=SYSTEM, messages=history, tools=tools, max_tokens=64)
    assert reply.text  # the fake rejects extra keys, as the real API does
    body = json.dumps(fake.message_requests[-1]["body"])
    for key in ("_turn", "_elapsed", "_cleared", "_source", '"tokens"', '"id": "m0"'):
        assert key not in body
    assert history[1]["content"][0]["_turn"] == 1  # the caller keeps its own keys


# -- invalid histories -------------------------------------------------------------------------

INVALID = {
    "orphan tool_result": (
        [
            QUESTION,
            {"role": "assistant", "content": "Done."},
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_X", "content": "x"}],
            },
        ],
        "messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_X",
    ),
    "unanswered tool_use": (
        [
            QUESTION,
            {"role": "assistant", "content": [TOOL_CALL]},
            {"role": "user", "content": "thanks"},
        ],
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: "
        "toolu_01A",
    ),
    "two user messages in a row": (
        [QUESTION, {"role": "user", "content": "Please hurry."}],
        'roles must alternate between "user" and "assistant"',
    ),
    "first message from the assistant": (
        [{"role": "assistant", "content": "Hi!"}, QUESTION],
        'messages: first message must use the "user" role',
    ),
    "duplicate tool_use ids": (
        [
            QUESTION,
            {"role": "assistant", "content": [TOOL_CALL, TOOL_CALL]},
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_01A", "content": "x"}],
            },
        ],
        "messages.1.content.1: `tool_use` ids must be unique",
    ),
}


@pytest.mark.parametrize("case", list(INVALID))
def test_invalid_histories_are_a_400(fake, case):
    messages, expected = INVALID[case]
    with pytest.raises(ModelError) as info:
        ask(claude(fake), messages)
    err = info.value
    assert_one_line(err)
    assert err.status == 400 and err.error_type == "invalid_request_error"
    assert not err.retryable
    assert str(err).startswith("Claude API error 400 invalid_request_error: ")
    assert expected in str(err)
    assert len(fake.message_requests) == 1  # a 400 is not retried
    assert err.__cause__ is not None and type(err.__cause__).__name__ == "BadRequestError"


# -- faults and retries ------------------------------------------------------------------------

TRANSIENT = ["429", "529", "500", "timeout", "disconnect"]


@pytest.mark.parametrize("kind", TRANSIENT)
def test_a_transient_fault_is_retried_by_the_sdk(fake, kind):
    fake.faults.append(Fault(kind))
    reply = ask(claude(fake, max_retries=2, timeout=0.5))
    assert reply.text
    assert fake.fired == [(0, kind)]
    first, second = fake.message_requests
    assert first["fault"] == kind and second["fault"] is None
    assert second["headers"]["x-stainless-retry-count"] == "1"


EXPECTED = {  # kind: (status, error_type, retryable)
    "429": (429, "rate_limit_error", True),
    "529": (529, "overloaded_error", True),
    "500": (500, "api_error", True),
    "timeout": (None, "timeout", True),
    "disconnect": (None, "connection_error", True),
    "400": (400, "invalid_request_error", False),
    "malformed": (None, "malformed_response", False),
}


@pytest.mark.parametrize("kind", list(EXPECTED))
def test_a_fault_without_retries_is_one_model_error(fake, kind):
    fake.faults.append(Fault(kind))
    with pytest.raises(ModelError) as info:
        ask(claude(fake, max_retries=0, timeout=0.5))
    err = info.value
    assert_one_line(err)
    assert (err.status, err.error_type, err.retryable) == EXPECTED[kind]
    assert err.__cause__ is not None
    assert len(fake.message_requests) == 1


@pytest.mark.parametrize("kind", ["400", "malformed"])
def test_permanent_faults_are_not_retried(fake, kind):
    fake.faults.append(Fault(kind))
    with pytest.raises(ModelError):
        ask(claude(fake, max_retries=2, timeout=0.5))
    assert len(fake.message_requests) == 1


def test_a_fault_can_target_a_later_request(fake):
    fake.faults.append(Fault("529", at=1))
    model = claude(fake, max_retries=0)
    ask(model)
    with pytest.raises(ModelError) as info:
        ask(model)
    assert info.value.status == 529
    ask(model)
    assert fake.fired == [(1, "529")] and fake.faults == []


def test_the_key_never_leaks(fake):
    model = claude(fake, max_retries=0, timeout=0.5)
    errors: list[ModelError] = []
    for kind in EXPECTED:
        fake.faults.append(Fault(kind))
        with pytest.raises(ModelError) as info:
            ask(model)
        errors.append(info.value)
    with pytest.raises(ModelError) as info:
        ask(model, INVALID["orphan tool_result"][0])
    errors.append(info.value)
    for err in errors:
        assert MARKER not in str(err) and MARKER not in repr(err)
        assert all(MARKER not in str(arg) for arg in err.args)
    reply = ask(model)
    assert MARKER not in repr(reply) and MARKER not in json.dumps(reply.content)
    assert MARKER not in repr(model)
    assert MARKER not in json.dumps(fake.requests)  # the fake does not keep keys either
    assert {r["auth"] for r in fake.requests} <= {"x-api-key", "bearer"}


def test_a_key_echoed_by_the_server_is_redacted(fake):
    # The key happens to be a valid tool id, so the fake's 400 message repeats it verbatim.
    orphan = [{"type": "tool_result", "tool_use_id": KEY, "content": "x"}]
    with pytest.raises(ModelError) as info:
        ask(
            claude(fake),
            [QUESTION, {"role": "assistant", "content": "ok"}, {"role": "user", "content": orphan}],
        )
    assert KEY in fake.message_requests[-1]["response"]["error"]["message"]
    assert "[redacted]" in str(info.value)
    assert_one_line(info.value)


def test_a_client_can_be_passed_in(fake):
    import anthropic

    client = anthropic.Anthropic(api_key=KEY, base_url=fake.base_url, max_retries=0)
    model = AnthropicModel("claude-sonnet-4-6", client=client, cache=False)
    assert model.client is client
    assert ask(model).model == "claude-sonnet-4-6"
    fake.faults.append(Fault("disconnect"))
    with pytest.raises(ModelError, match="0 retries") as info:
        ask(model)
    assert info.value.retryable


# -- token counting and keys ----------------------------------------------------------------------


def test_count_tokens_is_the_fakes_count(fake):
    model = claude(fake)
    history = tool_round()
    n = model.count_tokens(system=SYSTEM, messages=history, tools=TOOLS)
    request = fake.requests[-1]
    assert request["path"] == "/v1/messages/count_tokens"
    assert "cache_control" not in json.dumps(request["body"])
    assert n == approx_tokens(request["body"]) == request["response"]["input_tokens"]
    reply = model.create(system=SYSTEM, messages=history, tools=TOOLS, max_tokens=64)
    assert reply.usage.total_input == n  # markers do not change the count


def test_count_tokens_rejects_an_invalid_history(fake):
    with pytest.raises(ModelError) as info:
        claude(fake).count_tokens(
            system=SYSTEM, messages=INVALID["orphan tool_result"][0], tools=TOOLS
        )
    assert info.value.status == 400
    assert_one_line(info.value)


def _no_credentials(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    for name in (
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "ANTHROPIC_PROFILE",
        "ANTHROPIC_CONFIG_DIR",
        "ANTHROPIC_FEDERATION_RULE_ID",
        "ANTHROPIC_ORGANIZATION_ID",
        "ANTHROPIC_IDENTITY_TOKEN",
        "ANTHROPIC_IDENTITY_TOKEN_FILE",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))  # no credentials profile on disk either


def test_missing_key_is_one_clear_line(fake, monkeypatch, tmp_path):
    _no_credentials(monkeypatch, tmp_path)
    model = AnthropicModel(base_url=fake.base_url)  # constructing needs no key
    with pytest.raises(MissingAPIKey) as info:
        ask(model)
    assert str(info.value) == (
        "Set ANTHROPIC_API_KEY (or pass api_key=...) to use claude-haiku-4-5; "
        "the simulated model needs no key."
    )
    with pytest.raises(MissingAPIKey):
        model.count_tokens(system=SYSTEM, messages=[QUESTION], tools=[])
    assert fake.requests == []


def test_the_sdk_reads_the_key_from_the_environment(fake, monkeypatch, tmp_path):
    _no_credentials(monkeypatch, tmp_path)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    model = AnthropicModel(base_url=fake.base_url, max_retries=0)
    assert ask(model).text
    assert fake.requests[-1]["auth"] is not None
    fake.faults.append(Fault("500"))
    with pytest.raises(ModelError) as info:
        ask(model)
    assert MARKER not in str(info.value) and MARKER not in repr(model)


def test_importing_the_module_does_not_import_the_sdk():
    code = (
        "import sys, jupyter_compaction.models.anthropic as m; "
        "m.AnthropicModel(); print('anthropic' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"


# -- the fake itself ---------------------------------------------------------------------------


def _post(fake: FakeMessagesAPI, headers: dict[str, str], body: Any) -> tuple[int, dict]:
    request = urllib.request.Request(
        fake.base_url + "/v1/messages",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json", **headers},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_the_fake_requires_a_key_and_a_version(fake, capfd):
    body = {"model": "m", "max_tokens": 5, "messages": [QUESTION]}
    status, answer = _post(fake, {"anthropic-version": "2023-06-01"}, body)
    assert status == 401 and answer["error"]["type"] == "authentication_error"
    status, answer = _post(fake, {"x-api-key": KEY}, body)
    assert status == 400 and "anthropic-version" in answer["error"]["message"]
    status, answer = _post(fake, {"x-api-key": KEY, "anthropic-version": "2023-06-01"}, body)
    assert status == 200 and answer["type"] == "message"
    assert answer["usage"]["input_tokens"] == approx_tokens(body)
    assert fake.requests[-1]["auth"] == "x-api-key"
    assert MARKER not in json.dumps(fake.requests)
    assert capfd.readouterr().err == ""  # quiet: no request log


def _body(**overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"model": "m", "max_tokens": 5, "messages": [QUESTION]}
    body.update(overrides)
    return body


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"model": "m", "messages": [QUESTION]}, "max_tokens: Field required"),
        (_body(max_tokens="5"), "max_tokens: Input should be a valid integer"),
        (_body(max_tokens=0), "max_tokens: Input should be greater than or equal to 1"),
        (_body(messages=[]), "messages: at least one message is required"),
        (
            _body(messages=[{"role": "user", "content": [{"type": "bogus"}]}]),
            "messages.0.content.0.type: Input tag 'bogus'",
        ),
        (
            _body(messages=[{"role": "user", "content": [{"type": "text", "text": "a", "x": 1}]}]),
            "messages.0.content.0.x: Extra inputs are not permitted",
        ),
        (
            _body(messages=[{"role": "user", "content": [TOOL_CALL]}]),
            "can only appear in `assistant` messages",
        ),
        (_body(messages=[{"role": "user", "content": ""}]), "must have non-empty content"),
        (
            _body(
                messages=[
                    {
                        "role": "user",
                        "content": [
                            {"type": "text", "text": str(i), "cache_control": {"type": "ephemeral"}}
                            for i in range(5)
                        ],
                    }
                ]
            ),
            "A maximum of 4 blocks with cache_control may be provided. Found 5.",
        ),
        (_body(tools=[{"name": "bad name!", "input_schema": {}}]), "String should match pattern"),
    ],
)
def test_the_fake_rejects_what_the_api_rejects(body, expected):
    problem = validate_request(body)
    assert problem is not None and expected in problem


def test_the_fake_accepts_both_system_forms_and_cache_markers():
    marked = {"type": "ephemeral"}
    assert validate_request(_body(system="plain")) is None
    marked_system = [{"type": "text", "text": "s", "cache_control": marked}]
    assert validate_request(_body(system=marked_system)) is None
    assert (
        validate_request(
            _body(
                system=[{"type": "text", "text": "s", "cache_control": marked}],
                tools=[{**TOOLS[0], "cache_control": marked}],
                messages=tool_round(),
            )
        )
        is None
    )
    assert validate_request({"model": "m", "messages": [QUESTION]}, count_tokens=True) is None
    assert validate_request(_body(messages=tool_round(), tools=TOOLS)) is None


def test_fault_kinds_are_checked():
    with pytest.raises(ValueError, match="unknown fault kind"):
        Fault("503")


# -- the per-call cache flag and the tools rule (issue 11) ------------------------------------


def test_a_per_call_cache_false_wins_over_the_models_default(fake):
    model = claude(fake)  # cache=True by default
    ask(model, tool_round(), cache=False)
    assert "cache_control" not in json.dumps(fake.message_requests[-1]["body"])
    ask(model, tool_round())  # no per-call flag: the model's own default
    assert json.dumps(fake.message_requests[-1]["body"]).count("cache_control") == 3


def test_the_fake_refuses_tool_blocks_without_tools():
    body = {"model": "m", "max_tokens": 5, "messages": tool_round()}
    assert "must define tools" in validate_request(body)
    assert validate_request({**body, "tools": TOOLS}) is None
    assert validate_request({**body, "messages": [QUESTION]}) is None  # no tool blocks: fine


def test_tool_blocks_without_tools_are_refused_unsent(fake):
    with pytest.raises(ModelError, match="must define tools") as info:
        claude(fake).create(system=SYSTEM, messages=tool_round(), tools=[], max_tokens=5)
    assert_one_line(info.value)
    assert "tools=" in str(info.value) and fake.message_requests == []
    with pytest.raises(ModelError, match="must define tools"):
        claude(fake).count_tokens(system=SYSTEM, messages=tool_round(), tools=[])
    assert fake.requests == []


def test_the_sdk_gets_the_fakes_400_for_tool_blocks_without_tools(fake):
    import anthropic

    client = anthropic.Anthropic(api_key=KEY, base_url=fake.base_url, max_retries=0)
    with pytest.raises(anthropic.BadRequestError, match="must define tools"):
        client.messages.create(model="m", max_tokens=5, messages=tool_round())


def test_images_and_documents_reach_the_api_as_sent(fake):
    from tests.support.histories import pdf, png

    shot = {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                        "data": png(64, 64)}}
    doc = {"type": "document", "title": "spec.pdf", "source": {
        "type": "base64", "media_type": "application/pdf", "data": pdf(2)}}
    history = tool_round()
    history[2] = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01A",
                                               "content": [{"type": "text", "text": "x"}, shot]}]}
    history.append({"role": "assistant", "content": "Here is the spec."})
    history.append({"role": "user", "content": [doc, {"type": "text", "text": "Read it."}]})
    assert ask(claude(fake, cache=False), history).text
    sent = fake.message_requests[-1]["body"]["messages"]
    assert sent[2]["content"][0]["content"][1] == shot and sent[4]["content"][0] == doc


# -- the memory tool -------------------------------------------------------------------------


def test_the_memory_tool_is_sent_as_the_apis_own_and_run_by_the_agent(tmp_path):
    from jupyter_compaction import scenarios
    from jupyter_compaction.agent import Agent
    from jupyter_compaction.models.simulated import SimulatedModel

    spec = scenarios.load("logistics")
    workspace = spec.prepare(tmp_path / "ws")
    with FakeMessagesAPI(model_responder(SimulatedModel("logistics"))) as api:
        agent = Agent(claude(api), tools=spec.tools(workspace), workspace=workspace,
                      task_state=False, memory=True, budget=100_000)
        run = agent.run(spec.task)
        first = api.message_requests[0]
        counted = agent.model.count_tokens(system="s", messages=[QUESTION],
                                           tools=agent._toolbox(run).schemas)
    native = [t for t in first["body"]["tools"] if t.get("name") == "memory"]
    assert [(t["type"], set(t) - {"cache_control"}) for t in native] == [
        ("memory_20250818", {"type", "name"})]
    assert "context-management-2025-06-27" in first["headers"]["anthropic-beta"]
    assert spec.outcome(run, workspace) == "correct"
    assert "waybill = " in (agent.memory.root / "findings.md").read_text()
    assert counted > 0 and api.refusals == []
