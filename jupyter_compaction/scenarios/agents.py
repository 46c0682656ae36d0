"""Scenario "agents": read every file of a small agent codebase, find the dispatch tables.

Twelve Python modules under `agents/` (about 42 KB). Four of them map tool names to
handler functions, each under a different name; the other eight do neighbouring agent
jobs (retries, prompts, memory, logging, storage, rate limits, schemas, the loop itself),
and two of those talk about tools without holding such a table. This is the seed's
"read all files under agents/" task: long enough to need compaction twice at 8k tokens,
and every file read is a finding that a lossy summary can drop.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from pathlib import Path

from jupyter_compaction.scenarios.base import (
    EXCLUDE,
    LIST_SEPARATOR,
    Fact,
    Known,
    Question,
    Scenario,
    Step,
    listed,
    make_list_files,
    make_read_file,
    missing,
    operators,
    or_missing,
)
from jupyter_compaction.scenarios.grammar import Grammar, Slot
from jupyter_compaction.scenarios.truth import files as workspace_files
from jupyter_compaction.scenarios.truth import module_body
from jupyter_compaction.vocab import UNKNOWN
from jupyter_compaction.workspace import Workspace

NONE = "none"
# Each concept a file can define: its name, how a task names it (grammar head phrases), the
# other words a task may use of it, its fact's prefix and the extractor that finds it.
# What a dispatch table maps from, and to.
TOOLS = (r"(?:each\s+|every\s+|a\s+)?tool[\s-]+(?:names?|calls?|requests?)|each\s+tool's\s+name|"
         r"(?:each|every)\s+tool|tools")
HANDLERS = (r"(?:the\s+|their\s+|its\s+)?(?:matching\s+|right\s+|corresponding\s+)?"
            r"(?:(?:piece|bit)\s+of\s+)?"
            r"(?:(?:(?:handler\s+)?(?:functions?|funcs?|fns?|handlers?|routines?|callables?)|code)"
            r"(?:\s+that\s+(?:actually\s+|really\s+)?(?:runs?|handles?|executes?|carr(?:y|ies)\s+"
            r"(?:it|them|that\s+tool)\s+out|deals?\s+with|serves?|processes|(?:does|doing)\s+the\s+"
            r"work)(?:\s+(?:them|it|each(?:\s+one)?|each\s+of\s+"
            r"(?:those|these|the)\s+tools))?|\s+doing\s+the\s+work)?)")
TABLE = (r"(?:tool[\s-]+)?dispatch[\s-]+(?:tables?|maps?|mappings?|dicts?|dictionar(?:y|ies))"
         r"(?:\s+for\s+(?:tools|tool\s+calls))?|"
         r"(?:tool|handler)\s+(?:tables?|registry|registries|maps?|lookups?)|dict(?:ionary)?\s+of\s+tools|"
         r"(?:tool\s+)?(?:lookup|routing)\s+(?:dict(?:ionar(?:y|ies))?s?|maps?)|"
         rf"(?:dicts?|maps?|mappings?|lookups?|tables?)\s+(?:from|of)\s+(?:{TOOLS}|tool\s+name)\s+to\s+"
         rf"{HANDLERS}|"
         # "a tool-name -> handler dict"
         r"(?:tool[\s-]+names?|tools?)\s*->\s*(?:handler|function)s?\s+(?:dicts?|maps?|mappings?|tables?|"
         r"lookups?)|"
         r"tools?\s+dict(?:ionary)?|(?:lookup|routing)\s+tables?|"
         r"(?:tool-(?:name-)?|name-)to-(?:handler|function|code)s?(?:\s+(?:dispatch|lookup))?\s+(?:mappings?|maps?|tables?|dicts?|"
         r"lookups?|lists?)(?:\s+for\s+tools)?|"
         # "maps tool names to their handler functions", "tool names mapped to the functions"
         r"(?:maps?|mapping|routes?|routing|dispatch(?:es|ing)?|sends?|connects?|wires?|wiring|"
         r"ties|tying|links?|linking|binds?|binding|connects?|connecting|pairs?|pairing|"
         r"match(?:es|ing)?)\s+(?:from\s+|of\s+)?"
         r"(?:the\s+)?"
         rf"(?:{TOOLS})\s+"
         rf"(?:(?:off\s+)?(?:(?:on)?to|with)\s+|->\s*)"
         rf"{HANDLERS}|(?:{TOOLS})\s+(?:(?:are|is|get|gets)\s+)?(?:mapped|routed|linked|tied|wired|"
         rf"bound|sent)\s+(?:on)?to\s+{HANDLERS}|"
         # "looks up which function to run for a given tool", "decides which handler runs
         # for each tool"
         r"(?:which|what)\s+(?:function|handler|code)\s+(?:(?:to\s+(?:run|call|use)|runs|is\s+(?:run|"
         r"called)|gets\s+(?:run|called)|handles\s+it)\s+for|handles)\s+(?:a\s+given|each|every|a|"
         r"the)\s+tool(?:\s+(?:name|call))?(?:\s+(?:the\s+model\s+asks\s+for|it\s+gets))?|"
         r"dispatch(?:es)?\s+(?:its|the|their)\s+tools|"
         r"looks?\s+up\s+(?:a\s+|the\s+|each\s+)?tools?\s+by\s+(?:its\s+)?name|"
         # "the dict that routes tool names": where to is the table's to say
         rf"(?:routes?|routing|dispatch(?:es|ing)?)\s+(?:the\s+|incoming\s+)?(?:{TOOLS})")
RETRY = (r"try-again(?:-\w+)*|"  # "the try-again-on-failure rules"
         # "re-attempting calls that didn't go through": its "didn't" negates no question
         r"re-?(?:attempt|try|run)(?:s|ing)?\s+(?:\w+\s+)?(?:calls?|requests?)\s+that\s+"
         r"(?:didn't|did\s+not|don't|do\s+not|doesn't|does\s+not)\s+(?:go\s+through|work|succeed)|"
         r"(?:retry(?:-with-backoff)?|back-?off|re-?attempt|try[\s-]again)(?:\s*/\s*back-?off)?\s+"
         r"(?:polic(?:y|ies)|rules?|class(?:es)?|strateg(?:y|ies)|logic|handling|behaviou?r)|"
         r"retr(?:y|ies|ied)|back-?off|"
         # said plainly: "a policy for retrying", "tries a failing call again"
         r"polic(?:y|ies)\s+for\s+re-?try(?:ing)?|re-?trying|re-?attempt(?:s|ing)?|"
         r"tr(?:y|ies|ying|ied)\s+(?:(?:a|the|it|them|\w+ing|failed)\s+)*(?:(?:calls?|requests?)\s+)?"
         r"again|"
         r"attempted\s+again|(?:have|has|having|take|takes|taking)\s+another\s+(?:go|shot|try|stab)|"
         r"(?:repeat(?:s|ing)?|re-?run(?:s|ning)?)\s+(?:a|the|an)\s+(?:failed\s+)?(?:calls?|attempts?|requests?)")
# The full task explains what a table is; its words are part of that question.
EXPLAINED = (r"dict(?:ionar(?:y|ies))?|handl(?:es?|ing|ed)|decid(?:es|ing)|table|"
             r"that\s+(?:runs?|handles?|executes?)\s+(?:them|it)|"
             r"routes?|tool\s+calls|tool|function|variable|looks?\s+up|lookup|->|callables?|str|"
             r"Callable|handlers?|"
             r"(?:to\s+their\s+)?handlers|name-to-handler|tool-names?|mapping|tools|"
             r"hands?|pass(?:es)?|forwards?|matching|corresponding")
# What a retry policy retries, and how ("attempts, delays").
RETRIED = (r"failed|failures?|errors?|(?:model\s+)?calls|(?:max(?:imum)?\s+)?attempts?|"
           r"(?:goes|go|went)(?:\s+wrong)?|plans?|"
           r"retrying|retried|polic(?:y|ies)|rules?|delays?|waits?|sleeps?|pauses?|model|"
           r"attempts?/back-?off|(?:lays?|laid)\s+(?:down|out)|sets?\s+out|requests?|operations?|how\s+many\s+(?:times|tries|attempts|retries)|"
           r"how\s+often|fail(?:s|ing)?|how\s+long|in\s+between|between|decid(?:es?|ing)|"
           r"waiting|tries|makes|written(?:\s+in)?|behaviou?r|if\s+(?:it|they|a\s+call)\s+fails?|"
           r"(?:growing|increasing|longer)|caps?\s+on|limits?\s+on|settings|when|after|logic|"
           r"strateg(?:y|ies)|"
           r"before\s+(?:each|every|the\s+next)\s+(?:new\s+)?(?:try|attempt)|before|"
           r"how")  # "how" last: "how often" and "how long" are read whole
CONCEPTS = (
    ("tool dispatch table", TABLE, EXPLAINED, "table",
     r"^([A-Z][A-Z_]+): dict\[str, *(?:Callable|Handler)"),  # NAME: dict[str, Callable...]
    ("retry policy", RETRY, RETRIED, "retry", r"^class (\w*Retry\w*)"),
)
PATH = Slot("path", r"([\w.-]+/[\w./-]*\w\.py|[\w-]+\.py)", under="agents")  # "router.py" too
# "under agents": the bundled folder named without its slash ("w/" is "with", no folder)
FOLDER = Slot("folder", r"((?!w/)[\w.-]+)/(?!\w|\.\w)", default="agents",
              aliases=((r"(?:(?<=\bunder\s)|(?<=\bin\s)|(?<=\binside\s)|(?<=\bwithin\s))agents",
                        "agents"),))
# "the agents folder": a folder named without its slash (after FOLDER, whose default it
# then replaces).
FOLDER_NAMED = Slot("folder", r"(?:(?<=\bthe\s)|(?<=\bin\s)|(?<=\bof\s)|(?<=\bunder\s))"
                              r"(?!(?:python|source)\b)([\w.-]+)(?=\s+(?:folder|director(?:y|ies)|code(?:base)?|package)\b)",
                    optional=True)
LEFT_OUT = Slot(EXCLUDE, PATH.pattern, under=PATH.under)
DEFINES = (r"defin(?:es?|ed|ing)|declar(?:es?|ed|ing)|sets?\s+up|provides?|contains?|"
           r"register(?:s|ing)?(?:\s+(?:its\s+|the\s+)?tools)?|"
           r"hold(?:s|ing)?|has|have|lives?|implements?|implemented|files?|modules?|scripts?|python|\.py|"
           r"package|"
           r"carr(?:y|ies|ying)|"
           r"configures?|uses?|set(?:\s+out|\s+up)?|keeps?|kept|hiding|lurking|sitting|built(?:\s+in(?:to)?)?|"
           r"(?:comes?|ships?)\s+with|baked\s+in(?:to)?|"
           # "build", but not a request to build ("Build a retry policy", "you build")
           r"code|builds|spells?\s+out|(?<=[\w/]\s)(?<!\bplease\s)(?<!\byou\s)(?<!\bto\s)build|"
           r"source",
           r"if\s+any|called|call|named?|class(?:es)?|folder|where|configured|used|"
           r"how\s+(?:is|are)(?=\s+(?:it\s+|they\s+)?called)|"  # a learner's word order
           r"how(?=\s+(?:it|they)\s+(?:is|are)\s+called)|"
           r"(?<=\bin\s)agents|places?")  # the default folder named bare: "files in agents"
STEPS = (
    Step("list the {folder}/ folder", "list_files", {"folder": "{folder}"}, (
        Fact("files", r"^(\S+\.py)  [\d,]+ bytes$", many=True),
        Fact("sizes", r"^(\S+\.py)  ([\d,]+) bytes$", many=True),
        missing("folder", r"\bNo folder '([^']+)' in the workspace"))),
    Step("read {item}", "read_file", {"path": "{item}"}, tuple(
        Fact(f"{prefix}[{{item}}]", pattern, default=NONE, code=True)
        for *_, prefix, pattern in CONCEPTS), each="files"),
    Step("read {path}", "read_file", {"path": "{path}"}, (*(
        Fact(f"{prefix}-of-path", pattern, default=NONE, code=True)
        for *_, prefix, pattern in CONCEPTS),
        missing("path", r"\bNo file '([^']+)' in the workspace"))),
)


def _files(f: Known) -> list[str]:
    """The listed files, less those the task leaves out."""
    return listed(f, "files")


def _which_files(concept: str, prefix: str) -> Callable[[Known], str]:
    def compose(f: Known) -> str:
        """The listed files that define the `concept` (or, negated, do not), counted
        when the task asks how many."""
        files, ops = _files(f), operators(f)
        if not files:
            return f"Files that define a {concept}: {UNKNOWN}."
        named = {p: f[f"{prefix}[{p}]"] for p in files}
        if not ops:
            found = [f"{p} ({name})" for p, name in named.items() if name not in (NONE, UNKNOWN)]
            per_file = "; ".join(f"{p}: {name}" for p, name in named.items())
            return (f"Files that define a {concept}: {', '.join(found) or NONE}. "
                    f"Every file under {f['folder']}/ with its {concept}: {per_file}.")
        negated = "not" in ops
        chosen = [f"{p} ({name})" if name != NONE else p for p, name in named.items()
                  if (name == NONE) == negated]
        if UNKNOWN in named.values():
            chosen = [UNKNOWN]
        which = f"Files under {f['folder']}/ that {'do not ' if negated else ''}define a {concept}"
        count = f"{len(chosen)}: " if "count" in ops and UNKNOWN not in chosen else ""
        return f"{which}: {count}{', '.join(chosen) or NONE}."

    return or_missing(compose)


def _one_file(concept: str, prefix: str) -> Callable[[Known], str]:
    def compose(f: Known) -> str:
        """The `concept` one file defines (or none), opened with yes or no when asked so."""
        name = f[f"{prefix}-of-path"]
        answer = f"The {concept} that {f['path']} defines: {name}."
        if "yesno" in operators(f) and name != UNKNOWN:
            return ("No. " if name == NONE else "Yes. ") + answer
        return answer

    return or_missing(compose)


def list_files(f: Known) -> str:
    """The Python files under the folder: all of them, how many, or the largest."""
    files, ops = _files(f), operators(f)
    if "largest" in ops:
        sizes = dict(item.split(" ", 1) for item in f["sizes"].split(LIST_SEPARATOR)) \
            if "sizes" in f else {}
        ranked = sorted(files, key=lambda p: -int(sizes.get(p, "0").replace(",", "")))
        top = f"{ranked[0]} ({sizes[ranked[0]]} bytes)" if ranked and ranked[0] in sizes \
            else UNKNOWN
        return f"The largest Python file under {f['folder']}/: {top}."
    if "count" in ops:
        return f"Python files under {f['folder']}/: {len(files) if files else UNKNOWN}."
    return (f"Python files under {f['folder']}/ ({len(files) if files else UNKNOWN}): "
            f"{', '.join(files) or UNKNOWN}.")


compose = _which_files(CONCEPTS[0][0], CONCEPTS[0][3])  # the full task: the dispatch tables
QUESTIONS = (
    *(Question(f"{prefix}-of-file", f"which {concept} one file defines",
               Grammar((synonyms,), (*DEFINES, words), (PATH,), ("yesno",)),
               (f"{prefix}-of-path",), _one_file(concept, prefix),
               example=f"Does agents/router.py define a {concept}?")
      for concept, synonyms, words, prefix, _ in CONCEPTS),
    *(Question(f"{prefix}-files", f"which files under a folder define a {concept}",
               Grammar((synonyms,), (*DEFINES, words), (FOLDER, FOLDER_NAMED),
                       ("exclude", "not", "count"),
                       LEFT_OUT),
               ("files", f"{prefix}[{{item}}]"),
               _which_files(concept, prefix),
               example=f"Which files in agents/ define a {concept}?")
      for concept, synonyms, words, prefix, _ in CONCEPTS),
    Question("files", "which Python files a folder holds",
             Grammar((r"files?|modules?|sources|scripts|\.py",), (
                 r"python|\.?py|source|folder|director(?:y|ies)|package|inventory|"
                 r"hold(?:s)?|contains?|lives?|live|living|kept|sit(?:s|ting)?|exists?|make\s+up|makes\s+up|"
                 r"comprises?|sizes?|size-?wise|by\s+size|in\s+size|how\s+big|how\s+large|"
                 r"most\s+(?:of\s+the\s+)?code|code",),
                     (FOLDER, FOLDER_NAMED),
                     ("exclude", "count", "largest"), LEFT_OUT),
             ("files", "sizes"), or_missing(list_files),
             example="List the Python files under agents/."),
)


def make_tools(ws: Workspace) -> list[Callable[..., str]]:
    return [make_list_files(ws), make_read_file(ws)]


def _is_table(node: ast.stmt) -> str | None:
    """The name of a top-level `NAME: dict[str, Callable[...] | Handler] = ...`."""
    if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
            and node.target.id.isupper() and isinstance(node.annotation, ast.Subscript)
            and ast.unparse(node.annotation.value) == "dict"):
        return None
    pair = node.annotation.slice
    if not (isinstance(pair, ast.Tuple) and len(pair.elts) == 2):
        return None
    key, value = (ast.unparse(e) for e in pair.elts)
    return node.target.id if key == "str" and value.startswith(("Callable", "Handler")) else None


def _is_retry(node: ast.stmt) -> str | None:
    return node.name if isinstance(node, ast.ClassDef) and "Retry" in node.name else None


FINDERS = {"table": _is_table, "retry": _is_retry}


def _defines(root: Path, path: str, prefix: str) -> str:
    """What a file defines of a concept, read with `ast` (strings and comments are not
    code), or "none"."""
    found = [name for node in module_body(root, path) if (name := FINDERS[prefix](node))]
    return found[0] if found else NONE


def truth(root: Path, slots: Mapping[str, str]) -> dict[str, str]:
    """Each Python file of the folder, and what each defines, read with `ast`."""
    facts = dict(slots)
    folder, path = slots.get("folder"), slots.get("path")
    if folder and (root / folder).is_dir():
        paths = workspace_files(root, folder, ".py")
        facts["files"] = LIST_SEPARATOR.join(paths)
        facts["sizes"] = LIST_SEPARATOR.join(f"{p} {(root / p).stat().st_size:,}" for p in paths)
        facts |= {f"{prefix}[{p}]": _defines(root, p, prefix) for p in paths
                  for prefix in FINDERS}
    elif folder:
        facts["missing-folder"] = folder
    if path and (root / path).is_file():
        facts |= {f"{prefix}-of-path": _defines(root, path, prefix) for prefix in FINDERS}
    elif path:
        facts["missing-path"] = path
    return facts


SCENARIO = Scenario(
    name="agents",
    title="Find the tool dispatch tables in an agent codebase",
    task=(
        "Read every file under `agents/` and report which ones define a tool dispatch "
        "table (a dict that maps tool names to the functions that handle them). Name each "
        "file and its table."
    ),
    given=(),
    steps=STEPS,
    must_keep=(
        "agents/browser_tools.py",
        "ACTION_TABLE",
        "agents/mcp_bridge.py",
        "HANDLER_REGISTRY",
        "agents/router.py",
        "TOOL_HANDLERS",
        "agents/shell_agent.py",
        "DISPATCH",
    ),
    compose=compose,
    make_tools=make_tools,
    questions=QUESTIONS,
    read_truth=truth,
)
