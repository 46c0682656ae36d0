"""Usage-anchored counting: the trigger reads the local count scaled to what the model's
API reports, and a reported count over the trigger compacts on the next turn."""

from __future__ import annotations

import pytest

from jupyter_compaction import usage_anchor
from jupyter_compaction.events import Compacted, ModelReplied, TurnStarted
from jupyter_compaction.runner import play
from jupyter_compaction.store import SessionStore
from jupyter_compaction.usage_anchor import SMOOTHING, UsageAnchor
from tests.support.reporting import Reporting, scaled, spike_once

BUDGET = 8_000
TRIGGER = int(0.8 * BUDGET)


# --- the anchor on its own -------------------------------------------------------------------

def test_no_report_keeps_the_local_count():
    anchor = UsageAnchor()
    assert anchor.estimate(1_000) == 1_000 and not anchor.over(6_400, TRIGGER)
    assert anchor.over(6_401, TRIGGER)
    assert anchor.line() == "no input tokens reported yet (ratio 1)"


def test_the_ratio_is_smoothed_towards_each_new_report():
    anchor = UsageAnchor()
    anchor.observe(1_000, 1_300)
    assert anchor.ratio == pytest.approx(1.3) and anchor.estimate(2_000) == 2_600
    assert anchor.to_local(2_600) == 2_000  # a target in the API's count, in local tokens
    anchor.observe(1_000, 1_500)
    assert anchor.ratio == pytest.approx(1.3 + SMOOTHING * (1.5 - 1.3))
    assert anchor.line() == f"local 1000, reported 1500, ratio {anchor.ratio:.2f}"


def test_replies_without_reported_input_are_ignored():
    anchor = UsageAnchor()
    anchor.observe(1_000, 0)
    anchor.observe(0, 500)
    assert (anchor.reports, anchor.ratio) == (0, 1.0)


def test_a_ratio_under_one_never_delays_compaction():
    anchor = UsageAnchor()
    anchor.observe(5_000, 10)  # a stand-in reporting made-up usage
    assert anchor.ratio == pytest.approx(0.002)
    assert anchor.estimate(6_401) == 6_401 and anchor.over(6_401, TRIGGER)


def test_a_reported_count_over_the_trigger_counts_until_a_compaction():
    anchor = UsageAnchor()
    anchor.observe(4_000, 6_500)  # ratio 1.625: the next estimate alone stays under
    anchor.ratio = 1.2  # as if earlier reports had kept it low
    assert anchor.estimate(4_200) < TRIGGER
    assert anchor.over(4_200, TRIGGER)
    anchor.rebase()
    assert not anchor.over(4_200, TRIGGER)
    assert anchor.last_reported == 6_500  # still shown as the last reported request


# --- in the agent ------------------------------------------------------------------------------

def first_compaction(run) -> int:
    return run.of(Compacted)[0].turn


def test_a_model_counting_more_makes_the_agent_compact_earlier():
    plain = play("agents", budget=BUDGET)
    more = play("agents", budget=BUDGET, model=Reporting("agents", scaled(1.3)))
    assert first_compaction(more) < first_compaction(plain)
    assert more.anchor.ratio == pytest.approx(1.3, abs=0.001)
    compacted = more.of(Compacted)[0]
    start = next(e for e in more.of(TurnStarted) if e.turn == compacted.turn)
    local_before = compacted.tokens_before + start.parts["system"]
    assert local_before <= TRIGGER < round(local_before * 1.3)  # only the anchor triggered
    later = [e for e in more.of(TurnStarted) if e.turn > 1]
    assert all(e.anchored == pytest.approx(e.tokens * 1.3, rel=0.01) for e in later)
    assert more.status == "finished"


def test_a_reported_count_over_the_trigger_compacts_on_the_next_turn():
    plain = play("agents", budget=BUDGET)
    spiked = play("agents", budget=BUDGET,
                  model=Reporting("agents", spike_once(3_000, TRIGGER + 100)))
    spike = next(e for e in spiked.of(ModelReplied) if e.usage.total_input == TRIGGER + 100)
    turn = spike.turn + 1
    assert turn not in {c.turn for c in plain.of(Compacted)}
    compacted = next(c for c in spiked.of(Compacted) if c.turn == turn)
    start = next(e for e in spiked.of(TurnStarted) if e.turn == turn)
    assert compacted.tokens_before + start.parts["system"] < TRIGGER  # the local count: under
    assert start.reported_before == TRIGGER + 100 > start.trigger_at


def test_the_simulated_model_reports_the_local_count_so_nothing_changes(monkeypatch):
    run = play("debug", budget=6_000)
    assert run.anchor.ratio == 1.0 and run.anchor.reports == run.turn
    assert all(e.anchored == e.tokens for e in run.of(TurnStarted))
    monkeypatch.setattr(usage_anchor.UsageAnchor, "observe", lambda self, local, reported: None)
    unanchored = play("debug", budget=6_000)

    def without_anchor(events):
        return [{k: v for k, v in e.to_dict().items() if k not in ("anchored", "reported_before")}
                for e in events]

    assert without_anchor(run.events) == without_anchor(unanchored.events)


def test_stored_turn_events_keep_both_counts(tmp_path):
    store = SessionStore(tmp_path)
    run = play("agents", budget=BUDGET, model=Reporting("agents", scaled(1.3)), store=store,
               max_turns=4)
    stored = [e for e in store.events(run.session_id) if e["kind"] == "turn_started"]
    assert [e["anchored"] for e in stored] == [e.anchored for e in run.of(TurnStarted)]
    rebuilt = [TurnStarted(**{k: v for k, v in e.items() if k != "kind"}) for e in stored]
    assert rebuilt == run.of(TurnStarted)
    assert rebuilt[-1].reported_before == round(rebuilt[-2].tokens * 1.3)


def test_the_trigger_decision_reads_the_anchor_and_never_compacts_off():
    from jupyter_compaction import strategies
    from jupyter_compaction.compactor import due

    trim, off = strategies.get("trim"), strategies.get("off")
    assert due(trim, 801, 800) and not due(trim, 800, 800)
    assert not due(off, 10**6, 800)
    reported = UsageAnchor()
    reported.observe(700, 900)  # the API counts more than the local count
    assert due(trim, 700, 800, reported) and not due(trim, 700, 800)
