"""Scenario "audit": a licence audit of three services' dependencies (the capstone).

Three manifests (pip-compile output, package.json, go.mod; 129 packages in all), a
registry snapshot with each package's licence per version, the company's licence policy
and its exceptions register. Three packages need attention: one is AGPL (forbidden,
but an older MIT release exists), one has no licence on record (a newer release adds
one), one is LGPL (covered by a recorded exception). The licence report is computed
from the files by the tool, so its output is long, tabular and easy to summarize badly:
"some licence problems in billing" is not an audit.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path

from jupyter_compaction.scenarios.base import (
    LIST_SEPARATOR,
    MISSING,
    Fact,
    Known,
    Question,
    Scenario,
    Step,
    make_list_files,
    make_read_file,
    missing,
    operators,
    or_missing,
    template,
)
from jupyter_compaction.scenarios.grammar import OPERATORS, Grammar, Slot
from jupyter_compaction.scenarios.truth import files as workspace_files
from jupyter_compaction.tools import ToolError
from jupyter_compaction.vocab import UNKNOWN
from jupyter_compaction.workspace import Workspace

ECOSYSTEMS = ("pypi", "npm", "go")
NONE = "none"
_GO_REQUIRE = re.compile(r"^\s*(?:require\s+)?([\w.\-/]+\.[\w.\-/]+)\s+(v[\w.\-+]+)")


def _pip_compile(text: str) -> list[tuple[str, str, str]]:
    """(package, version, role) from pip-compile output, the role read from "# via" lines."""
    pins: list[tuple[str, str]] = []
    vias: dict[str, list[str]] = {}
    for line in text.splitlines():
        stripped = line.strip()
        if "==" in stripped and not stripped.startswith("#"):
            name, version = stripped.split("#")[0].strip().split("==", 1)
            pins.append((name, version))
            vias[name] = []
        elif stripped.startswith("#") and pins:
            names = stripped.lstrip("# ").removeprefix("via").split(",")
            vias[pins[-1][0]] += [n.strip() for n in names if n.strip()]
    return [
        (n, v, "direct" if "-r requirements.in" in vias[n] else "via " + ", ".join(vias[n]))
        for n, v in pins
    ]


def parse_manifest(path: str, text: str) -> tuple[str, list[tuple[str, str, str]]]:
    """(ecosystem, [(package, version, role)]) of a pip-compile requirements.txt, a
    package.json or a go.mod; the role says whether the dependency is direct."""
    name = path.rsplit("/", 1)[-1]
    if name.endswith(".txt"):
        return "pypi", _pip_compile(text)
    if name == "package.json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ToolError(f"{path!r} is not valid JSON ({exc.msg}, line {exc.lineno}).") from None
        runtime = [(n, v.lstrip("^~="), "runtime") for n, v in data.get("dependencies", {}).items()]
        dev = [(n, v.lstrip("^~="), "dev") for n, v in data.get("devDependencies", {}).items()]
        return "npm", runtime + dev
    if name == "go.mod":
        found = [(_GO_REQUIRE.match(line), line) for line in text.splitlines()]
        return "go", [
            (m[1], m[2], "indirect" if "// indirect" in line else "direct")
            for m, line in found
            if m
        ]
    raise ToolError(
        f"{path!r} is not a manifest this tool reads (requirements.txt, package.json, go.mod)."
    )


def make_tools(ws: Workspace) -> list[Callable[..., str]]:
    def snapshot(ecosystem: str) -> dict:
        if ecosystem not in ECOSYSTEMS:
            raise ToolError(f"Unknown ecosystem {ecosystem!r}; use one of {', '.join(ECOSYSTEMS)}.")
        return json.loads(ws.read_text(f"registry/{ecosystem}.json"))

    def license_report(manifest: str) -> str:
        """Licence of every package pinned in a manifest, from the registry snapshot.

        Reads requirements.txt (pip-compile output), package.json or go.mod.
        """
        ecosystem, pins = parse_manifest(manifest, ws.read_text(manifest))
        data = snapshot(ecosystem)
        rows, counts = [], Counter()
        for package, version, role in sorted(pins):
            record = data["packages"].get(package, {})
            info = record.get("versions", {}).get(version)
            licence = info["license"] if info else "NOT IN SNAPSHOT"
            counts[licence] += 1
            detail = f"; released {info['released']}; {info['license_source']}" if info else ""
            where = f"; {record['repository']}" if record else ""
            rows.append(f"- {package} {version}: {licence} ({role}{detail}{where})")
        tally = ", ".join(f"{n} {lic}" for lic, n in sorted(counts.items(), key=lambda x: -x[1]))
        head = (
            f"{len(pins)} packages in {manifest} ({ecosystem}, registry snapshot "
            f"{data['meta']['snapshot']}): {tally}"
        )
        return "\n".join([head, *rows])

    def package_info(ecosystem: str, name: str) -> str:
        """The registry snapshot's record of one package: licence of every version, notes."""
        record = snapshot(ecosystem)["packages"].get(name)
        if record is None:
            raise ToolError(
                f"No {ecosystem} package {name!r} in the registry snapshot; "
                "check the spelling (Go modules use their full path)."
            )
        return json.dumps(record, indent=2)

    return [make_list_files(ws), make_read_file(ws), license_report, package_info]


FLAG = r"^- (\S+ \S+): ((?:AGPL|GPL|SSPL|LGPL)\S*|NOASSERTION|NOT IN SNAPSHOT)"
# "pypi pdfmill": the ecosystem of a report and the first package it flags, to look up.
CHECK = (r"^\d+ packages in \S+ \((\w+), registry[\s\S]*?^- (\S+) \S+: "
         r"(?:AGPL|GPL|SSPL|LGPL|NOASSERTION)")
# The newest release (the registry lists newest first) under a licence LP-1 allows.
ALLOWED_RELEASE = r'"(v?[\d.]+)": \{\s*"license": "(?:MIT|BSD-[23]-Clause|Apache-2\.0|ISC)"'
EXCEPTION = r"^\| (EX-\d+) \| (\S+) \| [^|]+\| [^|]+\| (services/\S+) \| [^|]+\| ([\d-]+) \|"

# Every pin of a report with its licence: "graphviz-wasm 0.9.2 LGPL-2.1-or-later".
PIN = r"^- (\S+ \S+): (.+?) \((?:direct|via|runtime|dev|indirect)"
# Every row of the register: "EX-5 chardet tools/etl-scripts 2024-12-31".
REGISTER = r"^\| (EX-\d+) \| ([^|( ]+)[^|]*\| [^|]+\| [^|]+\| (\S+) \| [^|]+\| ([\d-]+) \|"
STEPS = (
    Step("list the {services}/ folder", "list_files", {"folder": "{services}"}, (
        Fact("manifests", r"^(services/\S+)  [\d,]+ bytes$", many=True),)),
    Step("list the {policy}/ folder", "list_files", {"folder": "{policy}"}, (
        Fact("policy-file", r"^(policy/\S*policy\S*\.md)  "),
        Fact("exceptions-file", r"^(policy/\S*exceptions\S*\.md)  "))),
    Step("read {policy-file}", "read_file", {"path": "{policy-file}"}, (
        Fact("forbidden-rule", r"^## (LP-\d+) Forbidden"),
        Fact("exception-rule", r"^## (LP-\d+) Weak copyleft"),
        Fact("no-licence-rule", r"^## (LP-\d+) No licence"))),
    Step("licence report for {item}", "license_report", {"manifest": "{item}"}, (
        Fact("count[{item}]", r"^(\d+) packages in "),
        Fact("flagged[{item}]", FLAG, default=NONE, many=True),
        Fact("licences[{item}]", PIN, default=NONE, many=True),
        Fact("check[{item}]", CHECK)), each="manifests"),
    Step("look up {item_1}", "package_info", {"ecosystem": "{item_0}", "name": "{item_1}"}, (
        Fact("release[{item_1}]", ALLOWED_RELEASE, default=NONE),), each="check[*]"),
    Step("read {exceptions-file}", "read_file", {"path": "{exceptions-file}"}, (
        Fact("exceptions", EXCEPTION, many=True), Fact("register", REGISTER, many=True))),
    Step("licence report for {manifest}", "license_report", {"manifest": "{manifest}"}, (
        missing("manifest", r"\bNo file '([^']+)' in the workspace"),
        Fact("count-of-manifest", r"^(\d+) packages in "),
        Fact("flagged-of-manifest", FLAG, default=NONE, many=True),
        Fact("licences-of-manifest", PIN, default=NONE, many=True))),
)
def _verdict(f: Known, manifest: str, flagged: str) -> str:
    """What the policy says about one flagged "package version licence"."""
    package, version, licence = flagged.split(" ", 2)
    if licence.startswith("LGPL"):
        records = [e.split(" ") for e in f["exceptions"].split(LIST_SEPARATOR)
                   if "exceptions" in f]
        found = [e for e in records if len(e) == 4 and e[1] == package
                 and manifest.startswith(e[2])]
        if found:
            return (f"{package} {version} in {manifest} ({licence}) is allowed by exception "
                    f"{found[0][0]} until {found[0][3]}")
        return f"{package} {version} in {manifest} ({licence}) needs an exception under " \
               f"{f['exception-rule']}"
    rule = f["no-licence-rule"] if licence in ("NOASSERTION", "NOT IN SNAPSHOT") else \
        f["forbidden-rule"]
    release = f[f"release[{package}]"]
    fix = f"; fix: move to {release}" if release != NONE else ""
    return f"{package} {version} in {manifest} ({licence}) is blocked by {rule}{fix}"


def compose(f: Known) -> str:
    """The audit report: every manifest, and a verdict for each flagged package."""
    manifests = f["manifests"].split(LIST_SEPARATOR) if "manifests" in f else []
    scope = "; ".join(f"{m}: {f[f'count[{m}]']} packages" for m in manifests) or UNKNOWN
    verdicts = [_verdict(f, m, item) if f[f"flagged[{m}]"] != UNKNOWN else
                f"{m}: {UNKNOWN}" for m in manifests
                for item in f[f"flagged[{m}]"].split(LIST_SEPARATOR) if item != NONE]
    return f"Licence audit ({scope}). " + ". ".join(verdicts or [f"Findings: {UNKNOWN}"]) + "."


FLAGGED = ("AGPL", "GPL", "SSPL", "LGPL")  # licence families the policy looks at
NO_LICENCE = ("NOASSERTION", "NOT IN SNAPSHOT")
ALLOWED = ("MIT", "BSD-2-Clause", "BSD-3-Clause", "Apache-2.0", "ISC")


def _licences(root: Path, manifest: str) -> list[tuple[str, str, str, str]]:
    """(ecosystem, package, version, licence) of each pin of a manifest, in name order."""
    ecosystem, pins = parse_manifest(manifest, (root / manifest).read_text())
    registry = json.loads((root / f"registry/{ecosystem}.json").read_text())["packages"]
    rows = []
    for package, version, _ in sorted(pins):
        info = registry.get(package, {}).get("versions", {}).get(version)
        rows.append((ecosystem, package, version, info["license"] if info else NO_LICENCE[1]))
    return rows


def _flagged(rows: list[tuple[str, str, str, str]]) -> list[tuple[str, str, str, str]]:
    return [r for r in rows if r[3].startswith(FLAGGED) or r[3] in NO_LICENCE]


def _pins(rows: list[tuple[str, str, str, str]]) -> str:
    """Pins as facts hold them: "package version licence", or "none"."""
    return LIST_SEPARATOR.join(f"{p} {v} {lic}" for _, p, v, lic in rows) or NONE


def _allowed_release(root: Path, ecosystem: str, package: str) -> str:
    """The newest release (the registry lists newest first) under an allowed licence."""
    registry = json.loads((root / f"registry/{ecosystem}.json").read_text())["packages"]
    versions = registry.get(package, {}).get("versions", {})
    return next((v for v, info in versions.items() if info["license"] in ALLOWED), NONE)


def _rules(text: str) -> dict[str, str]:
    """Rule ids by heading: "## LP-2 Forbidden" gives forbidden-rule = LP-2."""
    names = {"Forbidden": "forbidden-rule", "Weak copyleft": "exception-rule",
             "No licence": "no-licence-rule"}
    found = {}
    for line in text.splitlines():
        if line.startswith("## LP-"):
            rule, _, title = line[3:].partition(" ")
            found |= {fact: rule for start, fact in names.items() if title.startswith(start)}
    return found


def _rows(text: str) -> list[list[str]]:
    """The cells of each row of the exceptions table."""
    return [[cell.strip() for cell in line.strip().strip("|").split("|")]
            for line in text.splitlines() if line.startswith("| EX-")]


def _register(text: str) -> list[str]:
    """Every exception of the register: "id package service ends"."""
    return [f"{r[0]} {r[1].split()[0]} {r[4]} {r[6]}" for r in _rows(text) if len(r) >= 7]


def _exceptions(root: Path, text: str) -> list[str]:
    """Exceptions on record for the services in the workspace: "id package service ends"
    (one for a service that is not here, or for a tool, is not this audit's)."""
    return [f"{r[0]} {r[1].split()[0]} {r[4]} {r[6]}" for r in _rows(text)
            if len(r) >= 7 and r[4].count("/") == 1 and (root / r[4]).is_dir()]


def truth(root: Path, slots: Mapping[str, str]) -> dict[str, str]:
    """The audit's facts, from the manifests, the registry snapshot and the policy files."""
    facts = dict(slots)
    services, policy = slots.get("services", "services"), slots.get("policy", "policy")
    manifests = workspace_files(root, services) if (root / services).is_dir() else []
    facts["manifests"] = LIST_SEPARATOR.join(manifests)
    for manifest in manifests:
        rows = _licences(root, manifest)
        flagged = _flagged(rows)
        facts[f"count[{manifest}]"] = str(len(rows))
        facts[f"flagged[{manifest}]"] = _pins(flagged)
        facts[f"licences[{manifest}]"] = _pins(rows)
        checked = [r for r in flagged if r[3] != NO_LICENCE[1]]
        if checked:
            ecosystem, package = checked[0][:2]
            facts[f"check[{manifest}]"] = f"{ecosystem} {package}"
            facts[f"release[{package}]"] = _allowed_release(root, ecosystem, package)
    papers = workspace_files(root, policy) if (root / policy).is_dir() else []
    for path in papers:
        name = path.rsplit("/", 1)[-1]
        if "exceptions" in name:
            facts["exceptions-file"] = path
            facts["exceptions"] = LIST_SEPARATOR.join(_exceptions(root,
                                                                  (root / path).read_text()))
            facts["register"] = LIST_SEPARATOR.join(_register((root / path).read_text())) \
                or NONE
        elif "policy" in name:
            facts["policy-file"] = path
            facts |= _rules((root / path).read_text())
    if "manifest" in slots and not (root / slots["manifest"]).is_file():
        facts[f"{MISSING}manifest"] = slots["manifest"]
    elif "manifest" in slots:
        rows = _licences(root, slots["manifest"])
        facts["count-of-manifest"] = str(len(rows))
        facts["flagged-of-manifest"] = _pins(_flagged(rows))
        facts["licences-of-manifest"] = _pins(rows)
    return {k: v for k, v in facts.items() if v}


def manifest_size(f: Known) -> str:
    """How many packages one manifest pins."""
    return f"{f['manifest']} pins {f['count-of-manifest']} packages."


def one_manifest(f: Known) -> str:
    """Which of one manifest's licences need attention (how many, when counted)."""
    ops = operators(f)
    if "count" in ops and f["flagged-of-manifest"] != UNKNOWN:
        flagged = [p for p in f["flagged-of-manifest"].split(LIST_SEPARATOR) if p != NONE]
        verb = "needs" if len(flagged) == 1 else "need"
        return (f"{len(flagged)} of the {f['count-of-manifest']} packages in {f['manifest']} "
                f"{verb} attention: {f['flagged-of-manifest']}.")
    answer = (f"{f['manifest']}: {f['count-of-manifest']} packages; needing attention: "
              f"{f['flagged-of-manifest']}.")
    if "yesno" in ops and f["flagged-of-manifest"] != UNKNOWN:
        return ("No. " if f["flagged-of-manifest"] == NONE else "Yes. ") + answer
    return answer


def _register_rows(register: str) -> list[list[str]]:
    """The register's entries, each [id, package, service, end]."""
    return [r.split(" ") for r in register.split(LIST_SEPARATOR)] \
        if register not in (UNKNOWN, NONE) else []


def _yes_or_no(f: Known, found: list[str]) -> str:
    """The opener "Yes. " or "No. " when the task asks yes or no, else nothing."""
    return ("Yes. " if found else "No. ") if "yesno" in operators(f) else ""


def exceptions(f: Known) -> str:
    """The exceptions register: every entry, how many, or those for one package."""
    rows = _register_rows(f["register"])
    where = f"Exceptions on record ({f['exceptions-file']})"
    ops = operators(f)
    if f["register"] == UNKNOWN:
        return f"{where}: {UNKNOWN}."
    if "package" in f:
        found = [f"{r[0]} for {r[2]} until {r[3]}" for r in rows if r[1] == f["package"]]
        return f"{_yes_or_no(f, found)}{where} for {f['package']}: {', '.join(found) or NONE}."
    if "count" in ops:
        return f"{where}: {len(rows)}."
    return f"{where}: {', '.join(' '.join(r) for r in rows) or NONE}."


def under(licence: str, expression: str) -> bool:
    """Whether an SPDX licence `expression` ("Apache-2.0 OR MIT") names `licence` or a
    version of it ("LGPL" is LGPL-2.1-or-later; "GPL" is not LGPL), in any case."""
    ids = re.split(r"\s+(?:AND|OR|WITH)\s+|[()]", expression)
    wanted = licence.lower()
    return any(i.lower() == wanted or i.lower().startswith(wanted + "-") for i in ids)


def _packages_under(licence: str, pins: str, negated: bool = False) -> list[str]:
    """The "package version" of each pin ("package version licence") under `licence`
    (negated: not under it)."""
    return [" ".join(pin.split(" ", 2)[:2]) for pin in pins.split(LIST_SEPARATOR)
            if pin.count(" ") >= 2 and under(licence, pin.split(" ", 2)[2]) != negated]


def licensed(f: Known) -> str:
    """The packages one manifest pins under the licence asked, or not under it (how many,
    or yes or no)."""
    pins, ops = f["licences-of-manifest"], operators(f)
    where = f"Packages of {f['manifest']} {'not ' if 'not' in ops else ''}under {f['licence']}"
    if pins == UNKNOWN:
        return f"{where}: {UNKNOWN}."
    found = _packages_under(f["licence"], pins, negated="not" in ops)
    count = f"{len(found)}: " if "count" in ops else ""
    return f"{_yes_or_no(f, found)}{where}: {count}{', '.join(found) or NONE}."


def licence_exceptions(f: Known) -> str:
    """The exceptions on record for the services' packages under the licence asked."""
    manifests = f["manifests"].split(LIST_SEPARATOR) if "manifests" in f else []
    pins = [f[f"licences[{m}]"] for m in manifests]
    where = f"Exceptions on record ({f['exceptions-file']}) for the packages under {f['licence']}"
    if not manifests or UNKNOWN in pins or f["register"] == UNKNOWN:
        return f"{where}: {UNKNOWN}."
    packages = dict.fromkeys(p.split(" ")[0] for pin in pins
                             for p in _packages_under(f["licence"], pin))
    found = [f"{r[0]} for {r[1]} in {r[2]} until {r[3]}"
             for r in _register_rows(f["register"]) if r[1] in packages]
    return (f"{_yes_or_no(f, found)}{where} ({', '.join(packages) or NONE}): "
            f"{', '.join(found) or NONE}.")


def manifests(f: Known) -> str:
    """The manifests under the services folder, or how many."""
    if "count" in operators(f) and f["manifests"] != UNKNOWN:
        return f"Manifests under {f['services']}/: {len(f['manifests'].split(LIST_SEPARATOR))}."
    return f"Manifests under {f['services']}/: {f['manifests']}."


rules = template("Licence policy ({policy-file}): forbidden licences {forbidden-rule}, weak "
                 "copyleft {exception-rule}, no licence {no-licence-rule}.")
# A manifest by its path, or by its service ("the billing service's requirements.txt").
SERVICE_MANIFESTS = (("billing", "requirements", "services/billing/requirements.txt"),
                     ("(?:web|storefront)", "package", "services/web/package.json"),
                     ("ingest", "go", "services/ingest/go.mod"))
MANIFEST = Slot("manifest", r"(services/[\w./-]+(?:requirements\.txt|package\.json|go\.mod))",
                aliases=tuple((rf"(?:the\s+)?{service}(?:\s+service(?:'s)?)?(?:'s)?\s+"
                               rf"(?:{stem}[\w.]*|manifest)", path)
                              for service, stem, path in SERVICE_MANIFESTS))
SERVICES = Slot("services", r"(services)/?(?!\w|\.\w)", default="services")
POLICY = Slot("policy", r"(policy)/(?!\w|\.\w)", default="policy")
# A licence by its SPDX id or family ("LGPL", "LGPL-2.1-or-later", "Apache-2.0", "MIT").
LICENCE_ID = (r"(?:A?GPL|LGPL|SSPL|MIT|ISC|Apache(?!\s+2\b)|BSD|MPL|EPL|PSF|HPND|Unlicense)"
              r"(?:-(?!licen[cs]ed\b)[\w.]*\w)*")  # "MIT-licensed" names MIT
LICENCE_NAME = Slot("licence", f"({LICENCE_ID})(?:-licen[cs]ed)?",
                    aliases=((r"apache\s+2(?:\.0)?", "Apache-2.0"),))
PACKAGE = Slot("package", r"(?:for|covers?|covering|to\s+use|lets?\s+us\s+use|licen[cs]e\s+of|"
                          r"so(?:\s+that)?(?=\s+\S+\s+(?:can|could|may)\b))\s+"
                          r"(?:the\s+(?=\S+\s+package\b))?"
                          # "to use otherwise-restricted licences": a kind of licence or library
                          r"(?![\w.-]+(?:\s+[\w-]+)?\s+(?:licen[cs]es?|librar(?:y|ies)|packages|dependencies)\b)"
                          r"(?!(?:the|a|an|it|what|which|record|my|our|your|their|this|that|"
                          r"these|those|me|us|"
                          rf"services?|{LICENCE_ID})\b)([a-z](?:[\w.-]*\w)?)(?:\s+package\b)?",
               optional=True)
# "Is chardet covered by an exception?", "Has graphviz-wasm been granted one?": the package
# before "covered", not a common noun.
COVERED = Slot("package", r"(?!(?:the|a|an|it|we|you|they|there|what|which|packages?|"
                          r"anyone|someone|anybody|somebody|nobody|"
                          r"have|has|had|is|are|was|were|been|"
                          r"dependenc(?:y|ies)|deps?|pkgs?|register|polic(?:y|ies)|records?|"
                          r"lists?|files?|manifests?|ones?|any(?:thing)?|exceptions?|waivers?|"
                          rf"services?|{LICENCE_ID})\b)([a-z](?:[\w.-]*\w)?)\s+(?:(?:is\s+|are\s+)?"
                          r"covered|(?:has\s+)?been\s+(?:covered|granted|exempted|given|issued)|"
                          r"let\s+through|"
                          # "Has graphviz-wasm got an exception?", "Does chardet have one?"
                          r"(?:have|has|got)(?=\s+(?:got\s+)?(?:an?\s+|any\s+)?(?:approved\s+|written\s+)?(?:licen[cs]e\s+)?"
                          r"(?:exceptions?|waivers?)\b))\b",
                optional=True)
# "Has OSPO given graphviz-wasm a waiver?": the package given one.
GIVEN = Slot("package", r"(?:given|granted|issued)\s+(?!(?:an?|any|the|it|them|us)\b)"
                        r"([a-z](?:[\w.-]*\w)?)(?=\s+(?:an?\s+|any\s+)?(?:special\s+|written\s+)?"
                        r"(?:licen[cs]e\s+)?(?:exceptions?|waivers?|pass)\b)", optional=True)
# "graphviz-wasm: is it covered ...?": the package named as the topic, then "it".
TOPIC = Slot("package", r"^(?!(?:the|a|an|it|any|which|what|how|our|all|every|policy|services?|"
                        r"licen[cs]es?|"
                        r"exceptions?|waivers?|recorded|approved|special)\b)"
                        # ... or before its exception: "graphviz-wasm licence exception on file?"
                        r"([a-z](?:[\w.-]*\w)?)(?=:\s+[^:]*\bit\b|\s+(?:licen[cs]e\s+)?"
                        r"(?:exception|waiver)s?\b)",
             optional=True)
LICENCE = r"licen[cs]\w*(?:-wise)?"
DEPENDENCIES = (r"dependenc(?:y|ies)|deps?|pkgs?|"
                r"(?:vendor\s+|third-party\s+|outside\s+|external\s+)?(?:librar(?:y|ies)|libs?)|add-?ons?|"
                r"(?:outside|external|third-party)\s+(?:packages|code)|(?:third-party\s+)?building\s+blocks|"
                r"(?:outside\s+|third-party\s+|external\s+|other\s+)?software|"
                r"requirements")
OSPO = r"ospo|office|grant(?:s|ed)?|approv\w*"  # who keeps the policy and its exceptions
UNDER = (r"(?:come|comes|fall|falls)\s+under|under|licen[cs]ed|released|distributed|with|uses?|"
         r"using|carr(?:y|ies)|contains?|includ(?:e|es|ing)|is|ships?|shipped|shared|published|"
         r"covered\s+by|(?:(?:weak|strong)[\s-])?copyleft|permissive|"
         r"are|has|have|any|pulls?\s+in|pulling\s+in|depends?\s+on")
QUESTIONS = (
    Question("manifest", "the licences one manifest needs attention for",
             Grammar((LICENCE, r"(?:the\s+)?polic(?:y|ies)\s+flags?|needs?\s+attention|attention|"
                               r"legal\s+terms|worr(?:y|ied)(?=\s+about\b)|worries|"
                               r"problem(?:s|atic)?|issues?|(?:red\s+)?flag(?:s|ged|ging)?|closer\s+look|"
                               r"review|(?:usage|use)\s+terms|terms\s+of\s+use"), (
                 r"packages?|needs?\s+attention|attention|needs?|needing|problems?|issues?|"
                 r"report|review|look(?:ed)?\s+at|to\s+check|(?:closer|second)\s+look|take|red|items?|"
                 r"(?:turn|show|come|came)(?:s|ed)?\s+up|"
                 r"exceptions?|worr(?:y|ied)|concern\w*|according\s+to|findings?|unknown|registry|follow-?up|"
                 r"legal(?:\s+terms)?|listed|"
                 r"(?:the\s+)?polic(?:y|ies)\s+flags?|flag(?:s|ged)?|open[\s-]?source|"
                 rf"polic(?:y|ies)|contains?|pull\s+in|pins?|pinned|{DEPENDENCIES}|of|"
                 r"(?:someone|somebody)\s+to\s+look\s+at|sign[\s-]?off|hiding|lurking|carr(?:y|ies)|(?:does\s+not|doesn't|don't)\s+allow|not\s+allowed|someone's\s+attention|trouble|forbidden|as|deal\s+with|before\s+release|go(?:ing)?\s+(?:over|through)|"
                 r"before\s+the\s+release|file|(?:[\w-]+\s+)?service's|sign-?off|approval|used(?:\s+by)?|"
                 rf"(?:more\s+)?carefully|caus(?:e|es|ing)(?:\s+us)?|before\s+(?:we\s+)?ship\w*|{OSPO}|terms",),
                 (MANIFEST,), ("count", "yesno")),
             ("count-of-manifest", "flagged-of-manifest"), or_missing(one_manifest),
             example="Which licences in services/web/package.json need attention?"),
    Question("manifest-size", "how many packages one manifest pins",
             Grammar((rf"{OPERATORS['count']}|"
                      # "how long is the list of packages", "how big is the dependency list"
                      r"head\s*count|(?:how\s+(?:long|big|large)\s+is|(?:the\s+)?(?:size|length)\s+of)"
                      r"(?=\s+(?:the|its|their)\s+(?:(?:dependency|package)\s+"
                      r"list|list\s+of\s+(?:packages|dependencies)))",), (
                 rf"packages?|{DEPENDENCIES}|librar(?:y|ies)|modules?|"
                 r"(?:lock(?:s|ed)?|pins?|pinned)(?:\s+down|\s+to\s+(?:a\s+)?(?:specific\s+|fixed\s+)?versions?)?|"
                 r"pins?|nail(?:s|ed)\s+down|size|file|go\s+module|(?:dev\s+dependencies\s+)?included|(?:a\s+)?(?:feel|sense)\s+for|(?:with\s+(?:their|its)\s+)?versions?|"
                 r"pinned|(?:a\s+)?(?:fixed|particular|specific|exact)\s+versions?|lists?|listed|holds?|contains?|declares?|"
                 r"declared|requires?|required|in|of|total|direct|indirect|includ(?:ed|ing)|"
                 r"(?:[\w-]+\s+)?service's|third-party|external|"
                 r"(?:fix|lock|pin)(?:s|es|ed)?\s+to\s+(?:a\s+)?(?:specific\s+|fixed\s+|set\s+|single\s+)?"
                 r"versions?",),
                 (MANIFEST,)),
             ("count-of-manifest",), or_missing(manifest_size),
             example="How many packages does services/web/package.json pin?"),
    Question("audit", "a licence audit of the services",
             Grammar((r"audit\w*|compl(?:y|iance|iant)|review\w*|violat\w*|break\w*|breach\w*|"
                      r"verif\w*|follow(?:s|ing)?|(?:clash|conflict)(?:s|es|ing)?\s+with|block(?:s|ing)?\s+(?:the\s+)?release|"
                      r"(?:ok|okay|fine|acceptable|allowed|safe)(?=\s+(?:to\s+(?:ship|use)\s+)?(?:under|with)\b)|"
                      r"(?<=\bare\s)allowed(?=\s+by\b)|"  # what "is allowed by" a policy: its rules
                      r"pass(?:es)?|(?:ok|fine|clean)\s+licen[cs]e-wise|flag\w*|licen[cs]\w*\s+checks?|"
                      r"against|versus|licen[cs]\w*\s+(?:problems?|issues?)|respect\w*|"
                      r"within(?=\s+(?:our|the)\b)|vet(?:s|ted|ting)?|"
                      r"cleared(?=\s+(?:under|by|for|against)\b)",), (
                 LICENCE, rf"rule[\s-]?(?:sheets?|books?)|{DEPENDENCIES}|packages?|third-party|"
                          r"open[\s-]?source|against|versus|"
                          r"vs\.?|polic(?:y|ies)|rules?|exceptions?|according\s+to|open\s+source|"
                          r"(?:isn't|not|non-?)\s*compliant|compliant|conform\w*|follow\w*|"
                          r"offending|block(?:s|ing|ers?)?|problems?|needs?|appl(?:y|ies)|fix|"
                          r"exact|versions?|manifests?|services/?|service's|service|folder|"
                          r"three|3|billing|ingest|web|use|used|uses|using|run|with|exposure|oss|"
                          r"pre-release|compar\w*|check(?:ed)?\s+against|over|(?:does\s+not|doesn't|don't)\s+allow|written\s+down|(?:not|isn't)\s+(?:ok|okay|fine)|"
                          rf"before\s+the\s+release|release|ship(?:ping)?|{OSPO}|"
                          r"make|do|perform|conduct|carry\s+out|go\s+through|fails?|failing|"
                          r"how\s+to\s+fix|written(?:\s+in)?|missing|(?:next|this)\s+week|tomorrow|"
                          r"(?:(?:is|are)\s+not|isn't|aren't|not)\s+allowed|disallowed|services'|depends?\s+on|keep|"
                          r"rel(?:y|ies)\s+on|outside|pieces|stays?|staying|or\s+not|kept|says?|said|"
                          r"sign-?off|apps?|applications?|allow(?:s|ed)?|company(?:'s)?|(?:go\s+or\s+)?no-go|"
                          r"(?:in-)?house(?:\s+rules)?|in\s+(?:order|line)\s+with|(?:usage|use)\s+terms|terms(?:\s+of\s+use)?"),
                     (SERVICES, POLICY)),
             ("manifests", "count[{item}]", "flagged[{item}]", "exceptions",
              "release[{item_1}]", "forbidden-rule", "exception-rule", "no-licence-rule"),
             compose, example="Audit the licences of the services under services/ against "
                              "policy/."),
    Question("rules", "which rules the licence policy sets",
             Grammar((r"rule[\s-]?(?:sheets?|books?)|rules?|forbid\w*|"
                      r"(?:requir(?:e|es)|needs?)(?=\s+(?:an?\s+)?(?:recorded\s+|written\s+)?(?:exception|waiver|"
                      r"sign-?off|approval|review))|allow\w*|says?|outline|summari[sz]e|sum\s+up|"
                      r"do'?s\s+and\s+don'?ts|"
                      r"ban(?:s|ned)?|"
                      r"prohibit\w*|disallow\w*|permit\w*|(?:without|with\s+no)\s+(?:any\s+|a\s+)?review|"
                      r"without\s+anyone\s+having\s+to\s+review(?:\s+them|\s+it)?|"
                      r"without\s+asking(?:\s+anyone)?(?:\s+first)?",), (
                 LICENCE, r"polic(?:y|ies)|set|sets|defines?|states?|covers?|lays?\s+down|"
                          r"laid\s+down|lay\s+out|kept|according\s+to|requirements|numbered|"
                          r"LP-\d+|exceptions?|needs?|packages|with\s+no|without|ship|use|vs|"
                          r"types?|kinds?|sorts?|outright|freely|never|not(?=\s+allow)|extra|(?:usage|use)\s+terms|(?:the\s+)?short\s+version|rule[\s-]?sheets?|guidance|guidelines?|oss|fine|(?:a\s+)?summary(?:\s+of)?|documents?|acceptable|record(?:ed)?|written\s+down|(?:may|can|must)\s+not|decid\w*|"
                          r"can(?:'t|not)?|lets?|open[\s-]?source|sign-?off|approval|docs?|LP|"
                          r"requir(?:es?|ed|ing)|"
                          rf"{DEPENDENCIES}|{OSPO}|on|which|company|organi[sz]ation|shipped|"
                          r"(?:special\s+)?permission|isn'?t|aren'?t|(?:is|are)\s+not|"
                          r"(?:in-)?house|accept(?:ed)?|terms|written"),
                 (POLICY,)),
             ("forbidden-rule", "exception-rule", "no-licence-rule", "policy-file"), rules,
             example="What rules does the licence policy in policy/ set?"),
    Question("exceptions", "which licence exceptions are on record",
             Grammar((r"exceptions?|waivers?|exemptions?|"
                      r"(?:special\s+|written\s+)?(?:licen[cs]e\s+)?permissions?(?:\s+slips?)?|"
                      r"(?:written\s+|special\s+)?pass(?=\s+(?:from|on)\b)",), (
                 LICENCE, r"on\s+record|record(?:ed)?|register|on\s+file|entr(?:y|ies)|"
                          rf"covers?|holds?|contains?|listed|lists?|polic(?:y|ies)|rules|{OSPO}|"
                          r"signed-off|policy/exceptions\.md|ex\s+ids|ids|written\s+down|given|put|"
                          r"(?:otherwise[\s-])?(?:restricted|forbidden|banned|disallowed)|(?:usage|use)\s+terms|"
                          rf"packages?|{DEPENDENCIES}|written|"
                          r"granted|issued|(?:signed|sign)[\s-]+off|one-?off|even\s+though|"
                          r"break(?:s|ing)?|normal(?:ly)?|usual(?:ly)?|used|open[\s-]?source|"
                          r"(?:go(?:es|ing)?\s+)?against|despite|in\s+spite\s+of|use|"
                          r"not\s+(?:be\s+)?allowed|needs?|bend(?:s|ing)?|let\s+through|lets?(?:\s+us)?|"
                          r"(?:step|go)\s+outside|(?:as\s+)?(?:a\s+)?special\s+cases?"),
                 (POLICY, PACKAGE, COVERED, GIVEN, TOPIC), ("count", "yesno")),
             ("register", "exceptions-file"), exceptions,
             example="Which licence exceptions are recorded in policy/?"),
    Question("licensed", "which packages of one manifest are under a given licence",
             Grammar((rf"packages?|{DEPENDENCIES}|libraries|library|modules?|pins?|anything|"
                       # "what's licensed LGPL in ...": which packages are
                       r"what(?:'s|\s+is|\s+are)?(?=\s+(?:licen[cs]ed|under)\b)",), (
                 UNDER, LICENCE, r"pinned|in|of|one|ones|terms|listed|required|declared|registry|"
                                 r"file"),
                 (MANIFEST, LICENCE_NAME),
                 ("not", "count", "yesno")),
             ("licences-of-manifest",), or_missing(licensed),
             example="Which package in services/web/package.json is under the LGPL?"),
    Question("licence-exceptions", "which exceptions are on record for the services' "
                                   "packages under a given licence",
             Grammar((r"exceptions?|waivers?|exemptions?|"
                      r"(?:special\s+|written\s+)?permissions?(?:\s+slips?)?|"
                      r"(?:written\s+|special\s+)?pass(?=\s+(?:from|on)\b)",), (
                 UNDER, LICENCE, rf"given|put|rules?|packages?|{DEPENDENCIES}|"
                                 r"on\s+record|record(?:ed)?|register|"
                                 r"on\s+file|cover(?:s|ed|ing)?|appl(?:y|ies)|exists?|"
                                 rf"services?/?|used|uses|lets?|through|pieces|components?|parts|open[\s-]?source|ex\s+ids|ids|ever|hold|have|"
                                 rf"polic(?:y|ies)|ships?|keep|{OSPO}|(?:signed|sign)[\s-]+off|rel(?:y|ies|ying)\s+on|"
                                 r"anyone|someone|somebody|written(?:\s+down)?"),
                 (SERVICES, POLICY, LICENCE_NAME), ("yesno",)),
             ("manifests", "licences[{item}]", "register", "exceptions-file"),
             licence_exceptions, example="Is there a licence exception for the LGPL package?"),
    Question("manifests", "which dependency manifests the services have",
             Grammar((r"manifest\s+files?|manifests?|(?:dependency|package)\s+(?:files?|lists?)|"
                      r"lock\s*files?|pinned\s+(?:packages|dependencies)|"
                      r"files?\s+(?:that\s+)?(?:declare|list|pin|listing|declaring)\w*|"
                      r"lists?\s+of\s+dependencies|"
                      r"(?:(?:declare|list|pin)s?|lists?\s+of)\s+what\s+(?:a|each|every|the)\s+services?\s+"
                      r"(?:(?:depends?|rel(?:y|ies))\s+on|needs\s+installed)|"
                      r"(?:list|declare|pin)s?\s+(?:(?:each\s+service's|the\s+services'|the|their|its)\s+)?"
                      r"(?:(?:outside|external|third-party|other)\s+)?"
                      r"(?:dependencies|packages|software|librar(?:y|ies))",), (
                 rf"{DEPENDENCIES}|package|requirements(?:\.txt)?|go\.mod|package\.json|exist|"
                 r"use|hold|holds|contains?|declares?|keeps?|kept|where|files|services?/?|three|"
                 r"rel(?:y|ies)\s+on|depends?\s+on|file|(?:come|ship)s?\s+with|"
                 r"between(?:\s+them)?|(?:can\s+be\s+)?found|pinned|required|needs?|apps?|"
                 r"belongs?(?:\s+to)?|"
                 r"applications?",),
                 (SERVICES,), ("count",)),
             ("manifests",), manifests, example="List the dependency manifests under services/."),
)

SCENARIO = Scenario(
    name="audit",
    title="Licence audit of three services",
    task=(
        "Before the release, audit the open-source licences of every dependency of the three "
        "services under `services/` against our policy in `policy/`. Report each package "
        "that breaks the policy or needs an exception, with its exact version, its manifest, "
        "the rule that applies and the fix."
    ),
    given=(),
    steps=STEPS,
    must_keep=(
        "pdfmill 2.1.0",
        "AGPL-3.0-only",
        "github.com/fastq/fastcsv v1.4.0",
        "1.9.4",
        "v1.5.1",
        "graphviz-wasm 0.9.2",
        "EX-7",
        "LP-2",
        "LP-4",
        "2025-06-30",
    ),
    compose=compose,
    make_tools=make_tools,
    questions=QUESTIONS,
    read_truth=truth,
)
