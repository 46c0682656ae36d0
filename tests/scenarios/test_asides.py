"""What a task says around its question (`scenarios/asides.py`): forgiven when left over,
never a place a question can hide in."""

from __future__ import annotations

import re

import pytest

from jupyter_compaction import scenarios
from jupyter_compaction.scenarios import asides
from jupyter_compaction.scenarios.base import OPERATORS
from jupyter_compaction.scenarios.grammar import Reader


def understood(name: str, task: str) -> tuple[str, dict[str, str]] | None:
    found = scenarios.load(name).understand(task)
    return (found[0].name, found[1]) if found else None


def aside_words(text: str) -> list[str]:
    reader = Reader(text)
    return [word for i, (_, _, word) in enumerate(reader.tokens) if i in reader.aside]


@pytest.mark.parametrize(("text", "words"), [
    ("I'm debugging the 504s: how long does the gateway wait?",
     ["I'm", "debugging", "the", "504s"]),
    ("Run the audit before we ship", ["before", "we", "ship"]),
    ("Which tier is the customer who placed ORD-1042 in?", ["who"]),
    ("Which exceptions, if any, cover LGPL?", ["if", "any"]),
    ("Would you mind listing the files?", ["Would", "you", "mind"]),
    ("The customer insists nobody rang the bell. Why did it fail?",
     ["The", "customer", "insists", "nobody", "rang", "the", "bell"]),
    ("Release is tomorrow: audit the services.", ["Release", "is", "tomorrow"]),
    ("OK agent, list the files.", ["OK", "agent"]),
    ("Quick check: the gateway's read timeout", ["Quick", "check"]),
    ("For my onboarding notes, how many files are there?", ["For", "my", "onboarding", "notes"]),
    ("Why did it fail?", []),  # one sentence is never an aside of itself
    ("The retry policy. The dispatch table.", []),  # nor is every sentence: one must ask
    ("The retry policy of agents/retry.py?", []),
    ("I want the author of agents/loop.py. Which files define a dispatch table?", []),
    # a lead-in before a dash: a participle, a past event, a noun and its "is"
    ("Poking at the router - which files define a dispatch table?",
     ["Poking", "at", "the", "router"]),
    ("Got a flaky call - does agents/loop.py retry?", ["Got", "a", "flaky", "call"]),
    ("Customer's on the phone - what do we offer?", ["Customer's", "on", "the", "phone"]),
    ("Sanity check - what is the timeout?", ["Sanity", "check"]),
    # a scene ends at the dash, where the question starts
    ("Before I refund - which tier is the customer of ORD-1042?", ["Before", "I", "refund"]),
    ("How many files, for exercise 2?", ["for", "exercise", "2"]),
    # an interjection opens a turn as "OK" does; a first-person clause ends where the
    # learner says what they need to know
    ("Honestly, which files define a dispatch table?", ["Honestly"]),
    ("Got a sec? Which files define a dispatch table?", ["Got", "a", "sec"]),
    ("ugh ok, which files define a dispatch table?", ["ugh", "ok"]),
    ("Pop quiz: which files define a dispatch table?", ["Pop", "quiz"]),
    ("last one for today - which files define a dispatch table?",
     ["last", "one", "for", "today"]),
    ("Bottom line for leadership: what broke?", ["Bottom", "line", "for", "leadership"]),
    ("Let's see if you can list the files.", ["Let's", "see", "if", "you", "can"]),
    # a named thing's possessive opens a topic, not a statement
    ("checkout-api's timeout: what is it?", ["what", "is", "it"]),
    ("I'm on exercise 3 and need to know which files define a dispatch table",
     ["I'm", "on", "exercise", "3", "and", "need", "to", "know"]),
    # what the learner believes or doubts, up to the question
    ("I think it is gold, can you check the tier?", ["I", "think", "it", "is", "gold"]),
    ("I'm not sure whether it has one, does it?", ["I'm", "not", "sure"]),
    ("I'd appreciate it if you could list the files.",
     ["I'd", "appreciate", "it", "if", "you", "could"]),
    # "when" asked after "tell me" is the question's, not a scene
    ("Tell me when the next slot is.", []),
    # a topic that ends in a colon is part of the question
    ("The checkout route at the gateway: what is its timeout?", []),
    # a scene's clause ends where a request starts
    ("Before I add a tool I want every file in agents/ that has a table.",
     ["Before", "I", "add", "a", "tool"]),
    # an opening "For ..." that names a path is the question's topic, not whom it is for
    ("For the general /api/ location, how long does the gateway wait?", []),
    ("For my notes, how long does the gateway wait?", ["For", "my", "notes"]),
    # who asks, before the question, and who wants it
    ("New hire question: what rules does the policy set?", ["New", "hire", "question"]),
    ("My manager asked me to find the root cause.", ["My", "manager", "asked", "me", "to"]),
    ("My team lead wants to know why checkout fails.",
     ["My", "team", "lead", "wants", "to", "know"]),
    ("List the files, if you can.", ["if", "you", "can"]),
    # the workspace named as the source says nothing (a source it names is the question's)
    ("Using the workspace files, list the files.", ["Using", "the", "workspace", "files"]),
    ("Based on the code, which files import .util?", ["Based", "on", "the", "code"]),
    # a clause of an asking sentence that states, cut at its comma (not a noun phrase
    # whose "is" a "that" ties to it)
    ("customer swears nobody rang, so why did the delivery fail?",
     ["customer", "swears", "nobody", "rang"]),
    ("someone in chat thinks payments are slow too, how long does the gateway wait",
     ["someone", "in", "chat", "thinks", "payments", "are", "slow", "too"]),
    ("writing the reply for TCK-5521 now, which clauses should I cite?",
     ["writing", "the", "reply", "for", "TCK-5521", "now"]),
    ("the first slot that is still free for TCK-5521, when is it?", []),
    # a team that wants the answer, and who asks
    ("Legal review needs to know which licences need attention.",
     ["Legal", "review", "needs", "to", "know"]),
    ("On-call here: what read timeout does the gateway use?", ["On-call", "here"]),
    # who asked, and a question that turns the last one round
    ("the OSPO asked how many exceptions there are", ["the", "OSPO", "asked"]),
    ("ok now the opposite: which files lack a table?", ["ok", "now", "the", "opposite"]),
    # words that open the turn, after a greeting too
    ("Hi, stuck on the exercise: which files import .util?",
     ["Hi", "stuck", "on", "the", "exercise"]),
    ("Quick warm-up for the class: which file is largest?",
     ["Quick", "warm-up", "for", "the", "class"]),
    ("quick check on the PR: does agents/loop.py define a table?",
     ["quick", "check", "on", "the", "PR"]),
    # which exercise the question is for
    ("ex 2b: which files define a table?", ["ex", "2b"]),
    ("homework q4: why did the delivery fail?", ["homework", "q4"]),
    # what the learner is doing, said after the question
    ("list the imports of every file, I'm drawing a dependency graph",
     ["I'm", "drawing", "a", "dependency", "graph"]),
    # what the learner does, up to "and need the ..."
    ("I'm writing the postmortem and need the gateway's timeout.",
     ["I'm", "writing", "the", "postmortem", "and", "need"]),
    # a question that only points back to the value the statement before it names
    ("I need the gateway's read timeout. What's the value?", ["What's", "the", "value"]),
    # who acts, in an opening "When ..."
    ("When someone pays, how long does the gateway wait?", ["When", "someone", "pays"]),
    # a question that only points back: the sentence before it is what it asks
    ("The retry policies are in agents/. Which files are those?",
     ["Which", "files", "are", "those"]),
    ("The retry policies are in agents/. Which files define one?",
     ["The", "retry", "policies", "are", "in", "agents/"]),
])
def test_the_asides_of_a_task(text, words):
    assert aside_words(text) == words


def test_around_names_token_indices():
    text = "I'm new here - list the files"
    tokens = [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]
    assert asides.around(text, tokens) == {0, 1, 2, 3}  # the dash that ends it too


@pytest.mark.parametrize(("name", "task", "question", "slots"), [
    # an aside's entity still fills the slot, and "it" is that file
    ("agents", "I'm reading agents/browser_tools.py. Which dict in it maps the tool names "
               "onto the functions that run them?",
     "table-of-file", {"path": "agents/browser_tools.py"}),
    ("logistics", "The customer insists nobody rang the bell. Why did the delivery of "
                  "ORD-1042 fail?", "failure", {"order": "ORD-1042"}),
    ("logistics", "Before I reply to TCK-5521, can you tell me which loyalty tier the "
                  "customer is in?", "tier", {"ticket": "TCK-5521"}),
    ("agents", "Would you mind listing the Python files in agents/?", "files",
     {"folder": "agents"}),
    ("logistics", "what tier is the customer who placed ORD-1042", "tier",
     {"order": "ORD-1042"}),
    # the asked part's value before an aside's, and the question's own yes/no opener
    ("audit", "Our policy says LGPL code needs a waiver. Has an exception been recorded for "
              "the AGPL-licensed dependency used by our services?", "licence-exceptions",
     {"services": "services", "policy": "policy", "licence": "AGPL", OPERATORS: "yesno"}),
    # an id in any case is the same id
    ("logistics", "Point me to the policy clauses that apply to tck-5521, please.", "clauses",
     {"ticket": "TCK-5521"}),
    # a module named as the code names it: "from X import"
    ("markdown", "Which files do `from ..inlinepatterns import ...`?", "importers",
     {"module": "..inlinepatterns"}),
    # an entity named again by its own name's parts, and "other" pointing back to it
    ("agents", "What retry policy does the MCP bridge set up in agents/mcp_bridge.py?",
     "retry-of-file", {"path": "agents/mcp_bridge.py"}),
    ("agents", "I already know about agents/router.py - which other files in agents/ define "
               "a tool dispatch table?", "table-files",
     {"folder": "agents", "exclude": "agents/router.py"}),
    # the entity as the topic, then "it"; a yes/no after the dash
    ("audit", "graphviz-wasm: is it covered by a licence exception?", "exceptions",
     {"policy": "policy", "package": "graphviz-wasm", OPERATORS: "yesno"}),
    ("markdown", "markdown/extensions/footnotes.py - does it import anything from the package?",
     "imports-of-file", {"path": "markdown/extensions/footnotes.py", OPERATORS: "yesno"}),
    ("debug", "The checkout endpoint at the edge gateway: what is its read timeout?", "gateway",
     {"route": "/api/v1/checkout"}),
    # an exclusion said after the request
    ("agents", "List the Python modules in the agents directory, but leave agents/prompts.py "
               "off the list.", "files", {"folder": "agents", "exclude": "agents/prompts.py"}),
    # ... or before it
    ("markdown", "Leaving aside markdown/core.py, which files import .util?", "importers",
     {"module": ".util", "exclude": "markdown/core.py"}),
    # the attribute said in a request after a scene, and asked again by "those"
    ("agents", "Before I add a new tool I want every place in agents/ where tool names get "
               "mapped to handler functions. Which files are those?", "table-files",
     {"folder": "agents"}),
    # who wants it, stated first; the request after it points back with "it"
    ("debug", "My team lead wants the root cause of the checkout outage. Could you dig it "
              "out of the logs?", "root-cause", {}),
    # the package named as the topic, then "it" anywhere after; "or no?" asks yes or no
    ("audit", "graphviz-wasm: do we have a licence exception on file for it?", "exceptions",
     {"policy": "policy", "package": "graphviz-wasm", OPERATORS: "yesno"}),
    ("audit", "the LGPL dependency of our services, has it an exception on record or no?",
     "licence-exceptions",
     {"services": "services", "policy": "policy", "licence": "LGPL", OPERATORS: "yesno"}),
    # "..., right?" asks yes or no; "missing an X" negates
    ("agents", "agents/rate_limiter.py has a retry policy of its own, right?", "retry-of-file",
     {"path": "agents/rate_limiter.py", OPERATORS: "yesno"}),
    ("audit", "Which dependencies in services/billing/requirements.txt are missing an MIT "
              "licence?", "licensed",
     {"manifest": "services/billing/requirements.txt", "licence": "MIT", OPERATORS: "not"}),
    # a sentence that asks "what is ..." after a topic is no statement, though it has "is"
    ("logistics", "For order ORD-1042, what is our answer to the customer: a refund, another "
                  "delivery, or something else, and why?", "resolution", {"order": "ORD-1042"}),
    # a word before "licences" is the kind of licence, not a package
    ("audit", "What special permissions to use otherwise-restricted licences are on record?",
     "exceptions", {"policy": "policy"}),
    # "anyone" is who was given one, not the package
    ("audit", "Has anyone been given special permission to use graphviz-wasm despite its "
              "licence?", "exceptions",
     {"policy": "policy", "package": "graphviz-wasm", OPERATORS: "yesno"}),
    # a topic before the comma, then a yes/no question
    ("agents", "In agents/browser_tools.py, is there a dict that maps tool names to handler "
               "functions?", "table-of-file",
     {"path": "agents/browser_tools.py", OPERATORS: "yesno"}),
    # ... not a "which" question's aside ("Which X, if any, is ...?")
    ("agents", "Which retry policy, if any, is declared in agents/rate_limiter.py?",
     "retry-of-file", {"path": "agents/rate_limiter.py"}),
    # terse: "# of", an arrow for "to"
    ("agents", "# of files in agents/ with a tool dispatch table", "table-files",
     {"folder": "agents", OPERATORS: "count"}),
    ("agents", "agents/ files that map tool names -> handler fns", "table-files",
     {"folder": "agents"}),
    # an opening "For ..." that names a licence is the question's topic, not whom it is for
    ("audit", "For the libraries our services use that come under the LGPL, which special "
              "permissions have been put on file?", "licence-exceptions",
     {"services": "services", "policy": "policy", "licence": "LGPL"}),
    # a word or two before "libraries" is their kind, not a package
    ("audit", "How many special permissions to use otherwise restricted libraries have been "
              "written down so far?", "exceptions", {"policy": "policy", OPERATORS: "count"}),
    # which licences need an exception is the policy's rule, not the exceptions on record
    ("audit", "Under the policy in policy/, which licences need a recorded exception before "
              "we can use them?", "rules", {"policy": "policy"}),
    # an apology before the question, and "build" after a folder
    ("agents", "Hi, sorry if obvious - does agents/router.py have its own retry policy in it?",
     "retry-of-file", {"path": "agents/router.py", OPERATORS: "yesno"}),
    ("agents", "How many of the modules in agents/ build a dispatch table from tool names to "
               "handler functions?", "table-files", {"folder": "agents", OPERATORS: "count"}),
    # "confirm that ..." asks yes or no
    ("agents", "confirm that agents/session_store.py sets up its own retry policy",
     "retry-of-file", {"path": "agents/session_store.py", OPERATORS: "yesno"}),
    # an agents file named without its folder lies in agents/
    ("agents", "retry policies in agents/ besides retry.py?", "retry-files",
     {"folder": "agents", "exclude": "agents/retry.py"}),
    ("agents", "router.py - got a tool dispatch dict in there?", "table-of-file",
     {"path": "agents/router.py", OPERATORS: "yesno"}),
    # "w/" is "with", no folder
    ("agents", "list the files in agents w/ a retry policy", "retry-files", {"folder": "agents"}),
    # the route named in an opening "For ...": the gateway's, not checkout-api's timeout
    ("debug", "For the general /api/ location on the gateway, how many seconds does it give "
              "the backend to answer?", "gateway", {"route": "/api/"}),
])
def test_a_question_is_read_through_what_surrounds_it(name, task, question, slots):
    assert understood(name, task) == (question, slots)


@pytest.mark.parametrize(("name", "task", "named"), [
    # the attribute sits in an aside; the question asked is another
    ("agents", "The dispatch table in agents/router.py: who wrote it?", "wrote"),
    ("agents", "I'm looking at the dispatch tables. Translate agents/router.py into German.",
     "Translate"),
    ("debug", "I'm debugging the checkout 504s. Write me a script that tails the logs.",
     "script"),
    # a condition changes the question: it is not an aside
    ("debug", "If we raised the timeout to 60 s, why would checkout fail?", "raised"),
    # a first-person request is not a statement
    ("agents", "I want the author of agents/loop.py. Which files define a dispatch table?",
     "author"),
    # nor is a supposition
    ("logistics", "Suppose ORD-1042 had been six business days late. What would we offer "
                  "the customer then?", "Suppose"),
    # a belief is no question: its attribute must be asked after it
    ("agents", "I think agents/router.py has a dispatch table, who wrote it?", "wrote"),
    # a word that repeats no part of the entity's name is still read
    ("agents", "Who maintains the MCP bridge in agents/mcp_bridge.py?", "maintains"),
])
def test_an_aside_never_carries_a_question_in(name, task, named):
    scenario = scenarios.load(name)
    assert scenario.understand(task) is None
    assert named in scenario.not_understood(task)[0]


def test_an_operator_said_aside_does_not_apply():
    # "notes" is not "not", and the aside is not the question's negation
    task = ("For my onboarding notes, I'd like to know how many of the files under agents/ "
            "declare a tool dispatch dictionary.")
    assert understood("agents", task) == ("table-files", {"folder": "agents", OPERATORS: "count"})
    task = "I'm not sure about this one: which files in agents/ define a retry policy?"
    assert understood("agents", task) == ("retry-files", {"folder": "agents"})


def test_a_yes_or_no_question_after_the_words_that_set_it_up():
    task = "OK agent, check the exceptions register: is graphviz-wasm covered by an exception?"
    assert understood("audit", task)[1][OPERATORS] == "yesno"
    task = "Find out: does agents/rate_limiter.py actually define a retry policy?"
    assert understood("agents", task)[1][OPERATORS] == "yesno"
