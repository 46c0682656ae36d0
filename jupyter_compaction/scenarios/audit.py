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

from jupyter_compaction.scenarios.base import (
    Scenario,
    Step,
    have,
    make_list_files,
    make_read_file,
)
from jupyter_compaction.tools import ToolError
from jupyter_compaction.workspace import Workspace

ECOSYSTEMS = ("pypi", "npm", "go")
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


BILLING = "services/billing/requirements.txt"
WEB = "services/web/package.json"
INGEST = "services/ingest/go.mod"
COUNTS = {"report-billing": 56, "report-web": 38, "report-ingest": 35}

STEPS = (
    Step(
        "list",
        "list the services/ folder",
        "list_files",
        {"folder": "services"},
        "3 files under services/: billing/requirements.txt, ingest/go.mod, web/package.json",
        ("3 files under services/",),
    ),
    Step(
        "policy",
        "read policy/licence-policy.md",
        "read_file",
        {"path": "policy/licence-policy.md"},
        "policy/licence-policy.md: LP-2 forbids AGPL, GPL and SSPL in shipped services; "
        "LP-3 allows LGPL only with a recorded exception; LP-4 treats a package with no "
        "licence on record as forbidden",
        ("LP-4",),
    ),
    Step(
        "report-billing",
        f"licence report for {BILLING}",
        "license_report",
        {"manifest": BILLING},
        f"56 packages in {BILLING}; the only strong-copyleft one is pdfmill 2.1.0 (AGPL-3.0-only)",
        ("pdfmill 2.1.0",),
    ),
    Step(
        "pdfmill",
        "look up pdfmill",
        "package_info",
        {"ecosystem": "pypi", "name": "pdfmill"},
        "Decision: pin pdfmill==1.9.4; pdfmill was relicensed from MIT to AGPL-3.0-only in "
        "2.0.0 and 1.9.4 was the last MIT release",
        ("1.9.4 was the last MIT release",),
    ),
    Step(
        "report-web",
        f"licence report for {WEB}",
        "license_report",
        {"manifest": WEB},
        f"38 packages in {WEB}; the only LGPL one is graphviz-wasm 0.9.2 (LGPL-2.1-or-later)",
        ("graphviz-wasm 0.9.2",),
    ),
    Step(
        "graphviz",
        "look up graphviz-wasm",
        "package_info",
        {"ecosystem": "npm", "name": "graphviz-wasm"},
        "graphviz-wasm: LGPL-2.1-or-later in every release; loaded as a separate WebAssembly "
        "module at runtime",
        ("loaded as a separate WebAssembly module",),
    ),
    Step(
        "exceptions",
        "read policy/exceptions.md",
        "read_file",
        {"path": "policy/exceptions.md"},
        "Decision: keep graphviz-wasm; EX-7 in policy/exceptions.md allows graphviz-wasm 0.9.x "
        "(LGPL-2.1-or-later) in services/web until 2025-06-30",
        ("EX-7",),
    ),
    Step(
        "report-ingest",
        f"licence report for {INGEST}",
        "license_report",
        {"manifest": INGEST},
        f"35 packages in {INGEST}; only github.com/fastq/fastcsv v1.4.0 has no licence on "
        "record (NOASSERTION)",
        (f"35 packages in {INGEST}",),
    ),
    Step(
        "gomod",
        f"read {INGEST}",
        "read_file",
        {"path": INGEST},
        f"{INGEST} keeps github.com/fastq/fastcsv at v1.4.0 until the v1.5 API change is "
        "reviewed (ING-441)",
        ("ING-441",),
    ),
    Step(
        "fastcsv",
        "look up github.com/fastq/fastcsv",
        "package_info",
        {"ecosystem": "go", "name": "github.com/fastq/fastcsv"},
        "Decision: upgrade github.com/fastq/fastcsv to v1.5.0; it has no LICENSE file up to "
        "v1.4.0 and v1.5.0 adds BSD-3-Clause",
        ("v1.5.0 adds BSD-3-Clause",),
    ),
)


def compose(facts: Mapping[str, str]) -> str:
    """The audit report; a verdict needs the report line and the rule that decides it."""
    blocked, allowed, open_items = [], [], []
    if have(facts, "report-billing", "policy"):
        fix = "; pin pdfmill==1.9.4, the last MIT release" if have(facts, "pdfmill") else ""
        blocked.append(f"pdfmill 2.1.0 in {BILLING} is AGPL-3.0-only, forbidden by LP-2{fix}.")
    elif have(facts, "report-billing"):
        open_items.append(
            f"pdfmill 2.1.0 in {BILLING} (AGPL-3.0-only) is not yet checked against the policy."
        )
    if have(facts, "report-ingest", "policy"):
        fix = "; upgrade to v1.5.0, which adds BSD-3-Clause" if have(facts, "fastcsv") else ""
        if fix and have(facts, "gomod"):
            fix += ", once the API review in ING-441 is done"
        blocked.append(
            f"github.com/fastq/fastcsv v1.4.0 in {INGEST} has no licence on record, "
            f"forbidden by LP-4{fix}."
        )
    elif have(facts, "report-ingest"):
        open_items.append(
            f"github.com/fastq/fastcsv v1.4.0 in {INGEST} has no licence on "
            "record and is not yet checked against the policy."
        )
    if have(facts, "report-web", "exceptions"):
        how = ", loaded as a separate WebAssembly module" if have(facts, "graphviz") else ""
        allowed.append(
            f"graphviz-wasm 0.9.2 in {WEB} (LGPL-2.1-or-later{how}) is allowed by "
            "exception EX-7 until 2025-06-30."
        )
    elif have(facts, "report-web"):
        open_items.append(
            f"graphviz-wasm 0.9.2 in {WEB} (LGPL-2.1-or-later) needs an "
            "exception under LP-3 that has not been checked."
        )
    checked = sum(n for step_id, n in COUNTS.items() if have(facts, step_id))
    scope = "3 services" if have(facts, "list") else "the services"
    out = [
        f"Licence audit of {scope} ({checked} packages checked): {len(blocked)} blocked, "
        f"{len(allowed)} allowed by exception, {len(open_items)} open."
    ]
    out += [f"Blocked: {b}" for b in blocked] + [f"Exception: {a}" for a in allowed]
    out += [f"Open: {o}" for o in open_items]
    if have(facts, "policy", *COUNTS) and not open_items:
        out.append("Every other package is under a licence allowed by LP-1.")
    return " ".join(out)


SCENARIO = Scenario(
    name="audit",
    title="Licence audit of three services",
    task=(
        "Before the release, audit the open-source licences of every dependency of the three "
        "services under `services/` against our policy in `policy/`. Report each package "
        "that breaks the policy or needs an exception, with its exact version, its manifest, "
        "the rule that applies and the fix."
    ),
    steps=STEPS,
    must_keep=(
        "pdfmill 2.1.0",
        "AGPL-3.0-only",
        "1.9.4",
        "github.com/fastq/fastcsv v1.4.0",
        "v1.5.0",
        "ING-441",
        "graphviz-wasm 0.9.2",
        "EX-7",
        "LP-2",
        "LP-4",
        "2025-06-30",
    ),
    compose=compose,
    make_tools=make_tools,
)
