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

import re
from collections.abc import Callable, Mapping
from pathlib import Path

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
    template,
)
from jupyter_compaction.scenarios.truth import files, live, yaml_value
from jupyter_compaction.vocab import UNKNOWN
from jupyter_compaction.workspace import Workspace


def make_tools(ws: Workspace) -> list[Callable[..., str]]:
    return [make_list_files(ws), make_read_file(ws), make_grep(ws)]


def _read(name: str, *facts: Fact) -> Step:
    return Step(f"read {{{name}}}", "read_file", {"path": f"{{{name}}}"}, facts)


def _path(name: str, pattern: str) -> Fact:
    """A file of the listing, recognised by its name (one suffix: "x.old.yaml" is a copy)."""
    return Fact(name, rf"^({pattern})  [\d,]+ bytes$")


STEPS = (
    Step("list the bundle", "list_files", {"folder": "."}, (
        _path("incident-file", r"\S*INCIDENT\.md"),
        _path("gateway-log", r"logs/gateway[\w-]*\.log"),
        _path("checkout-config", r"config/checkout[\w-]*\.yaml"),
        _path("changelog", r"\S*CHANGELOG\.md"),
        _path("checkout-log", r"logs/checkout[\w-]*\.log"),
        _path("deployment", r"deploy/\S*\.k8s\.yaml"),
        _path("inventory-log", r"logs/inventory[\w-]*\.log"),
        _path("inventory-config", r"config/inventory[\w-]*\.yaml"),
        _path("gateway-config", r"config/gateway[\w-]*\.conf"))),
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


timeout = template("checkout-api waits timeout_seconds: {timeout} for inventory-service "
                   "(retries: {retries}, {checkout-config}).")
gateway = template("The gateway waits {gateway-timeout} for checkout ({gateway-config}).")
release = template("Production runs inventory-service:{image} ({deployment}); the previous "
                   "image was {previous}.")
incident = template("The incident is {incident} ({severity}, {incident-file}).")


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


def _first(pattern: str, text: str, group: int = 1) -> str | None:
    found = re.search(pattern, text, re.M)
    return found.group(group) if found else None


def truth(root: Path, slots: Mapping[str, str]) -> dict[str, str]:
    """The incident's facts, read as an engineer would: the live configs (a copy marked
    superseded is skipped), the log lines themselves, the changelog's newest entry."""
    every = files(root)

    def pick(folder: str, prefix: str, suffix: str) -> str | None:
        return live(root, [p for p in every if p.startswith(f"{folder}/{prefix}")
                           and p.endswith(suffix)])

    paths = {"incident-file": live(root, [p for p in every if p.endswith("INCIDENT.md")]),
             "gateway-log": pick("logs", "gateway", ".log"),
             "checkout-config": pick("config", "checkout", ".yaml"),
             "changelog": live(root, [p for p in every if p.endswith("CHANGELOG.md")]),
             "checkout-log": pick("logs", "checkout", ".log"),
             "deployment": pick("deploy", "inventory", ".k8s.yaml"),
             "inventory-log": pick("logs", "inventory", ".log"),
             "inventory-config": pick("config", "inventory", ".yaml"),
             "gateway-config": pick("config", "gateway", ".conf")}
    text = {name: (root / p).read_text() for name, p in paths.items() if p}
    facts: dict[str, str | None] = {k: v for k, v in paths.items() if v}
    if "incident-file" in text:
        facts["incident"] = _first(r"^# (INC-\d+)", text["incident-file"])
        facts["severity"] = _first(r"Severity: (SEV-\d)", text["incident-file"])
    if "gateway-log" in text:
        facts["first-error"] = next((line.split("[", 1)[1].split(" ", 1)[0].split(":", 1)[1]
                                     for line in text["gateway-log"].splitlines()
                                     if '"POST /api/v1/checkout ' in line
                                     and line.split('" ', 1)[-1].startswith("504")), None)
    if "checkout-config" in text:
        for name, key in (("timeout", "timeout_seconds"), ("retries", "retries")):
            facts[name] = yaml_value(text["checkout-config"], "upstreams", "inventory-service",
                                     key)
    if "changelog" in text:
        head = _first(r"^## (\S+) \(([\d-]+), deployed (\d\d:\d\d UTC)\)", text["changelog"], 0)
        if head:
            version, _, rest = head[3:].partition(" (")
            day, _, time = rest.rstrip(")").partition(", deployed ")
            facts |= {"release": version, "deployed": f"{day} {time}"}
            entry = text["changelog"].split(head, 1)[1].split("\n## ", 1)[0]
            facts["change"] = _first(r"^- (INV-\d+):", entry)
            facts["migration"] = _first(r"migration (\d{4})", entry)
    if "checkout-log" in text:
        timeouts = [line for line in text["checkout-log"].splitlines() if "ReadTimeout" in line]
        if timeouts:
            words = timeouts[0].split("ReadTimeout after ", 1)[1].split()
            facts["read-timeout"] = f"{words[0]} {words[1]}"
            url = words[4]
            facts["endpoint"] = "/" + url.split("://", 1)[1].split("/", 1)[1]
    if "deployment" in text:
        images = [line.split(":")[-1].strip() for line in text["deployment"].splitlines()
                  if line.strip().startswith("image:")]
        facts["image"] = images[0] if images else None
        facts["previous"] = yaml_value(text["deployment"], "metadata", "annotations",
                                       "deployctl/previous-image").rsplit(":", 1)[1]
    if "inventory-log" in text and facts.get("endpoint"):
        durations = [field.split("=")[1] for line in text["inventory-log"].splitlines()
                     if f"path={facts['endpoint']} " in line and "client_gone=true" in line
                     for field in line.split() if field.startswith("duration_ms=")]
        facts["abandoned"] = LIST_SEPARATOR.join(dict.fromkeys(durations)) or None
    if "inventory-config" in text:
        value = yaml_value(text["inventory-config"], "reservations", "use_reservation_index") \
            or _first(r"use_reservation_index: (\w+)", text["inventory-config"])
        facts["index"] = f"use_reservation_index: {value}" if value else None
    if "gateway-config" in text:
        block = text["gateway-config"].split("location /api/v1/checkout {", 1)[-1].split("}")[0]
        facts["gateway-timeout"] = _first(r"proxy_read_timeout (\w+);", block)
    return {k: v for k, v in facts.items() if v is not None} | dict(slots)


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
    read_truth=truth,
)
