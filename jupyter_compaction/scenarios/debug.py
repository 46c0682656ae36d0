"""Scenario "debug": find why checkout returns 504s, from configs and long logs.

A bundle of three service configs, three logs (8-14 KB each, one of them only ever
grepped), a changelog and a deployment manifest. The root cause is a mismatch of two
numbers in two files: checkout-api waits 30 s for inventory-service
(config/checkout-api.yaml), and since inventory-service 2.8.0 a stock reservation takes
about 45 s (logs/inventory-service.log). A summary that keeps "the timeout is too short"
but drops the numbers or the file names leaves the agent unable to write the report
without reading the logs again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from jupyter_compaction.scenarios.base import (
    Scenario,
    Step,
    have,
    make_grep,
    make_list_files,
    make_read_file,
)
from jupyter_compaction.workspace import Workspace

FILE_COUNT = 9


def make_tools(ws: Workspace) -> list[Callable[..., str]]:
    return [make_list_files(ws), make_read_file(ws), make_grep(ws)]


def _read(step_id: str, path: str, fact: str, markers: tuple[str, ...]) -> Step:
    return Step(step_id, f"read {path}", "read_file", {"path": path}, fact, markers)


STEPS = (
    Step(
        "list",
        "list the bundle",
        "list_files",
        {"folder": "."},
        "9 files under the workspace root: INCIDENT.md, 3 configs in config/, 3 logs in "
        "logs/, deploy/CHANGELOG.md and deploy/inventory-service.k8s.yaml",
        ("9 files under the workspace root",),
    ),
    _read(
        "incident",
        "INCIDENT.md",
        "INCIDENT.md: INC-3318 (SEV-2), 504s on POST /api/v1/checkout rose from 0.2% to "
        "about 40% at 09:07 UTC on 2024-05-14, two minutes after an inventory-service deploy",
        ("INC-3318",),
    ),
    _read(
        "gateway-log",
        "logs/gateway-access.log",
        'logs/gateway-access.log: from 09:07 UTC, 11 of 25 checkouts get "POST '
        '/api/v1/checkout HTTP/2.0" 504 after about 30.1 s (urt=30.066 to 30.115)',
        ('"POST /api/v1/checkout HTTP/2.0" 504',),
    ),
    _read(
        "checkout-config",
        "config/checkout-api.yaml",
        "config/checkout-api.yaml: the inventory-service client has timeout_seconds: 30 "
        "and retries: 0 (reserve is not idempotent)",
        ("timeout_seconds: 30",),
    ),
    _read(
        "changelog",
        "deploy/CHANGELOG.md",
        "deploy/CHANGELOG.md: inventory-service 2.8.0 (INV-1207), deployed 2024-05-14 "
        "09:05 UTC, reserves stock with one batched query that needs index migration 0047",
        ("INV-1207",),
    ),
    _read(
        "checkout-log",
        "logs/checkout-api.log",
        "logs/checkout-api.log: 11 reserve calls to inventory-service end in ReadTimeout "
        "after 30000 ms (retries=0), and checkout answers 504",
        ("ReadTimeout after 30000 ms",),
    ),
    _read(
        "deployment",
        "deploy/inventory-service.k8s.yaml",
        "deploy/inventory-service.k8s.yaml: production runs inventory-service:2.8.0 "
        "(revision 58, 4 replicas); the previous image was inventory-service:2.7.4",
        ("inventory-service:2.8.0",),
    ),
    Step(
        "inventory-log",
        "grep the reserve requests in logs/inventory-service.log",
        "grep",
        {"pattern": "stock/reserve", "path": "logs/inventory-service.log"},
        "logs/inventory-service.log: since 09:06 UTC POST /v2/stock/reserve takes about 45 s "
        "(duration_ms=44493 to duration_ms=46466) instead of under 0.5 s, scanning ~1.8M rows",
        ("duration_ms=46466",),
    ),
    _read(
        "inventory-config",
        "config/inventory-service.yaml",
        "Decision: fix inventory-service, not the timeout; config/inventory-service.yaml runs "
        "reservations with use_reservation_index: false until migration 0047 is applied",
        ("use_reservation_index: false",),
    ),
    Step(
        "gateway-config",
        "grep the timeouts in config/gateway.conf",
        "grep",
        {"pattern": "location|proxy_read_timeout", "path": "config/gateway.conf"},
        "config/gateway.conf: proxy_read_timeout 60s on /api/v1/checkout, longer than the "
        "30 s checkout timeout",
        ("proxy_read_timeout 60s",),
    ),
)


def compose(facts: Mapping[str, str]) -> str:
    """The incident finding; each sentence rests on the findings it quotes."""
    out: list[str] = []
    if have(facts, "checkout-config", "inventory-log"):
        out.append(
            "Root cause: checkout-api stops waiting for inventory-service after 30 s "
            "(timeout_seconds: 30 in config/checkout-api.yaml), but POST "
            "/v2/stock/reserve now takes about 45 s (duration_ms=44493 to 46466 in "
            "logs/inventory-service.log)."
        )
    else:
        out.append(
            "Root cause: not established; the checkout timeout and the reservation "
            "latency have not both been confirmed."
        )
    if have(facts, "changelog"):
        index = (
            " without its index (use_reservation_index: false in config/inventory-service.yaml)"
            if have(facts, "inventory-config")
            else ""
        )
        out.append(
            "The slowdown came with inventory-service 2.8.0 (INV-1207), deployed "
            f"2024-05-14 09:05 UTC, which reserves stock with one batched query{index}."
        )
    elif have(facts, "inventory-config"):
        out.append(
            "config/inventory-service.yaml runs reservations with use_reservation_index: false."
        )
    symptoms = []
    if have(facts, "checkout-log"):
        symptoms.append("each such call ends in ReadTimeout after 30000 ms (logs/checkout-api.log)")
    if have(facts, "gateway-log"):
        symptoms.append(
            "the gateway returns 504 for 11 of 25 checkouts from 09:07 UTC "
            "(logs/gateway-access.log)"
        )
    if symptoms:
        text = " and ".join(symptoms)
        out.append(text[0].upper() + text[1:] + ".")
    if have(facts, "gateway-config"):
        out.append(
            "The gateway itself waits 60 s (proxy_read_timeout 60s in "
            "config/gateway.conf), so it is not the limit."
        )
    if have(facts, "changelog", "checkout-config", "inventory-log"):
        back = " (the previous image)" if have(facts, "deployment") else ""
        out.append(
            f"Fix: apply index migration 0047 or roll back inventory-service to 2.7.4{back}; "
            "raising the 30 s timeout above 45 s would only hide the slow query."
        )
    seen = sum(have(facts, s.id) for s in STEPS[1:])
    total = f" of the {FILE_COUNT}" if have(facts, "list") else ""
    prefix = "INC-3318: " if have(facts, "incident") else ""
    return prefix + " ".join(out) + f" Evidence from {seen}{total} files."


SCENARIO = Scenario(
    name="debug",
    title="Debug checkout 504s from configs and logs",
    task=(
        "Checkout has been failing for part of our traffic since this morning. The files in "
        "this workspace are the incident bundle: configs, logs, a changelog and the deployment "
        "manifest. Find the root cause and report it with the exact numbers and the files "
        "they come from."
    ),
    steps=STEPS,
    must_keep=(
        "INC-3318",
        "timeout_seconds: 30",
        "45 s",
        "config/checkout-api.yaml",
        "logs/inventory-service.log",
        "2.8.0",
        "INV-1207",
        "use_reservation_index: false",
        "proxy_read_timeout 60s",
    ),
    compose=compose,
    make_tools=make_tools,
)
