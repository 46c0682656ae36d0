"""Local and compatible servers (Ollama, llama.cpp, vLLM) through the local fake API in its
`compatible` mode: no cache usage, no betas, no count_tokens, malformed tool arguments."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

from tests.support.needs import NEEDS_ANTHROPIC

pytestmark = NEEDS_ANTHROPIC

from jupyter_compaction import runner, scenarios  # noqa: E402
from jupyter_compaction.agent import Agent  # noqa: E402
from jupyter_compaction.api_context import clear_thinking_edit  # noqa: E402
from jupyter_compaction.cli import main  # noqa: E402
from jupyter_compaction.events import ToolReturned  # noqa: E402
from jupyter_compaction.models.anthropic import ModelError  # noqa: E402
from jupyter_compaction.models.compatible import (  # noqa: E402
    CompatibilityWarning,
    CompatibleModel,
    compatible_model,
)
from tests.support.fake_messages_api import FakeMessagesAPI, scenario_responder  # noqa: E402

README = Path(__file__).resolve().parents[2] / "README.md"


@pytest.fixture
def server():
    with FakeMessagesAPI(scenario_responder(), compatible=True) as api:
        yield api


def play(api, tmp_path, **knobs):
    spec = scenarios.load("logistics")
    workspace = spec.prepare(tmp_path / "ws")
    model = compatible_model("qwen3", base_url=api.base_url,
                             edits=knobs.pop("edits", ()))
    agent = Agent(model, tools=spec.tools(workspace), workspace=workspace, **knobs)
    run = agent.run(spec.task)
    return run, spec.outcome(run, workspace)


def readme_commands() -> list[list[str]]:
    section = README.read_text().split("## A local model instead of Claude")[1].split("\n## ")[0]
    return [line.split()[1:] for line in re.findall(r"^jupyter-compaction demo .+$", section,
                                                    re.M)]


def test_the_readmes_commands_run_against_a_compatible_server(server, monkeypatch, capsys):
    commands = readme_commands()
    assert len(commands) == 2
    monkeypatch.setenv("OLLAMA_HOST", server.base_url)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    for argv in commands:
        argv = [server.base_url if a.startswith("http://127.0.0.1") else a for a in argv]
        assert main(argv) == 0, capsys.readouterr()
        assert "outcome              correct" in capsys.readouterr().out
    assert server.refusals == []
    assert {r["body"]["model"] for r in server.message_requests} == {"qwen3"}


def test_usage_without_cache_fields_counts_as_no_cache(server, tmp_path):
    run, outcome = play(server, tmp_path, budget=100_000)
    assert outcome == "correct"
    assert all(u.input_tokens > 0 and u.cache_read_input_tokens == 0
               and u.cache_creation_input_tokens == 0 for u in run.usage)


def test_refused_betas_are_dropped_and_reported_once(server, tmp_path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run, outcome = play(server, tmp_path, budget=100_000, memory=True,
                            edits=[clear_thinking_edit()])
    notes = [w for w in caught if issubclass(w.category, CompatibilityWarning)]
    assert len(notes) == 1 and "\n" not in str(notes[0].message)
    assert "context-management betas" in str(notes[0].message)
    assert outcome == "correct" and len(server.refusals) == 1
    later = server.message_requests[1:]
    assert all("anthropic-beta" not in r["headers"] for r in later)
    assert any(t["name"] == "memory" and "input_schema" in t for t in later[0]["body"]["tools"])


def test_malformed_arguments_get_one_more_try(tmp_path):
    with FakeMessagesAPI(scenario_responder(), compatible=True, malformed_at=(1,)) as api:
        run, outcome = play(api, tmp_path, budget=100_000)
    assert outcome == "correct"
    assert not [e for e in run.of(ToolReturned) if e.is_error]
    assert len(api.message_requests) == len(run.usage) + 1  # the retried call


def test_malformed_twice_is_a_clear_tool_error(tmp_path):
    with FakeMessagesAPI(scenario_responder(), compatible=True, malformed_at=(1, 2)) as api:
        run, _ = play(api, tmp_path, budget=100_000)
    errors = [e for e in run.of(ToolReturned) if e.is_error]
    assert errors and run.status == "finished"
    result = next(b for m in run.transcript if m["role"] == "user"
                  and isinstance(m["content"], list) for b in m["content"]
                  if b.get("type") == "tool_result" and b.get("is_error"))
    assert "missing a required argument" in result["content"]


def test_no_count_tokens_is_one_line(server):
    model = compatible_model("qwen3", base_url=server.base_url)
    with pytest.raises(ModelError, match="404") as err:
        model.count_tokens(system="s", messages=[{"role": "user", "content": "hi"}], tools=[])
    assert "\n" not in str(err.value)


def test_names_and_urls():
    assert isinstance(runner.make_model("ollama:qwen3", "logistics"), CompatibleModel)
    assert compatible_model("qwen3", base_url="127.0.0.1:8080").base_url == (
        "http://127.0.0.1:8080")
    with pytest.raises(ValueError, match="needs a model name and a base URL"):
        compatible_model("", base_url="http://127.0.0.1:8080")
    assert main(["demo", "--base-url", "http://127.0.0.1:9"]) == 2
