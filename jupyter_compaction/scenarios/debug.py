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

from collections.abc import Callable

from jupyter_compaction.scenarios.base import (
    LIST_SEPARATOR,
    Fact,
    Known,
    Scenario,
    Step,
    make_grep,
    make_list_files,
    make_read_file,
)
from jupyter_compaction.vocab import UNKNOWN
from jupyter_compaction.workspace import Workspace


def make_tools(ws: Workspace) -> list[Callable[..., str]]:
    return [make_list_files(ws), make_read_file(ws), make_grep(ws)]


def _read(name: str, *facts: Fact) -> Step:
    return Step(f"read {{{name}}}", "read_file", {"path": f"{{{name}}}"}, facts)


def _path(name: str, pattern: str) -> Fact:
    """A file of the listing, recognised by its name."""
    return Fact(name, rf"^({pattern})  [\d,]+ bytes$")


STEPS = (
    Step("list the bundle", "list_files", {"folder": "."}, (
        _path("incident-file", r"\S*INCIDENT\.md"),
        _path("gateway-log", r"logs/gateway\S*\.log"),
        _path("checkout-config", r"config/checkout\S*\.yaml"),
        _path("changelog", r"\S*CHANGELOG\.md"),
        _path("checkout-log", r"logs/checkout\S*\.log"),
        _path("deployment", r"deploy/\S*\.k8s\.yaml"),
        _path("inventory-log", r"logs/inventory\S*\.log"),
        _path("inventory-config", r"config/inventory\S*\.yaml"),
        _path("gateway-config", r"config/gateway\S*\.conf"))),
    _read("incident-file", Fact("incident", r"^# (INC-\d+)"),
          Fact("severity", r"Severity: (SEV-\d)")),
    _read("gateway-log", Fact("first-error", r'(\d\d:\d\d:\d\d) \+0000\] "POST '
                                          r'/api/v1/checkout HTTP/2\.0" 504')),
    _read("checkout-config",
          Fact("timeout", r"inventory-service:\n(?:\s+.*\n)*?\s+timeout_seconds: (\d+)"),
          Fact("retries", r"inventory-service:\n(?:\s+.*\n)*?\s+retries: (\d+)")),
    _read("changelog", Fact("release", r"^## (\d+\.\d+\.\d+) \("),
          Fact("deployed", r"^## \S+ \(([\d-]+), deployed (\d\d:\d\d UTC)\)"),
          Fact("change", r"^- (INV-\d+):"), Fact("migration", r"migration (\d{4})")),
    _read("checkout-log", Fact("read-timeout", r"ReadTimeout after (\d+ ms)"),
          Fact("endpoint", r"ReadTimeout after \d+ ms calling POST \S+?:\d+(/\S+)")),
    _read("deployment", Fact("image", r"^\s+image: \S+:(\d+\.\d+\.\d+)"),
          Fact("previous", r"previous-image: \S+:(\d+\.\d+\.\d+)")),
    Step("grep the reserve requests in {inventory-log}", "grep",
         {"pattern": "stock/reserve", "path": "{inventory-log}"},
         (Fact("abandoned", r"duration_ms=(\d{5,})\b.*client_gone=true", many=True),)),
    _read("inventory-config", Fact("index", r"(use_reservation_index: \w+)", decision=True)),
    Step("grep the timeouts in {gateway-config}", "grep",
         {"pattern": "location|proxy_read_timeout", "path": "{gateway-config}"},
         (Fact("gateway-timeout", r"location /api/v1/checkout \{\n\d+: +proxy_read_timeout "
                                  r"(\w+);"),)),
)


def _span(values: str) -> str:
    """"44493, 46466, 45012" as "44493 to 46466" (the range of the durations seen)."""
    if values == UNKNOWN:
        return UNKNOWN
    numbers = sorted(int(v) for v in values.split(LIST_SEPARATOR))
    return f"{numbers[0]} to {numbers[-1]}"


def compose(f: Known) -> str:
    """The incident finding, every number and file name taken from the facts."""
    return (
        f"{f['incident']} ({f['severity']}). Root cause: checkout-api gives up on "
        f"inventory-service after timeout_seconds: {f['timeout']} (retries: {f['retries']}, "
        f"{f['checkout-config']}), but the POST {f['endpoint']} calls it gave up on took "
        f"duration_ms={_span(f['abandoned'])} ({f['inventory-log']}). The slowdown came "
        f"with inventory-service {f['release']} ({f['change']}), deployed {f['deployed']}, "
        f"running with {f['index']} ({f['inventory-config']}) until index migration "
        f"{f['migration']} is applied. Each such call ends in ReadTimeout after "
        f"{f['read-timeout']} ({f['checkout-log']}); the gateway answers with errors from "
        f"{f['first-error']} UTC ({f['gateway-log']}) and itself waits {f['gateway-timeout']} "
        f"({f['gateway-config']}), so it is not the limit. Production runs "
        f"inventory-service:{f['image']} ({f['deployment']}). Fix: apply migration "
        f"{f['migration']} or roll back to {f['previous']}; raising the timeout would only "
        "hide the slow query."
    )


SCENARIO = Scenario(
    name="debug",
    title="Debug checkout 504s from configs and logs",
    task=(
        "Checkout has been failing for part of our traffic since this morning. The files in "
        "this workspace are the incident bundle: configs, logs, a changelog and the deployment "
        "manifest. Find the root cause and report it with the exact numbers and the files "
        "they come from."
    ),
    given=(),
    steps=STEPS,
    must_keep=(
        "INC-3318",
        "timeout_seconds: 30",
        "46466",
        "config/checkout-api.yaml",
        "logs/inventory-service.log",
        "2.8.0",
        "INV-1207",
        "use_reservation_index: false",
        "60s",
    ),
    compose=compose,
    make_tools=make_tools,
)
