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
from jupyter_compaction.scenarios.grammar import Grammar, Slot
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


# "cart-service 5 2": an upstream of checkout-api with its timeout_seconds and retries.
UPSTREAM = (r"^  ([\w-]+):\n(?:    .*\n)*?    timeout_seconds: (\d+)\n(?:    .*\n)*?"
            r"    retries: (\d+)")
LOCATION = r"^\s*location (\S+) \{\n(?:[^}\n]*\n)*?\s*proxy_read_timeout (\w+);"  # "/api/ 15s"
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
          Fact("retries", r"inventory-service:\n(?:\s+.*\n)*?\s+retries: (\d+)"),
          Fact("upstreams", UPSTREAM, many=True)),
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
                                                    r"\s+proxy_read_timeout (\w+);"),
          Fact("locations", LOCATION, many=True)),
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


def _entry(f: Known, fact: str, key: str) -> list[str] | None:
    """The words after `key` in the list fact `fact` ("cart-service 5 2" for cart-service)."""
    for item in f[fact].split(LIST_SEPARATOR):
        name, *values = item.split(" ")
        if name == key:
            return values
    return None


def timeout(f: Known) -> str:
    """How long checkout-api waits for the upstream the task names."""
    if f["upstreams"] == UNKNOWN:
        values = [UNKNOWN, UNKNOWN]
    elif (values := _entry(f, "upstreams", f["upstream"])) is None:
        return f"{f['upstream']} does not exist among the upstreams of {f['checkout-config']}."
    return (f"checkout-api waits timeout_seconds: {values[0]} for {f['upstream']} "
            f"(retries: {values[1]}, {f['checkout-config']}).")


def gateway(f: Known) -> str:
    """How long the gateway waits on the location the task names."""
    if f["locations"] == UNKNOWN:
        values = [UNKNOWN]
    elif (values := _entry(f, "locations", f["route"])) is None:
        return f"location {f['route']} does not exist in {f['gateway-config']}."
    return f"The gateway waits {values[0]} on {f['route']} ({f['gateway-config']})."


release = template("Production runs inventory-service:{image} ({deployment}); the previous "
                   "image was {previous}.")
incident = template("The incident is {incident} ({severity}, {incident-file}).")


def durations(f: Known) -> str:
    return (f"The POST {f['endpoint']} calls checkout-api abandoned took duration_ms="
            f"{_span(f['abandoned'])} ({f['inventory-log']}).")


UPSTREAM_SLOT = Slot("upstream", r"([a-z]+-service|payment-gateway)", default="inventory-service",
                     aliases=((r"inventory|stock(?:\s+reservations?)?", "inventory-service"),
                              (r"pricing", "pricing-service"), (r"cart", "cart-service"),
                              (r"payments?|psp", "payment-gateway")))
ROUTE = Slot("route", r"(/(?:[\w-]+/?)*)", default="/api/v1/checkout",
             aliases=((r"checkout(?:-api)?", "/api/v1/checkout"), (r"storefront", "/")))
# Where the wait ends: "before it cuts the request off".
CUT_OFF = r"cut(?:s|ting)?\s+(?:it\s+|them\s+|the\s+(?:request|call)\s+)?off"
WAIT = (r"time-?outs?|wait(?:s|ing)?|how\s+long|(?:time\s+)?limit|times?\s+out|timing\s+out|"
        r"gives?\s+up|giving\s+up|stops?\s+waiting|cut-?off|bail(?:s|ing)?\s+out|hang(?:s|ing)?(?:\s+on)?|after(?=\s+how\b)|"
        # said of the waiting itself: "how patient is it", "the longest it will sit waiting"
        r"how\s+patient|patience|(?:the\s+)?longest\s+(?:it|they)(?:'ll|\s+will|\s+would|\s+can)?|"
        r"sits?\s+(?:and\s+)?wait(?:s|ing)?|hold(?:s|ing)?\s+on|hang(?:s|ing)?\s+up|"
        r"(?:pass(?:es)?|go\s+by|elapse)(?=\s+before\b)|"
        # "how much time does X allow ...": what it allows, not how long a call took
        r"how\s+much\s+time(?=\s+(?:does|will|would)\s+\S+\s+(?:allow|give|grant|wait))")
ROOT_WORDS = (r"(?:since\s+)?this\s+morning's\s+(?:deploy|release|rollout)|"
              r"(?:order|checkout|payment)(?:\s+placement)?\s+step|(?:the\s+)?(?:final|last)\s+step|"
              r"buying(?:\s+things)?|stopped\s+working|"
              r"(?:(?:haven't|hasn't|have\s+not|has\s+not)\s+been\s+able|not\s+being\s+able|unable)\s+to\s+"
              r"(?:finish|complete|place|pay|check\s+out)|purchases?|checkout(?:-api)?|fail(?:s|ing|ures?)?|504s?|"
              r"5xx|errors?|outage|incident|"
              r"requests?|orders?|keeps?|returning|(?:since\s+)?this\s+morning|logs|configs?|"
              r"work(?:ing)?\s+out|find\s+out|dig(?:\s+through)?|give|report|broke|broken|at|"
              r"part|traffic|files|workspace|bundle|changelog|deployment|manifest|exact|numbers|"
              r"figures|values|quot\w*|show(?:s|ing)?|come|taken|endpoint|post|time\s+out|"
              r"timing\s+out|time-?outs?|using|ultimately|behind|spikes?|jump|prove|evidence|"
              r"symptoms?|breakdowns?|(?:blow(?:s|ing)?|blew)\s+up|not\s+just|(?:they|it)\s+(?:sits?|lives?)\s+in|"
              # who is hit: "for part of our users", "when customers try to pay"
              r"users|customers|shoppers|people|placing|place|pay|try|source|back\s+(?:it\s+)?up|"
              r"mak(?:e|es|ing)|file|includ\w*|placement|where|come\s+from|gateway|/api/v1/checkout|track(?:ing)?\s+down|start(?:s|ed)?|began|settings|"
              r"pin(?:ned)?\s+down|roughly|around|cit(?:e|ing)|getting|erroring(?:\s+out)?|(?:at\s+)?the\s+edge|"
              r"(?:(?:since|at|around)\s+)?(?:about\s+)?\d{1,2}:\d{2}(?:\s*utc)?|\d+(?=\s*%)|"
              r"504ing|fall(?:s|ing)?\s+over|(?:good|large|big)\s+(?:share|chunk|portion)|chunk|share|"
              r"portion|some|figures|attempts|"
              r"end(?:s|ing)?\s+(?:up\s+)?in|(?:(?<=\berror\s)|(?<=\b504\s)|(?<=\b5xx\s))pages?|"
              # when it fails: "after about half a minute"
              r"sum\s+up|times\s+out|dying|dies|can(?:'t|not|\s+not)\s+(?:complete|finish|place|pay)|till|after\s+(?:about\s+|roughly\s+)?(?:half\s+a|a|\d+)\s+(?:minutes?|seconds?|secs?)")
QUESTIONS = (
    Question("gateway", "how long the gateway waits on a route",
             Grammar((r"gateway|gateway's|nginx|(?:edge\s+|front\s+|front-door\s+)?proxy|edge|web\s+server|"
                      r"front[\s-]?end|front[\s-]door(?:\s+server)?|entry\s+(?:server|point)|"
                      r"gateway\.conf",), (
                 WAIT, CUT_OFF,
                 r"read\s+timeout|how\s+many\s+seconds|seconds|use|uses|apply|applies|"
                       r"applied|set|sets|configured|routes?|location|endpoint|calls?|"
                       r"requests?|before\s+(?:it\s+)?(?:returns?\s+|returning\s+)?(?:a\s+)?504|before|put|for|"
                       r"on|api|budget|path|secs?|how\s+many\s+secs|front(?:\s+door)?|willing|connection|checkout(?:-api)?|"
                       r"proxy_read_timeout|config|cfg|conf|keep|open|hold|give|upstream|"
                       r"backend|response|answers?|repl(?:y|ies)|respond|504s?|post|get|generic|"
                       r"catch-all|settings|general|ordinary|normal|regular|box|server|in\s+front|"
                 r"forwards?|(?:web\s+)?traffic|pass(?:es)?\s+(?:\w+\s+)?along|cutting|"
                 r"sends?\s+back(?:\s+an?\s+(?:error|504))?|allowed(?:\s+to\s+take)?|front-door|"
                 r"(?:checkout\s+)?page|site|out\s+front|"
                 r"take|takes"), (ROUTE,)),
             ("locations", "gateway-config"), gateway,
             example="What read timeout does the gateway use for checkout?"),
    Question("timeout", "how long checkout-api waits for an upstream service",
             Grammar((WAIT, r"before\s+(?:timing\s+out|giving\s+up)|how\s+many\s+(?:seconds|secs)|"
                            r"(?:upstreams\.[\w-]+\.)?timeout_seconds"), (
                 CUT_OFF,
                 r"checkout(?:-api)?(?:'s)?|(?:checkout\s+)?system|use|uses|configur(?:e|es|ed)|set|sets|allow(?:s|ed)?|gives?|appl(?:y|ies|ied)|"
                 r"timing\s+(?:them\s+|it\s+)?out|responses?|"
                 r"towards|prepared|set\s+to|"
                 r"config|live|current|production|prod|retries|upstream|service|client|willing|value|"
                 r"how\s+many\s+seconds|seconds|how\s+many\s+retries|when\s+calling|calling|"
                 r"when|between|makes?|against|calls?|put|(?:to\s+)?reserv\w*(?:\s+stock)?|"
                 r"(?:a\s+)?(?:reply|response|answer)\s+from|respond|reply|answer|settings|backend|"
                 r"before\s+(?:it\s+(?:times\s+out|gives\s+up)|the\s+call\s+is\s+abandoned)|"
                 r"abandon(?:s|ing)?\s+(?:the|a)\s+(?:call|request)|bail(?:s|ing)?(?:\s+out)?|keep(?:s)?|"
                 r"block(?:s|ing)?(?:\s+on)?|toward|times?\s+(?:the\s+call|it|them)\s+out|"
                 r"come\s+back(?:\s+with)?|until|asks?|asking|rings?|let\s+it\s+take|before\s+it\s+(?:stops|quits)|"
                 r"before",),
                 (UPSTREAM_SLOT,)),
             ("upstreams", "checkout-config"), timeout,
             example="How long does checkout-api wait for inventory-service before timing out?"),
    Question("root-cause", "the root cause of the checkout failures, with numbers and files",
             Grammar((r"(?:(?:real|actual|true)\s+)?root\s+cause|why|diagnos\w*|debug\w*|investigat\w*|"
                      r"caus(?:e|es|ed|ing)|what(?:\s+(?:actually|really|exactly))?\s+broke|"
                      r"get\s+to\s+the\s+bottom\s+of|"
                      r"break(?:s|ing)|culprits?|"
                      r"what(?:'s|\s+is)?(?:\s+(?:actually|really))?\s+mak(?:es|ing)|"
                      r"underlying\s+(?:cause|problem|issue|reason)|behind|rca|"
                      r"(?:real|actual|true|main)\s+reasons?|reasons?(?=\s+(?:why|that|for)\b)",),
                     (ROOT_WORDS,)),
             ("incident", "severity", "timeout", "retries", "checkout-config", "endpoint",
              "abandoned", "inventory-log", "release", "change", "deployed", "index",
              "inventory-config", "migration", "read-timeout", "checkout-log", "first-error",
              "gateway-log", "gateway-timeout", "gateway-config", "image", "deployment",
              "previous"), compose,
             example="Why is checkout failing? Find the root cause."),
    Question("durations", "how long the abandoned stock calls took",
             Grammar((r"how\s+(?:long|slow)|how\s+much\s+time|how\s+many\s+(?:milliseconds|ms|seconds)|"
                      r"durations?|duration_ms|latenc(?:y|ies)|timings?|times(?=\s+of\b)|took|"
                      r"last(?:ed)?|"
                      r"elapsed(?:\s+times?)?",), (
                 r"inventory(?:[-\s]service)?|stock(?:-holding)?|reserv\w*|calls?|requests?|endpoint|"
                 r"in\s+the\s+end|"
                 r"abandon(?:ed)?|dropped|left\s+hanging|checkout(?:-api)?|"
                 r"(?:gave|given)\s+up(?:\s+(?:waiting\s+)?(?:on|for))?|after|walked\s+away\s+from|timed\s+out|timed|that|were|did|"
                 r"take|taking|(?:to\s+)?(?:answer|respond|reply|finish|complete)|by\s+the\s+time|"
                 r"(?:set|setting|put)\s+aside(?:\s+stock)?|run|running|ran|spend|spent|before|when|stopped\s+waiting(?:\s+on)?|(?:in\s+)?(?:the\s+)?cases?\s+where|"
                 r"end\s+up(?:\s+with)?|in\s+(?:milliseconds|ms)|milliseconds|ms|slow|"
                 r"reach(?:ed)?|during(?:\s+the\s+incident)?|side|real|actual|"
                 r"inventory-service\.log|logs?|logged|/v2/stock/reserve",)),
             ("abandoned", "endpoint", "inventory-log"), durations,
             example="How long did the inventory calls that checkout gave up on take?"),
    Question("release", "which inventory-service version production runs",
             Grammar((r"versions?|releases?|images?|builds?|tags?|deployed|running|runs|live",), (
                 r"(?:inventory|stock)(?:[-\s]service)?|production|prod|current(?:ly)?|previous(?:ly)?|"
                 r"environment|env|servers?|pins?|pinned|carr(?:y|ies)|roll(?:ing|ed)?\s+back(?:\s+from)?|"
                 r"before|the\s+current\s+one|came\s+before|preced\w*|run|deploy\w*|"
                 r"roll(?:s|ed|ing)?\s+out|rollout|k8s|kubernetes|manifest|container|pods?|file|cluster|"
                 r"(?:this|yesterday)\s+morning|today|still|ship(?:ped)?|(?:the\s+)?(?:new|old)(?:er)?(?:\s+one)?|"
                 r"after|since|for\s+(?:real\s+)?customers|customer-facing|put\s+(?:out|into|on)|put(?=\s+live\b)|(?:went|go(?:es)?)\s+out|side|"
                 r"\d{1,2}:\d{2}|serving(?:\s+(?:production\s+|prod\s+|live\s+)?traffic)?|"
                 r"\d+\.\d+\.\d+",)),
             ("image", "previous", "deployment"), release,
             example="Which inventory-service version is deployed in production?"),
    Question("incident", "which incident this is and its severity",
             Grammar((r"incidents?|inc|severity|severe|sev(?:-?\d)?|priority(?:\s+level)?|"
                      r"how\s+(?:much\s+)?(?:serious(?:ly)?|bad|severe(?:ly)?|urgent)|urgency",), (
                 r"how\s+high(?:\s+up)?|id|number|ticket|outage|problem|issue|filed(?:\s+under)?|opened|"
                 r"declare|"
                 r"given|record(?:ed)?|logged|assigned|working(?:\s+on)?|dealing(?:\s+with)?|covers?|apply|belongs?(?:\s+to)?|how|"
                 r"how\s+(?:bad|severe|serious)|bad|serious|level|priority|rated|rating|officially|"
                 r"class(?:ed|ified)|graded|marked|flagged|labell?ed|tagged|(?:triage\s+)?category|"
                 r"write-?up|put(?:\s+in)?|"
                 r"(?:the\s+)?checkout(?:\s+(?:outage|failures?|errors?))?|current|INCIDENT\.md|mess|official|"
                 r"reference|identifier|sev-?\d|as|notes|scale|ranked|running|(?:the\s+)?on-call(?:\s+(?:person|engineer))?|"
                 r"person",)),
             ("incident", "severity", "incident-file"), incident,
             example="Which incident is this, and what is its severity?"),
)


def _first(pattern: str, text: str, group: int = 1) -> str | None:
    found = re.search(pattern, text, re.M)
    return found.group(group) if found else None


def _children(text: str, key: str) -> list[str]:
    """The keys one level under the top-level `key` of an indented YAML file."""
    found, inside = [], False
    for line in text.splitlines():
        if line and not line[0].isspace() and not line.startswith("#"):
            inside = line.split(":", 1)[0] == key
        elif inside and line.startswith("  ") and not line[2].isspace() and ":" in line:
            found.append(line.strip().split(":", 1)[0])
    return [name for name in found if not name.startswith("#")]


def _upstreams(config: str) -> str:
    """Each upstream of a service config with its timeout and retries: "cart-service 5 2"."""
    return LIST_SEPARATOR.join(
        f"{name} {yaml_value(config, 'upstreams', name, 'timeout_seconds')} "
        f"{yaml_value(config, 'upstreams', name, 'retries')}"
        for name in _children(config, "upstreams"))


def _locations(conf: str) -> dict[str, str]:
    """proxy_read_timeout per `location` block of an nginx config (blocks without one
    are left out)."""
    waits, where = {}, None
    for line in conf.splitlines():
        words = line.split("#", 1)[0].split()
        if words[:1] == ["location"] and words[-1:] == ["{"]:
            where = words[1]
        elif words[:1] == ["}"]:
            where = None
        elif where and words[:1] == ["proxy_read_timeout"]:
            waits[where] = words[1].rstrip(";")
    return waits


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
        facts["upstreams"] = _upstreams(text["checkout-config"])
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
        waits = _locations(text["gateway-config"])
        facts["gateway-timeout"] = waits.get("/api/v1/checkout")
        facts["locations"] = LIST_SEPARATOR.join(f"{k} {v}" for k, v in waits.items())
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
