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
    Question,
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
    Step("grep the {endpoint} requests in {inventory-log}", "grep",
         {"pattern": "{endpoint}", "path": "{inventory-log}"},
         (Fact("abandoned", r"duration_ms=(\d{5,})\b.*client_gone=true", many=True),)),
    _read("inventory-config", Fact("index", r"(use_reservation_index: \w+)", decision=True)),
    _read("gateway-config", Fact("gateway-timeout", r"location /api/v1/checkout \{\n(?:.*\n)*?"
                                                    r"\s+proxy_read_timeout (\w+);")),
)


def _span(values: str) -> str:
    """"44493, 46466, 45012" as "44493 to 46466" (the range of the durations seen)."""
    if values == UNKNOWN:
        return UNKNOWN
    numbers = sorted(int(v) for v in values.split(LIST_SEPARATOR))
    return f"{numbers[0]} to {numbers[-1]}"


def root_cause(f: Known) -> str:
    """Rule: the calls checkout-api abandoned took longer than its timeout, so the timeout
    is where checkout fails; otherwise the timeout does not explain the failures."""
    if UNKNOWN in (f["timeout"], f["abandoned"]):
        return UNKNOWN
    slowest = max(int(v) for v in f["abandoned"].split(LIST_SEPARATOR))
    if slowest > int(f["timeout"]) * 1000:
        return (f"checkout-api gives up on inventory-service after timeout_seconds: "
                f"{f['timeout']} (retries: {f['retries']}, {f['checkout-config']}), but the "
                f"POST {f['endpoint']} calls it gave up on took duration_ms="
                f"{_span(f['abandoned'])} ({f['inventory-log']})")
    return (f"not the checkout-api timeout: timeout_seconds: {f['timeout']} "
            f"({f['checkout-config']}) is longer than the POST {f['endpoint']} calls, which "
            f"took duration_ms={_span(f['abandoned'])} ({f['inventory-log']})")


def fix(f: Known) -> str:
    """Rule: a release that runs without its index until a migration is fixed by the
    migration or a roll-back."""
    if f["index"] == "use_reservation_index: false" and UNKNOWN not in (f["migration"],
                                                                       f["previous"]):
        return (f"apply migration {f['migration']} or roll back to {f['previous']}; raising "
                "the timeout would only hide the slow query")
    return UNKNOWN


def compose(f: Known) -> str:
    """The incident finding: numbers and files from the facts, conclusions from rules."""
    return (
        f"{f['incident']} ({f['severity']}). Root cause: {root_cause(f)}. The slowdown came "
        f"with inventory-service {f['release']} ({f['change']}), deployed {f['deployed']}, "
        f"running with {f['index']} ({f['inventory-config']}) until index migration "
        f"{f['migration']} is applied. Each such call ends in ReadTimeout after "
        f"{f['read-timeout']} ({f['checkout-log']}); the gateway answers with errors from "
        f"{f['first-error']} UTC ({f['gateway-log']}) and itself waits {f['gateway-timeout']} "
        f"({f['gateway-config']}), so it is not the limit. Production runs "
        f"inventory-service:{f['image']} ({f['deployment']}). Fix: {fix(f)}."
    )


def timeout(f: Known) -> str:
    return (f"checkout-api waits timeout_seconds: {f['timeout']} for inventory-service "
            f"(retries: {f['retries']}, {f['checkout-config']}).")


def gateway(f: Known) -> str:
    return f"The gateway waits {f['gateway-timeout']} for checkout ({f['gateway-config']})."


def release(f: Known) -> str:
    return (f"Production runs inventory-service:{f['image']} ({f['deployment']}); the "
            f"previous image was {f['previous']}.")


def incident(f: Known) -> str:
    return f"The incident is {f['incident']} ({f['severity']}, {f['incident-file']})."


def durations(f: Known) -> str:
    return (f"The POST {f['endpoint']} calls checkout-api abandoned took duration_ms="
            f"{_span(f['abandoned'])} ({f['inventory-log']}).")


TIMEOUT = r"\btime-?outs?\b|\bwait\w*|\blimit\b"
QUESTIONS = (
    Question("gateway", "how long the gateway waits for checkout",
             (r"\bgateway\b|\bnginx\b|\bproxy\b", TIMEOUT), ("gateway-timeout", "gateway-config"),
             gateway, example="What read timeout does the gateway use for checkout?"),
    Question("timeout", "how long checkout-api waits for inventory-service",
             (r"\bcheckout\b", TIMEOUT), ("timeout", "retries", "checkout-config"), timeout,
             example="How long does checkout-api wait for inventory-service before timing out?"),
    Question("root-cause", "the root cause of the checkout failures, with numbers and files",
             (r"\broot cause\b|\bwhy\b|\bdiagnos\w*|\bdebug\w*|\binvestigat\w*|"
              r"\bwhat(?: is)? caus\w*|\bfind (?:out )?what\b",),
             ("incident", "severity", "timeout", "retries", "checkout-config", "endpoint",
              "abandoned", "inventory-log", "release", "change", "deployed", "index",
              "inventory-config", "migration", "read-timeout", "checkout-log", "first-error",
              "gateway-log", "gateway-timeout", "gateway-config", "image", "deployment",
              "previous"), compose,
             example="Why is checkout failing? Find the root cause."),
    Question("durations", "how long the abandoned stock calls took",
             (r"\bhow (?:long|slow)\b|\bduration\w*|\blatency\b|\btook\b|\bslow\w*",),
             ("abandoned", "endpoint", "inventory-log"), durations,
             example="How long did the inventory calls that checkout gave up on take?"),
    Question("release", "which inventory-service version production runs",
             (r"\bversion\b|\brelease\b|\bimage\b|\bdeployed\b|\brunning\b|\bruns\b",),
             ("image", "previous", "deployment"), release,
             example="Which inventory-service version is deployed in production?"),
    Question("incident", "which incident this is and its severity",
             (r"\bincident\b|\bseverity\b|\bsev\b",), ("incident", "severity", "incident-file"),
             incident, example="Which incident is this, and what is its severity?"),
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
    questions=QUESTIONS,
)
