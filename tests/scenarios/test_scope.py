"""The declared scope: free wordings map to a scenario's questions, are answered right,
and anything else is declined honestly at turn 1 (issue 21, items 1 and 2; since issue 33
a wording is understood only when every content word of it is: see
test_labelled_questions.py for the hand-labelled set)."""

from __future__ import annotations

import re

import pytest

from jupyter_compaction import runner, scenarios
from jupyter_compaction.events import ToolCalled
from jupyter_compaction.scenarios.base import OPERATORS
from jupyter_compaction.scenarios.grammar import Role

ROOMY = 200_000  # a budget no run here comes near: the answer, not compaction, is tested

WORDINGS = {
    ("agents", "table-of-file"): [
        "Does agents/router.py define a dispatch table?",
        "Is there a tool dispatch table in agents/shell_agent.py?",
        "Check agents/memory.py: does it hold a tool registry?",
        "Which dispatch table does the file agents/browser_tools.py define?",
        "read agents/mcp_bridge.py and name its handler registry",
        "Tell me the routing table defined in agents/router.py.",
        "In agents/loop.py, is any dispatch map defined?",
        "What dispatch table is in agents/retry.py, if any?",
    ],
    ("agents", "retry-of-file"): [
        "Does agents/retry.py define a retry policy?",
        "Is there a retry policy in agents/router.py?",
        "Check agents/loop.py: does it define retries?",
        "Which retry policy does the file agents/retry.py define?",
        "read agents/memory.py and name its backoff class",
        "Tell me the retry class of agents/retry.py.",
        "In agents/schema.py, is any retry policy defined?",
        "What back-off policy is in agents/rate_limiter.py, if any?",
    ],
    ("agents", "retry-files"): [
        "Which files in agents/ define a retry policy?",
        "Go through every Python file under agents/ and find the retry policy.",
        "List the modules of agents/ that implement retries.",
        "Where is back-off configured, across the agents/ folder?",
        "Find the retry policy in agents/ except agents/router.py.",
        "retry policy: which file of agents/ has it?",
        "Read the files inside agents/ and report any retry class.",
        "Which files within agents/ define a backoff policy, ignoring agents/loop.py?",
    ],
    ("agents", "table-files"): [
        "Go through every Python file in agents/ and tell me which ones define a tool "
        "dispatch table.",
        "Read every file under agents/ and report which define a dispatch table.",
        "Which files in agents/ map tool names to handlers?",
        "Find the tool dispatch tables in agents/, ignore agents/router.py.",
        "Under agents/, which modules hold a handler registry?",
        "dispatch tables across the agents/ folder, excluding agents/shell_agent.py",
        "List the tool tables defined inside agents/.",
        "Which files of agents/ define a routing table? Skip agents/mcp_bridge.py.",
    ],
    ("agents", "files"): [
        "List the Python files under agents/.",
        "Which files are in agents/?",
        "What modules does the agents/ folder hold?",
        "Enumerate the files inside agents/.",
        "Give me an inventory of the files in agents/.",
        "Name the modules under agents/, except agents/router.py.",
        "which python files live in agents/",
        "List every module of agents/ but not agents/loop.py.",
    ],
    ("logistics", "resolution"): [
        "Find out why order ORD-1042 is late and decide what to offer the customer.",
        "Work support ticket TCK-5521 and decide what we offer the customer.",
        "Resolve ticket TCK-5521.",
        "Decide what we can offer for order ORD-1042; the customer wants a refund.",
        "Handle TCK-5521: the order is late and the customer wants a refund.",
        "Write the resolution for order ORD-1042.",
        "What should we offer on TCK-5521? Please decide.",
        "Order ORD-1042: decide on the refund request and what to propose instead.",
    ],
    ("logistics", "clauses"): [
        "Which policy clauses apply to order ORD-1042?",
        "What policies apply to ticket TCK-5521?",
        "Which rules cover the failed delivery of ORD-1042?",
        "List the policy clauses relevant to TCK-5521.",
        "For ORD-1042, which clauses of our policies are relevant?",
        "Which of our policies govern ticket TCK-5521?",
        "Policy check for ORD-1042: which clauses apply?",
        "What rules apply to the order of TCK-5521?",
    ],
    ("logistics", "slot"): [
        "When is the first free redelivery slot for order ORD-1042?",
        "What is the earliest date we can redeliver ORD-1042?",
        "Find a slot to deliver TCK-5521's parcel again.",
        "Book the next free redelivery for order ORD-1042: which slot?",
        "When can the depot re-deliver the parcel of ORD-1042?",
        "TCK-5521: earliest redelivery slot, please.",
        "Which date can we schedule the redelivery of ORD-1042?",
        "For ticket TCK-5521, when could we send it again?",
    ],
    ("logistics", "failure"): [
        "Why did the delivery of order ORD-1042 fail?",
        "Explain why ORD-1042 never arrived.",
        "What went wrong with the delivery of TCK-5521's order?",
        "Why is order ORD-1042 late?",
        "Find the reason the parcel of ORD-1042 was not delivered.",
        "TCK-5521: what happened to the package?",
        "What caused the failed delivery on ticket TCK-5521? Give the cause.",
        "Why did ORD-1042 not arrive on time?",
    ],
    ("logistics", "tier"): [
        "What loyalty tier is the customer of ticket TCK-5521 in?",
        "Which loyalty tier does customer CUS-20931 have?",
        "Tell me the tier of the customer behind order ORD-1042.",
        "What is CUS-20931's membership level?",
        "Loyalty programme status of the requester on TCK-5521?",
        "Is the customer of ORD-1042 in a loyalty tier?",
        "For TCK-5521, look up the customer's loyalty.",
        "Customer CUS-20931: which tier?",
    ],
    ("debug", "gateway"): [
        "What read timeout does the gateway use for checkout?",
        "How long does the gateway wait for checkout-api?",
        "What is the nginx timeout on the checkout route?",
        "Gateway timeout for checkout: how many seconds?",
        "How long will the proxy wait before a 504?",
        "Which timeout does the gateway apply?",
        "Tell me the gateway's wait limit.",
        "What limit does the proxy put on checkout calls?",
    ],
    ("debug", "timeout"): [
        "How long does checkout-api wait for inventory-service before timing out?",
        "What timeout does checkout use for inventory?",
        "Checkout's timeout for the inventory call?",
        "How long will checkout wait for stock reservations?",
        "What is the inventory timeout in the checkout config?",
        "Tell me checkout-api's timeout and retries for inventory-service.",
        "timeouts: checkout -> inventory",
        "Which limit does checkout put on the inventory call?",
    ],
    ("debug", "root-cause"): [
        "Why is checkout failing? Find the root cause.",
        "Find the root cause of the checkout 504s.",
        "Debug the checkout outage.",
        "Investigate why orders fail at checkout.",
        "What is causing the 504 errors?",
        "Diagnose the checkout failures from these logs and configs.",
        "Root cause, please: checkout broke this morning.",
        "Find out what broke checkout.",
    ],
    ("debug", "durations"): [
        "How long did the inventory calls that checkout gave up on take?",
        "How slow were the stock reservations?",
        "What durations did the abandoned reserve requests have?",
        "Show the latency of the inventory calls checkout abandoned.",
        "How long do reservations take now?",
        "Which duration did the slow inventory requests reach?",
        "How long did the reserve calls took, in ms?",
        "Inventory latency during the incident?",
    ],
    ("debug", "release"): [
        "Which inventory-service version is deployed in production?",
        "What version of inventory-service runs now?",
        "Which image is running in production?",
        "What release was deployed today?",
        "Tell me the inventory-service image version and the previous one.",
        "Which version runs in prod?",
        "What was deployed, and which release came before?",
        "inventory-service: current image?",
    ],
    ("debug", "incident"): [
        "Which incident is this, and what is its severity?",
        "What is the incident number?",
        "Give me the severity of this outage.",
        "Which incident ticket covers this?",
        "Incident id and sev, please.",
        "How severe is the incident?",
        "Name the incident and its severity.",
        "What severity was the incident opened with?",
    ],
    ("audit", "manifest"): [
        "Which licences in services/web/package.json need attention?",
        "Check the licences of services/billing/requirements.txt.",
        "Licence report for services/ingest/go.mod.",
        "Do the dependencies of services/web/package.json have licence problems?",
        "What licenses does services/billing/requirements.txt pull in?",
        "Review licensing for `services/ingest/go.mod`.",
        "services/web/package.json: any licence issue?",
        "Which packages of services/billing/requirements.txt have a licence to check?",
    ],
    ("audit", "manifest-size"): [
        "How many packages does services/web/package.json pin?",
        "How many dependencies are in services/billing/requirements.txt?",
        "Count the packages in services/ingest/go.mod.",
        "What is the number of libraries services/web/package.json lists?",
        "How many packages are listed in services/billing/requirements.txt in total?",
        "How many dependencies does services/ingest/go.mod require?",
        "Number of packages pinned in services/web/package.json?",
        "How many libraries does services/billing/requirements.txt contain?",
    ],
    ("audit", "audit"): [
        "Audit the licences of the services under services/ against policy/.",
        "Check every dependency licence in services/ against our policy in policy/.",
        "Review the licences of services/ against the policy/ folder.",
        "Licence audit: services/ versus policy/.",
        "Which dependencies in services/ violate the licence policy in policy/?",
        "Verify the licensing of services/ against policy/.",
        "Do the services under services/ comply with the licence rules in policy/?",
        "Find licence breaks across services/ according to policy/.",
    ],
    ("audit", "rules"): [
        "What rules does the licence policy in policy/ set?",
        "What does the policy in policy/ say about licences?",
        "Which licences does the policy under policy/ forbid?",
        "Outline the rules of our policy in policy/.",
        "What is allowed by the licence policy in policy/?",
        "List the policy rules from policy/.",
        "Which rules are in the policy of policy/?",
        "What does our licence policy forbid, according to policy/?",
    ],
    ("audit", "exceptions"): [
        "Which licence exceptions are recorded in policy/?",
        "List the exceptions in policy/.",
        "What waivers are on record under policy/?",
        "Which exception covers what, in policy/?",
        "Show me the licence exceptions from policy/.",
        "Are there any exceptions in policy/?",
        "Exceptions register in policy/: what does it hold?",
        "Which waiver is on file in policy/?",
    ],
    ("audit", "licensed"): [
        "Which package in services/web/package.json is under the LGPL?",
        "Which packages does services/billing/requirements.txt pin under AGPL-3.0-only?",
        "How many packages of services/ingest/go.mod are MIT licensed?",
        "List the BSD-3-Clause dependencies in services/billing/requirements.txt.",
        "Does services/web/package.json use any MPL package?",
        "Which libraries in services/web/package.json carry the Apache-2.0 licence?",
        "Show the ISC packages of services/ingest/go.mod.",
        "Are there Unlicense pins in services/billing/requirements.txt?",
    ],
    ("audit", "licence-exceptions"): [
        "Is there a licence exception for the LGPL package?",
        "Which exceptions cover the AGPL packages?",
        "Is there an exception for the MPL dependencies of services/?",
        "List the waivers for packages under LGPL.",
        "Do the LGPL-2.1-or-later packages have an exception on record?",
        "Which exceptions in policy/ cover packages licensed under EPL?",
        "Show the exceptions recorded for the HPND packages.",
        "Is any AGPL dependency covered by an exception in the register?",
    ],
    ("audit", "manifests"): [
        "List the dependency manifests under services/.",
        "Which manifests are in services/?",
        "What dependency files do the services under services/ have?",
        "Find the manifests across services/.",
        "Show the lock files in services/.",
        "Which manifest does each service in services/ use?",
        "Enumerate the dependency manifests of services/.",
        "What manifests exist under services?",
    ],
    ("markdown", "imports-of-file"): [
        "What does markdown/core.py import?",
        "Which package modules does markdown/extensions/toc.py import?",
        "List the imports of markdown/util.py.",
        "Imports in markdown/blockparser.py?",
        "What is imported by markdown/extensions/abbr.py?",
        "Read markdown/__init__.py and tell me its imports.",
        "Show the top-level imports of tests/test_syntax/extensions/test_toc.py.",
        "Which modules does the file markdown/serializers.py import?",
    ],
    ("markdown", "importers"): [
        "Which files import .util?",
        "What files import markdown.test_tools?",
        "List the modules that import ..util.",
        "Find the files that import markdown.",
        "Which modules import .core at the top level?",
        "Which files import the module .inlinepatterns?",
        "What files import `.treeprocessors`?",
        "Find every file which imports .blockprocessors.",
    ],
    ("markdown", "standalone"): [
        "Which files import nothing from the package?",
        "List the modules with no package imports.",
        "Which files stand alone?",
        "Find the self-contained modules.",
        "Which files do not import anything of the package?",
        "Which modules don't import the package?",
        "Which of the Python files have no imports from markdown?",
        "Name the files that import nothing.",
    ],
    ("markdown", "imports"): [
        "Map the top-level imports of every Python file in this package.",
        "For each Python file, list the package modules it imports.",
        "Report the imports of all files here.",
        "Read every file and map its imports.",
        "Which package modules does each file import?",
        "Map the imports, every module.",
        "List all the internal imports, file by file.",
        "Give me each file's imports of the package.",
    ],
    ("markdown", "files"): [
        "List the Python files of this package.",
        "Which files are in this workspace?",
        "How many Python files does the package have?",
        "What modules does this package contain?",
        "Enumerate the modules.",
        "Give me an inventory of the files.",
        "Which Python files are there?",
        "List every module of the package.",
    ],
}


def outcome(name: str, task: str) -> tuple[str, object, int]:
    with runner.start(name, task=task, budget=ROOMY) as session:
        run = session.play()
        workspace = session.agent.workspace if hasattr(session.agent, "workspace") else None
        calls = len([e for e in run.of(ToolCalled)])
        return scenarios.load(name).outcome(run, workspace), run, calls


QUICK_WORDINGS = 2  # of each question's eight, in the quick subset (the rest are `slow`)
CASES = [pytest.param(name, question, task,
                      marks=[pytest.mark.slow] if n >= QUICK_WORDINGS else [])
         for (name, question), tasks in WORDINGS.items() for n, task in enumerate(tasks)]


@pytest.mark.parametrize(("name", "question", "task"), CASES)
def test_each_wording_maps_to_its_question_and_is_answered_right(name, question, task):
    scenario = scenarios.load(name)
    assert scenario.question_of(task).name == question
    result, run, _ = outcome(name, task)
    assert result == "correct", (run.answer, scenario.grade(run.answer, task=task))


def test_every_question_has_eight_wordings():
    for name in scenarios.names():
        for question in scenarios.load(name).questions:
            assert len(WORDINGS.get((name, question.name), [])) >= 8, (name, question.name)


OUT_OF_SCOPE = [
    "Write a poem about parcels.",
    "What is the capital of France?",
    "Translate this ticket into German.",
    "Refactor agents/router.py to use a class.",
    "Delete every log file.",
    "Book me a flight to Lyon.",
    "Add a unit test for the retry policy.",
    "Email the customer.",
    "Compute 17 times 23.",
    "Explain how context compaction works.",
    "Rename the folder.",
]


@pytest.mark.parametrize("task", OUT_OF_SCOPE)
@pytest.mark.parametrize("name", scenarios.names())
def test_a_task_outside_the_scope_ends_unsupported_at_turn_one(name, task):
    assert scenarios.load(name).question_of(task) is None
    result, run, calls = outcome(name, task)
    assert (result, run.status, run.turn, calls) == ("unsupported", "unsupported", 1, 0)
    assert "cannot do this offline" in run.answer
    assert all(q.example in run.answer for q in scenarios.load(name).questions)


NARROW = {"agents": "Does agents/router.py define a dispatch table?",
          "logistics": "What loyalty tier is the customer of ticket TCK-5521 in?",
          "debug": "Which incident is this, and what is its severity?",
          "audit": "Which licence exceptions are recorded in policy/?",
          "markdown": "What does markdown/core.py import?"}


@pytest.mark.parametrize("name", scenarios.names())
def test_a_narrower_question_makes_fewer_calls(name):
    narrow, _, narrow_calls = outcome(name, NARROW[name])
    full, _, full_calls = outcome(name, scenarios.load(name).task)
    assert narrow == full == "correct"
    assert 0 < narrow_calls < full_calls


def test_the_first_text_block_says_which_question_was_understood():
    _, run, _ = outcome("logistics", NARROW["logistics"])
    first = next(b["text"] for m in run.transcript if m["role"] == "assistant"
                 for b in m["content"] if b["type"] == "text")
    assert first.startswith("Question understood: the customer's loyalty tier (ticket TCK-5521).")


@pytest.mark.parametrize("name", scenarios.names())
def test_each_scenario_declares_five_questions_and_an_independent_truth(name):
    scenario = scenarios.load(name)
    assert len(scenario.questions) >= 5 and scenario.read_truth is not None
    assert scenario.question_of(scenario.task) is not None  # its own task is in scope


@pytest.mark.parametrize(("task", "is_object"), [
    ("Which files import markdown/core.py?", True),
    ("List the files importing the module `markdown/core.py`.", True),
    ("Which files is markdown/core.py imported by?", True),
    ("What does markdown/core.py import?", False),
    ("Which modules are imported by markdown/core.py?", False),
    ("List the imports of markdown/core.py.", False),
])
def test_a_role_reads_which_side_of_its_verb_a_value_stands_on(task, is_object):
    """"import X" asks about X's importers, "X imports" about X's own imports."""
    value = re.search(r"markdown/core\.py", task)
    assert Role("import", object=True).accepts(value) is is_object
    assert Role("import", object=False).accepts(value) is not is_object
    question = "importers" if is_object else "imports-of-file"
    assert scenarios.load("markdown").understand(task)[0].name == question


def test_a_refusal_names_the_words_of_the_nearest_question_that_left_any():
    """"retries" is a word of the timeout question, not what it asks about: that question
    takes every word and does not apply, so the refusal names what the nearest question
    that left words over could not read."""
    task = "How many retries does checkout-api do against pricing-service?"
    words, _ = scenarios.load("debug").not_understood(task)
    assert "retries" in words
    run = runner.play("debug", task=task, budget=ROOMY)
    assert (run.status, run.turn) == ("unsupported", 1) and '"retries"' in run.answer


def test_when_every_question_takes_every_word_the_refusal_says_so(monkeypatch):
    from jupyter_compaction.models.simulated import SimulatedModel
    from jupyter_compaction.scenarios.base import ALL_KNOWN

    model = SimulatedModel("debug")
    monkeypatch.setattr(type(model.scenario), "not_understood", lambda self, task: ((), []))
    assert f"I did not understand: {ALL_KNOWN}." in model.out_of_scope("any task")


@pytest.mark.parametrize(("task", "opens"), [
    ("Was order ORD-1042 late?", "No. "),  # attempted on the promised date
    ("Was ORD-1042 delivered on time?", "Yes. "),  # the same fact, asked the other way
    ("Did ORD-1042 arrive on time?", "Yes. "),
    ("Was order ORD-1042 on time?", "Yes. "),  # "on time" names the attribute itself
])
def test_a_yes_or_no_follows_how_the_question_asks_it(task, opens):
    """"On time?" and "late?" ask about one fact with opposite answers: the yes or no
    follows the question, not the attribute's name."""
    run = runner.play("logistics", task=task, budget=ROOMY)
    assert run.answer.startswith(opens) and "so the order was not late" in run.answer


@pytest.mark.parametrize(("task", "understood"), [
    ("According to the tracking, why did the delivery of ORD-1042 fail?", True),
    ("Going by the carrier tracking, was order ORD-1042 late?", True),
    ("According to the old config, how long does checkout-api wait for inventory-service?",
     False),  # the old config is not what the timeout question reads
    ("Based on the logs, how long does checkout-api wait for inventory-service?", False),
    ("Per INCIDENT.md, what severity is this incident?", True),
    ("Per the old config, what timeout does checkout-api use for cart-service?", False),
])
def test_a_source_named_is_understood_only_when_the_question_reads_it(task, understood):
    """"According to X" forgives its own words only: X must be what the question reads."""
    scenario = scenarios.load("logistics" if "ORD-" in task else "debug")
    assert (scenario.understand(task) is not None) is understood


@pytest.mark.parametrize(("name", "task", "verb"), [
    ("logistics", "Book the first free redelivery slot for ORD-1042 now.", "Book"),
    ("logistics", "Schedule the redelivery of ORD-1042 for the first free slot.", "Schedule"),
    ("audit", "Fix the policy violations of the three services.", "Fix"),
    # an order in a second step, after a question or a request
    ("logistics", "Find the first free redelivery slot for ORD-1042 and book it for the "
                  "customer.", "book"),
    ("logistics", "What is the first free redelivery slot for ORD-1042? Then book it.", "book"),
    ("markdown", "List the package imports of every file, then draw them as a dependency "
                 "graph.", "draw"),
])
def test_an_order_to_change_something_is_refused_naming_its_verb(name, task, verb):
    """A task that opens with a verb that changes things and asks nothing is no question,
    though each of its other words belongs to one."""
    scenario = scenarios.load(name)
    assert scenario.understand(task) is None
    assert scenario.not_understood(task)[0] == (verb,)


def test_a_word_that_names_a_kind_of_thing_is_no_order():
    """After "and", "refund" names the rules ("our delivery and refund rules"), and the
    question is read; "and refund the amount" orders."""
    scenario = scenarios.load("logistics")
    asked = "Which sections of our delivery and refund rules apply to ORD-1042?"
    assert scenario.understand(asked)[0].name == "clauses"
    assert scenario.understand("Which clauses apply to ORD-1042, and refund the amount.") is None


@pytest.mark.parametrize(("name", "task"), [
    ("logistics", "Schedule a redelivery for order ORD-1042: when is the first slot?"),
    ("logistics", "Find the earliest redelivery slot we can book for ORD-1042."),
    ("logistics", "If we book a redelivery for TCK-5521, what is the first free slot?"),
    ("audit", "Run the licence audit and tell me how to fix what fails."),
])
def test_the_same_verbs_in_a_question_are_read(name, task):
    assert scenarios.load(name).understand(task) is not None


@pytest.mark.parametrize(("name", "task", "expected"), [
    # "how many times" and "how many seconds" measure; they count no items
    ("agents", "Which files in agents/ spell out how many times to try a failed call again?",
     ("retry-files", {"folder": "agents"})),
    ("agents", "How many files in agents/ define a retry policy?",
     ("retry-files", {"folder": "agents", OPERATORS: "count"})),
    # "something other than MIT" is the complement of MIT
    ("audit", "In services/web/package.json, which dependencies are under something other "
              "than MIT?",
     ("licensed", {"manifest": "services/web/package.json", "licence": "MIT",
                   OPERATORS: "not"})),
    # "what it imports from markdown" names the package, not a module that files import
    ("markdown", "Go through each Python file and tell me what it imports from markdown.",
     ("imports", {})),
    ("markdown", "Which files import markdown?", ("importers", {"module": "markdown"})),
    # a licence with its version after a space is its SPDX id
    ("audit", "which deps in services/ingest/go.mod use the Apache 2.0 licence",
     ("licensed", {"manifest": "services/ingest/go.mod", "licence": "Apache-2.0"})),
])
def test_what_an_operator_phrase_applies_to(name, task, expected):
    question, slots = scenarios.load(name).understand(task)
    assert (question.name, slots) == expected


@pytest.mark.parametrize(("name", "task", "expected"), [
    # a long phrase that ran into the order does not hide "a second time" after it
    ("logistics", "What's the soonest open time window to send order ORD-1042 out a second "
                  "time?", ("slot", {"order": "ORD-1042"})),
    # a yes/no is the question's form: "any other module" is no exclusion from a file list
    ("markdown", "Does markdown/__meta__.py pull in any other module of the package?",
     ("imports-of-file", {"path": "markdown/__meta__.py", OPERATORS: "yesno"})),
    # "the markdown package" is the package, not a module files import
    ("markdown", "Go through each Python file and list what it imports from the markdown "
                 "package at the top level.", ("imports", {})),
])
def test_a_reading_that_another_question_could_take(name, task, expected):
    question, slots = scenarios.load(name).understand(task)
    assert (question.name, slots) == expected
