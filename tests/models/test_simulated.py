"""The simulated model decides, writes arguments, answers and summarizes from its request."""

import pytest

from jupyter_compaction import scenarios
from jupyter_compaction.models.simulated import SimulatedModel
from jupyter_compaction.summaries import build_prompt, summary_block
from jupyter_compaction.task_state import TaskState
from jupyter_compaction.vocab import PLACEHOLDER, UNKNOWN, USER_PREFIX, call_line

SCENARIO = scenarios.load("agents")
LOGISTICS = scenarios.load("logistics")
FILES = 12


def request(model, messages, system="", tools=("read_file", "list_files"), max_tokens=512):
    schemas = [{"name": t, "description": "", "input_schema": {"type": "object"}}
               for t in tools]
    return model.create(system=system, messages=messages, tools=schemas, max_tokens=max_tokens)


def history_through(model, scenario, workspace, n_steps, tools=("read_file", "list_files")):
    """Let the model play `n_steps` turns with the real tools; the messages."""
    fns = {fn.__name__: fn for fn in scenario.tools(workspace)}
    messages = [{"role": "user", "content": scenario.task}]
    for _ in range(n_steps):
        reply = request(model, messages, tools=tools)
        messages.append(reply.as_message())
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": b["id"],
             "content": fns[b["name"]](**b["input"])} for b in reply.tool_uses]})
    return messages


def logistics_tools():
    return ["get_ticket", "lookup_order", "track_waybill", "get_depot", "lookup_customer",
            "get_policy"]


def test_plans_a_todo_list_of_what_it_can_name_so_far():
    reply = request(SimulatedModel("agents"), [{"role": "user", "content": SCENARIO.task}],
                    tools=("read_file", "list_files", "todo_write", "task_set_goal"))
    names = [b["name"] for b in reply.tool_uses]
    assert names == ["task_set_goal", "todo_write", "list_files"]
    assert [t["subject"] for t in reply.tool_uses[1]["input"]["todos"]] == [
        "list the agents/ folder"]  # the files are not known until the listing is seen


def test_reads_every_listed_file_and_answers_from_what_it_read(tmp_path):
    model = SimulatedModel("agents")
    messages = history_through(model, SCENARIO, SCENARIO.prepare(tmp_path), 1 + FILES)
    final = request(model, messages)
    assert final.stop_reason == "end_turn" and final.text == SCENARIO.expected_answer


def test_the_order_id_comes_from_the_ticket_it_can_see():
    task = {"role": "user", "content": LOGISTICS.task}
    call = {"role": "assistant", "content": [
        {"type": "tool_use", "id": "t1", "name": "get_ticket", "input": {"ticket_id": "TCK-5521"}}]}
    cleared = {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": PLACEHOLDER}]}
    tools = logistics_tools()
    reply = request(SimulatedModel("logistics"), [task, call, cleared], tools=tools)
    assert [(b["name"], b["input"]) for b in reply.tool_uses] == [
        ("get_ticket", {"ticket_id": "TCK-5521"})]  # no ORD-1042 out of nowhere
    shown = {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": '{"order_id": "ORD-7", '
         '"customer_id": "CUS-1", "requested_resolution": "full_refund"}'}]}
    reply = request(SimulatedModel("logistics"), [task, call, shown], tools=tools)
    assert ("lookup_order", {"order_id": "ORD-7"}) in [(b["name"], b["input"])
                                                        for b in reply.tool_uses]


def test_no_tools_offered_means_an_answer_with_what_it_has():
    reply = request(SimulatedModel("logistics"), [{"role": "user", "content": LOGISTICS.task}],
                    tools=())
    assert not reply.tool_uses and reply.stop_reason == "end_turn"
    assert "TCK-5521" in reply.text and UNKNOWN in reply.text
    assert LOGISTICS.grade(reply.text).status == "partial"


def test_max_tokens_caps_the_reply():
    model = SimulatedModel("logistics")
    reply = request(model, [{"role": "user", "content": LOGISTICS.task}], tools=(),
                    max_tokens=5)
    assert reply.stop_reason == "max_tokens" and reply.usage.output_tokens <= 5
    assert not reply.tool_uses


def test_stops_repeating_a_call_that_keeps_failing_the_same_way():
    task = {"role": "user", "content": LOGISTICS.task}
    messages = [task]
    for n in range(2):
        messages += [
            {"role": "assistant", "content": [{"type": "tool_use", "id": f"t{n}",
                                               "name": "get_ticket",
                                               "input": {"ticket_id": "TCK-5521"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{n}",
                                          "content": "ToolError: down", "is_error": True}]}]
    reply = request(SimulatedModel("logistics"), messages, tools=logistics_tools())
    assert not reply.tool_uses and LOGISTICS.grade(reply.text).status == "partial"
    once = request(SimulatedModel("logistics"), messages[:3], tools=logistics_tools())
    assert once.tool_uses  # after one failure it tries again


def test_task_state_notes_are_read_as_facts():
    truth = SCENARIO.truth()
    state = TaskState(goal="find tables")
    state.write([{"subject": "list the agents/ folder", "status": "completed",
                  "note": f"files = {truth['files']}"}] + [
        {"subject": f"read {p}", "status": "completed",
         "note": f"table[{p}] = {truth[f'table[{p}]']}"} for p in truth["files"].split(", ")])
    reply = request(SimulatedModel("agents"), [{"role": "user", "content": SCENARIO.task}],
                    system=state.render(), tools=("read_file", "list_files", "todo_update"))
    assert reply.text == SCENARIO.expected_answer


def test_a_wrong_value_in_a_summary_gives_a_wrong_answer():
    truth = LOGISTICS.truth()
    lines = "\n".join(f"- {k} = {v}" for k, v in {**truth, "slot": "2024-03-18 17:00-20:00"}
                      .items())
    messages = [{"role": "user", "content": LOGISTICS.task},
                {"role": "assistant", "content": [summary_block(f"## Progress\n{lines}")]},
                {"role": "user", "content": "continue"}]
    reply = request(SimulatedModel("logistics"), messages, tools=logistics_tools())
    grade = LOGISTICS.grade(reply.text)
    assert "17:00-20:00" in reply.text and grade.status == "wrong" and "17:00-20:00" in grade.wrong


@pytest.mark.parametrize(("user_summary", "redoes"),
                         [("trust", None), ("redo_last", "lookup_customer"),
                          ("redo_all", "get_ticket")])
def test_user_role_summary_trust_is_an_option(user_summary, redoes):
    truth = LOGISTICS.extracted()  # the facts the model would note
    lines = "\n".join(f"- {k} = {v}" for k, v in truth.items() if k != "ticket")
    messages = [{"role": "user", "content": [{"type": "text", "text": LOGISTICS.task},
                                             summary_block(f"## Progress\n{lines}", "user")]}]
    reply = request(SimulatedModel("logistics", user_summary=user_summary), messages,
                    tools=logistics_tools())
    if redoes is None:
        assert reply.text == LOGISTICS.expected_answer
    else:
        assert [b["name"] for b in reply.tool_uses] == [redoes]
    with pytest.raises(ValueError, match="user_summary must be one of"):
        SimulatedModel("agents", user_summary="maybe")
    assert USER_PREFIX in messages[0]["content"][1]["text"]


def summary_of(model, messages, instructions):
    turns = build_prompt(messages[1:]).split("<turns>", 1)[1]
    return request(model, [{"role": "user", "content": f"{instructions}\n\n<turns>{turns}"}],
                   tools=()).text


def test_a_prompt_written_from_scratch_gets_its_sections_and_length(tmp_path):
    model = SimulatedModel("agents")
    messages = history_through(model, SCENARIO, SCENARIO.prepare(tmp_path), 6)
    summary = summary_of(model, messages, "Condense the work below for a colleague, in under "
                         "80 words, with only two sections:\n## Findings\n## Open Questions")
    headings = [ln for ln in summary.splitlines() if ln.startswith("## ")]
    assert headings == ["## Findings", "## Open Questions"]
    assert len(summary.split()) <= 80
    assert "read agents/retry.py" in summary.split("## Open Questions")[1]


def test_next_steps_are_only_steps_not_done(tmp_path):
    model = SimulatedModel("agents")
    messages = history_through(model, SCENARIO, SCENARIO.prepare(tmp_path), 4)
    prompt = build_prompt(messages[1:], goal=SCENARIO.task)
    reply = request(model, [{"role": "user", "content": prompt}], tools=())
    assert reply.stop_reason == "end_turn" and not reply.tool_uses
    done, todo = reply.text.split("## Next Steps")
    read = [c["input"]["path"] for m in messages for c in m["content"]
            if isinstance(m["content"], list) and c.get("type") == "tool_use"
            and c["name"] == "read_file"]
    assert read and all(f"read {p}" not in todo for p in read)
    assert all(f"read {p}" in done for p in read)
    assert call_line("read_file", {"path": read[0]}) in prompt  # JSON, not Python repr


def test_a_prompt_not_asking_for_verbatim_ids_loses_some(tmp_path):
    model = SimulatedModel("agents")
    messages = history_through(model, SCENARIO, SCENARIO.prepare(tmp_path), 1 + FILES)
    strict = summary_of(model, messages, "Summarize the turns below. Keep every identifier "
                        "verbatim.")
    loose = summary_of(model, messages, "Summarize the turns below briefly.")
    assert "ACTION_TABLE" in strict and "ACTION_TABLE" not in loose
    assert strict.count(" = ") > loose.count(" = ") > 0


def test_summaries_erode_under_a_small_cap(tmp_path):
    model = SimulatedModel("agents", summary_words=60)
    messages = history_through(model, SCENARIO, SCENARIO.prepare(tmp_path), 1 + FILES)
    first = request(model, [{"role": "user", "content": build_prompt(messages[1:])}],
                    tools=()).text
    assert len(first.split()) <= 60
    assert first.count(" = ") < 1 + FILES


def test_usage_is_counted_and_caching_reads_the_shared_prefix(tmp_path):
    model = SimulatedModel("agents")
    messages = history_through(model, SCENARIO, SCENARIO.prepare(tmp_path), 3)
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


WEAK = "Summarize the conversation below in a few lines."
GOOD = ("Summarize the turns below for the agent that continues the work, under 150 words. "
        "Keep every ID, file name and value verbatim.")


def summarizer_with(instructions, scenario):
    """A summarizer that sends `instructions` instead of the library's (lesson 4's helper)."""
    model = SimulatedModel(scenario)

    def summarize(prompt):
        material = prompt[prompt.index("<task>"):]
        return model.create(system="", messages=[{"role": "user", "content":
                                                  f"{instructions}\n\n{material}"}],
                            tools=[], max_tokens=1024).text
    return summarize


def test_a_weak_summary_prompt_makes_the_agent_reread_and_a_good_one_does_not():
    from jupyter_compaction.runner import play

    weak = play("agents", budget=5000, strategy="summarize", task_state=False,
                summarizer=summarizer_with(WEAK, "agents"))
    good = play("agents", budget=5000, strategy="summarize", task_state=False,
                summarizer=summarizer_with(GOOD, "agents"))
    assert weak.repeats > 5 and SCENARIO.outcome(weak) == "stuck"  # a loop, caught
    assert good.repeats == 0 and SCENARIO.outcome(good) == "correct"


def test_a_literal_argument_is_written_only_when_the_request_shows_it(tmp_path):
    workspace = LOGISTICS.prepare(tmp_path / "ws")
    for record in ("tickets/TCK-5521.json", "policies/redelivery.json"):
        path = workspace.root / record
        path.write_text(path.read_text().replace("late-delivery", "late"))
    fns = {fn.__name__: fn for fn in LOGISTICS.tools(workspace)}
    messages, model = [{"role": "user", "content": LOGISTICS.task}], SimulatedModel("logistics")
    topics = []
    while (reply := request(model, messages, tools=logistics_tools())).tool_uses:
        topics += [b["input"]["topic"] for b in reply.tool_uses if b["name"] == "get_policy"]
        messages += [reply.as_message(), {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": b["id"], "content": fns[b["name"]](**b["input"])}
            for b in reply.tool_uses]}]
    assert topics == ["redelivery"]  # "late-delivery" was nowhere in its requests
    assert f"so policy {UNKNOWN} applies" in reply.text
