"""The simulated model decides only from what its request shows."""

from jupyter_compaction import scenarios
from jupyter_compaction.models.simulated import SimulatedModel
from jupyter_compaction.strategies.clear import PLACEHOLDER
from jupyter_compaction.summaries import ASSISTANT_PREFIX, build_prompt
from jupyter_compaction.task_state import TaskState

SCENARIO = scenarios.load("agents")


def request(model, messages, system="", tools=("read_file", "list_files")):
    schemas = [{"name": t, "description": "", "input_schema": {"type": "object"}}
               for t in tools]
    return model.create(system=system, messages=messages, tools=schemas, max_tokens=512)


def history_through(model, workspace, n_steps):
    """Play the first `n_steps` steps by hand, returning the messages."""
    tools = {fn.__name__: fn for fn in SCENARIO.tools(workspace)}
    messages = [{"role": "user", "content": SCENARIO.task}]
    for _ in range(n_steps):
        reply = request(model, messages)
        messages.append(reply.as_message())
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": b["id"],
             "content": tools[b["name"]](**b["input"])} for b in reply.tool_uses]})
    return messages


def test_plans_with_task_state_tools_when_offered():
    reply = request(SimulatedModel("agents"), [{"role": "user", "content": "go"}],
                    tools=("read_file", "todo_write", "task_set_goal"))
    names = [b["name"] for b in reply.tool_uses]
    assert names == ["task_set_goal", "todo_write"]
    assert len(reply.tool_uses[1]["input"]["todos"]) == len(SCENARIO.steps)


def test_follows_steps_in_order_and_answers_when_all_findings_are_visible(tmp_path):
    model = SimulatedModel("agents")
    messages = history_through(model, SCENARIO.prepare(tmp_path), len(SCENARIO.steps))
    final = request(model, messages)
    assert final.stop_reason == "end_turn" and final.text == SCENARIO.expected_answer


def test_rereads_a_step_whose_finding_was_cleared(tmp_path):
    model = SimulatedModel("agents")
    messages = history_through(model, SCENARIO.prepare(tmp_path), len(SCENARIO.steps))
    # clear every tool result and every assistant note: the findings are gone
    stripped = [messages[0]] + [
        {"role": m["role"], "content": [
            {**b, "content": PLACEHOLDER} if b.get("type") == "tool_result" else
            ({"type": "text", "text": "ok"} if b.get("type") == "text" else b)
            for b in m["content"]]}
        for m in messages[1:]]
    reply = request(model, stripped)
    assert reply.tool_uses and reply.tool_uses[0]["name"] == "list_files"


def test_task_state_notes_make_cleared_findings_visible(tmp_path):
    state = TaskState(goal="find tables")
    state.write([{"subject": s.label, "status": "completed", "note": s.fact}
                 for s in SCENARIO.steps])
    reply = request(SimulatedModel("agents"), [{"role": "user", "content": SCENARIO.task}],
                    system=state.render())
    assert reply.text == SCENARIO.expected_answer


def test_assistant_summary_counts_as_done_but_user_summary_does_not():
    lines = "\n".join(f"- [done] {s.label}: {s.fact}" for s in SCENARIO.steps)
    summary = f"## Goal\nx\n## Progress\n{lines}"
    task = {"role": "user", "content": SCENARIO.task}
    own = request(SimulatedModel("agents"), [task, {"role": "assistant", "content": [
        {"type": "text", "text": f"{ASSISTANT_PREFIX}\n\n{summary}"}]},
        {"role": "user", "content": "continue"}])
    assert own.text == SCENARIO.expected_answer
    told = request(SimulatedModel("agents"), [
        task, {"role": "assistant", "content": "ok"},
        {"role": "user", "content": f"Progress so far (a summary of earlier turns):\n\n{summary}"}])
    assert told.tool_uses, "a user-role summary is a request, not the model's own record"


def test_summary_is_structured_capped_and_erodes(tmp_path):
    model = SimulatedModel("agents", summary_words=120)
    messages = history_through(model, SCENARIO.prepare(tmp_path), len(SCENARIO.steps))
    first = request(model, [{"role": "user", "content": build_prompt(messages[1:])}]).text
    for section in ("## Goal", "## Progress", "## Key Decisions", "## Files Modified",
                    "## Next Steps"):
        assert section in first
    assert len(first.split()) <= 120
    kept_first = sum(s.visible_in(first) for s in SCENARIO.steps)
    assert 0 < kept_first < len(SCENARIO.steps)
    again = request(model, [{"role": "user", "content": build_prompt(
        messages[-4:], previous=first)}]).text
    assert sum(s.visible_in(again) for s in SCENARIO.steps) <= kept_first


def test_usage_is_counted_and_caching_reads_the_shared_prefix(tmp_path):
    model = SimulatedModel("agents")
    messages = history_through(model, SCENARIO.prepare(tmp_path), 3)
    first = request(model, messages)
    messages = [*messages, first.as_message(), {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": b["id"], "content": "x"}
        for b in first.tool_uses]}]
    second = request(model, messages)
    assert second.usage.cache_read_input_tokens > 0
    assert second.usage.total_input == model.counter.count(
        messages, "", [{"name": t, "description": "", "input_schema": {"type": "object"}}
                       for t in ("read_file", "list_files")])
    plain = SimulatedModel("agents", cache=False)
    assert request(plain, messages).usage.cache_read_input_tokens == 0


def test_the_per_call_cache_flag_wins_over_the_models_default():
    model = SimulatedModel("agents", cache=True)
    request = {"system": "s", "messages": [{"role": "user", "content": "hi"}], "tools": [],
               "max_tokens": 64}
    model.create(**request)
    assert model.create(**request).usage.cache_read_input_tokens > 0  # default: cached
    off = model.create(**request, cache=False).usage
    assert off.cache_read_input_tokens == off.cache_creation_input_tokens == 0
    on = SimulatedModel("agents", cache=False).create(**request, cache=True).usage
    assert on.cache_creation_input_tokens > 0
