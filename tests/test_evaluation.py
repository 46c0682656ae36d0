"""Judging a summary (recall, compression, unsupported claims) and what compaction lost."""

import pytest

from jupyter_compaction import ClearToolResults, TokenCounter, dropped_facts, eval_summary
from jupyter_compaction.evaluation import SummaryEval, by_kind, identifiers

COUNTER = TokenCounter()
SOURCE = ("Order ORD-1042 ships on waybill VD-88317 from agents/router.py; "
          "the timeout is 300 ms and 1250 items were counted in config.yaml.")


def test_recall_counts_whole_facts_in_their_own_case_and_keeps_their_order():
    result = eval_summary("VD-88317 holds ord-1042; see agents/router.py.",
                          ["ORD-1042", "VD-88317", "router.py", "ORD-1042", "CUS-7"], SOURCE)
    assert result.kept == ["VD-88317", "router.py"]
    assert result.missed == ["ORD-1042", "CUS-7"]
    assert result.recall == pytest.approx(2 / 4)


@pytest.mark.parametrize(("summary", "fact"), [
    ("Several files define dispatch tables.", "DISPATCH"),  # another case
    ("The DISPATCH_TABLE lists every tool.", "DISPATCH"),  # inside a longer word
    ("Depot LD-17 is closed.", "D-17"),  # inside a longer ID
    ("Order ORD-10421 ships.", "ORD-1042"),
    ("No refunds were made.", "No refund"),
])
def test_a_fact_in_another_case_or_inside_a_longer_word_is_not_kept_but_loosely_found(
        summary, fact):
    result = eval_summary(summary, [fact], SOURCE)
    assert result.kept == [] and result.recall == 0.0
    assert result.loose == [fact] and result.loose_recall == 1.0


def test_a_whole_fact_at_a_sentence_end_or_in_brackets_is_kept():
    for summary in ["Shipped ORD-1042.", "(ORD-1042)", "ORD-1042, then", "ids: ORD-1042"]:
        result = eval_summary(summary, ["ORD-1042"], SOURCE)
        assert result.kept == ["ORD-1042"] and result.loose == []


def test_loose_recall_adds_the_loose_facts_to_the_kept_ones():
    result = eval_summary("VD-88317 and ord-1042", ["ORD-1042", "VD-88317", "CUS-7"], SOURCE)
    assert (result.recall, result.loose_recall) == (pytest.approx(1 / 3), pytest.approx(2 / 3))
    assert eval_summary("anything", [], SOURCE).loose_recall == 1.0


def test_recall_without_facts_is_complete():
    assert eval_summary("anything", [], SOURCE).recall == 1.0


def test_compression_ratio_uses_the_estimate_or_the_counter():
    assert eval_summary("x" * 40, [], "y" * 400).compression == pytest.approx(0.1)
    exact = eval_summary("ORD-1042 on VD-88317", [], SOURCE, counter=COUNTER)
    assert exact.compression == pytest.approx(
        COUNTER.count_text("ORD-1042 on VD-88317") / COUNTER.count_text(SOURCE))
    assert eval_summary("text", [], "").compression == pytest.approx(1.0)  # no division by zero


def test_source_can_be_messages():
    source = [{"role": "user", "content": "Find ORD-1042"},
              {"role": "assistant", "content": [
                  {"type": "tool_use", "id": "t", "name": "lookup", "input": {"id": "VD-88317"}}]},
              {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t",
                                            "content": [{"type": "text", "text": "eta 4500 s"}]}]}]
    result = eval_summary("ORD-1042 on VD-88317, eta 4500 s", ["VD-88317"], source)
    assert result.recall == 1.0
    assert result.unsupported == []


@pytest.mark.parametrize(("summary", "unsupported"), [
    ("ORD-1042 ships on VD-88317 (300 ms, 1250 items).", []),
    ("ORD-9999 ships on VD-88317.", ["ORD-9999"]),
    ("4500 items were counted.", ["4500"]),
    ("Timeout is 450 ms; see secrets.yaml.", ["450 ms", "secrets.yaml"]),
    ("Edited agents/planner.py today.", ["agents/planner.py"]),
    ("Step 3 of 5 is done.", []),  # small counters are not facts
])
def test_unsupported_identifiers_are_the_ones_not_in_the_source(summary, unsupported):
    assert eval_summary(summary, [], SOURCE).unsupported == unsupported


@pytest.mark.parametrize(("summary", "unsupported"), [
    ("ORD-104 ships on VD-88317.", ["ORD-104"]),
    ("125 items were counted.", ["125"]),
])
def test_altered_identifiers_that_are_substrings_of_real_ones_are_unsupported(summary, unsupported):
    assert eval_summary(summary, [], SOURCE).unsupported == unsupported


def test_a_path_at_the_end_of_a_sentence_is_the_same_path():
    assert identifiers("I edited agents/router.py.") == {"agents/router.py"}
    assert eval_summary("I edited agents/router.py.", [], SOURCE).unsupported == []


@pytest.mark.parametrize(("text", "found"), [
    ("2024-05-14 09:01:27,427 INFO req=c-e788f493 placed", {"2024-05-14"}),
    ("2024-05-14T09:01:24.274Z INFO http", set()),
    ("GET at 09:01:16 +0000", set()),
    ("Reception open 9:00-17:30", set()),
    ("validated_at 2019-04-02T19:21:44+02:00", set()),
    ("lap 1:23.45 of 12", {"12"}),
])
def test_times_of_day_yield_no_number_pieces(text, found):
    assert identifiers(text) == found


def test_the_rest_of_a_url_after_a_port_is_no_path():
    assert identifiers("POST http://inventory-service:8080/v2/stock/reserve") == {"8080"}


def test_a_number_beside_a_colon_that_is_no_time_is_still_a_fact():
    assert identifiers("listening on localhost:8080, ratio 100:1") == {"8080", "100"}
    assert identifiers("2024-05-14 09:01:27,427 took 326 ms") == {"2024-05-14", "326 ms"}


def test_identifiers_finds_ids_paths_files_and_figures():
    assert identifiers(SOURCE) == {"ORD-1042", "VD-88317", "agents/router.py", "300 ms", "1250",
                                   "config.yaml"}


@pytest.mark.parametrize(("text", "found"), [
    ("sku OAK-SD-160-FR ships", {"OAK-SD-160-FR"}),
    ("invoice INV-2024-031188 is paid", {"INV-2024-031188"}),
    ("see invoices/INV-2024-031188.pdf", {"invoices/INV-2024-031188.pdf"}),
    ("by clauses LD-1.1 and LD-2.3.", {"LD-1.1", "LD-2.3"}),
    ("METHOD_NOT_FOUND = -32601", {"-32601"}),
    ("range 5-10, pages 3-4", {"10"}),
    ("held until 2024-03-22", {"2024-03-22"}),
    ("bump github.com/fastq/fastcsv to v1.5.0", {"github.com/fastq/fastcsv", "v1.5.0"}),
    ("read /etc/hosts", {"/etc/hosts"}),
    ("alternating user/assistant messages, and/or tools", set()),
])
def test_identifiers_keep_compound_ids_signs_and_dates_whole(text, found):
    assert identifiers(text) == found


def test_facts_are_grouped_by_kind_with_dates_and_versions_as_numbers():
    facts = ["agents/router.py", "ORD-1042", "2024-03-12", "-32601", "config.yaml", "v1.5.0",
             "LD-2.3", "300 ms"]
    assert by_kind(facts) == {"ids": ["LD-2.3", "ORD-1042"],
                              "paths": ["agents/router.py", "config.yaml"],
                              "numbers": ["-32601", "2024-03-12", "300 ms", "v1.5.0"]}
    assert by_kind(["ORD-1"]) == {"ids": ["ORD-1"]}  # empty kinds are left out


def test_summary_eval_reads_as_one_line():
    result = SummaryEval(recall=2 / 3, kept=["a", "b"], missed=["c"], compression=0.1,
                         unsupported=["ORD-9999"])
    assert str(result) == "recall 67% (2/3), compression 10.0%, unsupported 1"
    result.loose = ["c"]
    assert str(result) == "recall 67% (2/3; loose match 3/3), compression 10.0%, unsupported 1"


def ticket_turns():
    messages = [{"role": "user", "content": "Task: list every order on a late waybill."}]
    for k in range(4):
        messages.append({"role": "assistant", "content": [
            {"type": "tool_use", "id": f"t{k}", "name": "lookup_batch", "input": {"batch": k}}]})
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"t{k}",
             "content": f"ORD-{3000 + k} is on waybill VD-{70000 + k}, late by {120 + k} min. "
                        + "padding " * 40}]})
    return messages


def test_dropped_facts_lists_what_clearing_removed():
    before = ticket_turns()
    after = ClearToolResults(keep_last=1)(before, goal=0, counter=COUNTER).messages
    assert dropped_facts(before, after) == sorted(
        ["ORD-3000", "ORD-3001", "ORD-3002", "VD-70000", "VD-70001", "VD-70002",
         "120", "121", "122"])


def test_dropped_facts_ignores_facts_that_survive_elsewhere():
    before = ticket_turns()
    before[0] = {"role": "user", "content": "Task: check ORD-3000 and VD-70001 first."}
    after = ClearToolResults(keep_last=1)(before, goal=0, counter=COUNTER).messages
    dropped = dropped_facts(before, after)
    assert "ORD-3000" not in dropped and "VD-70001" not in dropped
    assert "ORD-3001" in dropped and "ORD-3003" not in dropped
    assert dropped_facts(before, before) == []


def test_dropped_facts_reports_a_number_that_only_survives_inside_another_id():
    before = [{"role": "user", "content": "Order ORD-1042 has 42 items."}]
    after = [{"role": "user", "content": "Order ORD-1042."}]
    assert dropped_facts(before, after) == ["42"]
