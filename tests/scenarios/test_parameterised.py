"""Parameterised answers: a question is answered for the entity the task names, for every
entity the bundled workspaces hold (issue 33, item 2).

The entities are listed here from the files themselves (paths, config keys, register rows),
the task is worded from a template, and the answer must be the truth's answer to that
labelled question (`Scenario.expected_for`), never the default entity's.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import re
from collections import Counter

import pytest

from jupyter_compaction import runner, scenarios

ROOMY = 200_000


def _root(name: str):
    return scenarios.load(name).workspace_dir


def upstreams() -> list[str]:
    text = (_root("debug") / "config/checkout-api.yaml").read_text()
    return re.findall(r"^  ([\w-]+):\n    base_url", text, re.M)


def routes() -> list[str]:
    return re.findall(r"location (\S+) \{", (_root("debug") / "config/gateway.conf").read_text())


def python_files(name: str) -> list[str]:
    root = _root(name)
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py"))


def manifests() -> list[str]:
    root = _root("audit")
    return sorted(p.relative_to(root).as_posix() for p in (root / "services").rglob("*")
                  if p.is_file())


def register() -> list[str]:
    text = (_root("audit") / "policy/exceptions.md").read_text()
    return [row.split("|")[2].split()[0] for row in text.splitlines() if row.startswith("| EX-")]


ECOSYSTEM = {"requirements.txt": "pypi", "package.json": "npm", "go.mod": "go"}


def licence_ids(ecosystem: str) -> list[str]:
    """Every SPDX id the registry snapshot gives a release of `ecosystem`."""
    registry = json.loads((_root("audit") / f"registry/{ecosystem}.json").read_text())
    found = {i for record in registry["packages"].values()
             for release in record["versions"].values()
             for i in re.split(r" (?:AND|OR|WITH) ", release["license"])}
    return sorted(found - {"NOASSERTION"})


def records(folder: str) -> list[str]:
    return sorted(p.stem for p in (_root("logistics") / folder).glob("*.json"))


CASES = [
    *(("debug", "timeout", f"What timeout does checkout-api use for {u}?", {"upstream": u}, ())
      for u in upstreams()),
    *(("debug", "gateway", f"How long does the gateway wait on {r}?", {"route": r}, ())
      for r in routes()),
    *(("agents", f"{kind}-of-file", f"Which {what} does {p} define?", {"path": p}, ())
      for p in python_files("agents")
      for kind, what in (("table", "dispatch table"), ("retry", "retry policy"))),
    *(("markdown", "imports-of-file", f"What does {p} import?", {"path": p}, ())
      for p in python_files("markdown")),
    *(("markdown", "importers", f"Which files import {p}?", {"module": p}, ())
      for p in python_files("markdown")),
    *(("audit", "manifest", f"Which licences in {m} need attention?", {"manifest": m}, ())
      for m in manifests()),
    *(("audit", "manifest", f"How many packages in {m} need attention?", {"manifest": m},
       ("count",)) for m in manifests()),
    *(("audit", "manifest-size", f"How many packages does {m} pin?", {"manifest": m}, ())
      for m in manifests()),
    *(("audit", "exceptions", f"Is there a licence exception for {p}?",
       {"policy": "policy", "package": p}, ("yesno",)) for p in register()),
    *(("audit", "licensed", f"Which packages in {m} are under {lic}?",
       {"manifest": m, "licence": lic}, ())
      for m in manifests() for lic in licence_ids(ECOSYSTEM[m.rsplit("/", 1)[-1]])),
    *(("audit", "licence-exceptions", f"Which exceptions cover the {lic} packages?",
       {"services": "services", "policy": "policy", "licence": lic}, ())
      for lic in sorted({i for e in ECOSYSTEM.values() for i in licence_ids(e)})),
    *(("logistics", "tier", f"What loyalty tier is the customer of ticket {t} in?",
       {"ticket": t}, ()) for t in records("tickets")),
    *(("logistics", "tier", f"What loyalty tier is customer {c} in?", {"customer": c}, ())
      for c in records("customers")),
]


QUICK = 2  # cases of each question in the quick subset (the others are `slow`)


def _cases() -> list:
    seen: Counter = Counter()
    params = []
    for case in CASES:
        seen[case[:2]] += 1
        params.append(pytest.param(*case, id=case[2][:70],
                                   marks=[] if seen[case[:2]] <= QUICK else [pytest.mark.slow]))
    return params


@pytest.mark.parametrize(("name", "question", "task", "slots", "ops"), _cases())
def test_the_answer_is_for_the_entity_the_task_names(name, question, task, slots, ops):
    scenario = scenarios.load(name)
    understood = scenario.understand(task)
    assert understood is not None and understood[0].name == question
    with runner.start(name, task=task, budget=ROOMY) as session:
        run = session.play()
        right = scenario.expected_for(question, slots, ops, session.agent.workspace)
    assert (run.answer, run.outcome) == (right, "correct")


def test_the_truth_reads_each_entity_itself():
    debug, audit = scenarios.load("debug"), scenarios.load("audit")
    assert "timeout_seconds: 8 for pricing-service (retries: 1" in debug.expected_for(
        "timeout", {"upstream": "pricing-service"})
    assert "waits 15s on /api/" in debug.expected_for("gateway", {"route": "/api/"})
    assert "EX-5 for tools/etl-scripts" in audit.expected_for(
        "exceptions", {"policy": "policy", "package": "chardet"}, ("yesno",))
    assert set(upstreams()) == {"cart-service", "pricing-service", "inventory-service",
                                "payment-gateway"}


def imported_files(path: str) -> set[str]:
    """The workspace files `path`'s top-level imports name, by Python's own rules
    (`importlib.util.resolve_name`), one module per statement as the scenario counts
    them: `from . import a, b` names the package's `a` (a submodule, else the package)."""
    root = _root("markdown")
    package = ".".join(path.split("/")[:-1])
    found = set()
    for node in ast.parse((root / path).read_text()).body:
        if isinstance(node, ast.ImportFrom):
            base = importlib.util.resolve_name("." * node.level + (node.module or ""), package) \
                if node.level else node.module
            choices = [[base] if node.module else [f"{base}.{node.names[0].name}", base]]
        else:
            choices = [[a.name] for a in node.names] if isinstance(node, ast.Import) else []
        for names in choices:  # each named module: the first of its readings that is a file
            files = [f for name in names for f in (name.replace(".", "/") + ".py",
                                                   name.replace(".", "/") + "/__init__.py")
                     if (root / f).is_file()]
            found |= set(files[:1])
    return found


@pytest.mark.parametrize("target", ["markdown/util.py", "markdown/__init__.py",
                                    "markdown/extensions/__init__.py", "markdown/core.py"])
def test_the_importers_of_a_file_are_those_python_resolves_to_it(target):
    right = [p for p in python_files("markdown") if target in imported_files(p)]
    answer = scenarios.load("markdown").expected_for("importers", {"module": target})
    assert answer == f"Files that import {target} at the top level: {', '.join(right)}."


def test_the_packages_under_a_licence_are_read_from_the_manifest_and_registry():
    """The web service's LGPL pins, read here with json alone, and the exception that
    covers them: what 'the LGPL package' and 'an exception for it' ask."""
    root, audit = _root("audit"), scenarios.load("audit")
    pins = json.loads((root / "services/web/package.json").read_text())
    registry = json.loads((root / "registry/npm.json").read_text())["packages"]
    lgpl = [f"{name} {version.lstrip('^~=')}" for kind in ("dependencies", "devDependencies")
            for name, version in sorted(pins.get(kind, {}).items())
            if "LGPL" in registry[name]["versions"][version.lstrip("^~=")]["license"]]
    assert lgpl == ["graphviz-wasm 0.9.2"]
    assert audit.expected_for("licensed", {"manifest": "services/web/package.json",
                                           "licence": "LGPL"}) == \
        f"Packages of services/web/package.json under LGPL: {lgpl[0]}."
    assert audit.expected_for("licence-exceptions", {
        "services": "services", "policy": "policy", "licence": "LGPL"}, ("yesno",)).startswith(
        "Yes. Exceptions on record (policy/exceptions.md) for the packages under LGPL "
        "(graphviz-wasm): EX-7 for graphviz-wasm in services/web until 2025-06-30")
