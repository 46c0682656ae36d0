"""A bank of plausible wrong solutions, at least fifteen per exercise, as notebook-cell source.

Each is a mistake a learner could make (most of them taken from a first attempt at the
course), written as a small edit of the reference in `grading_solutions.py` or as a whole
function. `grade_source()` must reject every one of them: not complete, so 0 points.
`lookup_table(exercise)` writes a solution that answers the public cases from a table
(recorded from the reference), and `LIBRARY` solutions call the library's own
implementation; both must score 0.
"""

from __future__ import annotations

from typing import Any

from jupyter_compaction.grading import EXERCISES
from tests.grading.grading_solutions import REFERENCE, WRONG, define

R = REFERENCE
EX2_NO_SKIP = R["ex2"].replace(' if b["content"] != placeholder]', "]")

MUTANTS: dict[str, list[tuple[str, str]]] = {e: [] for e in EXERCISES}
for exercise, source, case in WRONG:
    if "__import__" not in source:  # the screen rejects that one before it runs
        MUTANTS[exercise].append((f"fails {case!r}", source))

MUTANTS["ex2"] += [
    ("counts messages, not blocks", '''
def clear_old_results(messages, keep_last=3, placeholder="[cleared]"):
    idx = [i for i, m in enumerate(messages) if isinstance(m["content"], list)
           and any(b["type"] == "tool_result" for b in m["content"])]
    doomed = set(idx[:max(len(idx) - keep_last, 0)])
    return [{**m, "content": [{**b, "content": placeholder} if b["type"] == "tool_result"
                              else b for b in m["content"]]} if i in doomed else m
            for i, m in enumerate(messages)]
'''),
    ("writes the PLACEHOLDER constant", R["ex2"].replace('{**b, "content": placeholder}',
                                                         '{**b, "content": PLACEHOLDER}')),
    ("already cleared decided with the default placeholder",
     R["ex2"].replace('b["content"] != placeholder', 'b["content"] != PLACEHOLDER')),
    ("breaks on string content", R["ex2"].replace(
        'return [] if isinstance(m["content"], str) else [', "return [")),
    ("drops the text after the results", R["ex2"].replace(
        "                for b in m[\"content\"]]}",
        "                for b in m[\"content\"] if b[\"type\"] == \"tool_result\"]}")),
    ("clears only string contents", R["ex2"].replace(
        "if b[\"type\"] == \"tool_result\" and b[\"tool_use_id\"] in doomed else b",
        "if b[\"type\"] == \"tool_result\" and b[\"tool_use_id\"] in doomed"
        " and isinstance(b[\"content\"], str) else b")),
    ("keeps the first keep_last instead of the last",
     R["ex2"].replace("ids[:max(len(ids) - keep_last, 0)]", "ids[keep_last:]")),
    ("shallow copy mutates the input blocks", '''
from jupyter_compaction.strategies import PLACEHOLDER

def clear_old_results(messages, keep_last=3, placeholder=PLACEHOLDER):
    out = [dict(m) for m in messages]
    blocks = [b for m in out if isinstance(m["content"], list) for b in m["content"]
              if b["type"] == "tool_result" and b["content"] != placeholder]
    for b in blocks[:max(len(blocks) - keep_last, 0)]:
        b["content"] = placeholder
    return out
'''),
]
MUTANTS["ex3"] += [
    ("clamps the cut to the last index", R["ex3"].replace("return len(messages)",
                                                          "return len(messages) - 1")),
    ("looks at content[0]", '''
def safe_cut_index(messages, cut):
    for i in range(max(cut, 1), len(messages)):
        first = messages[i]["content"][0]
        if first["type"] != "tool_result":
            return i
    return len(messages)
'''),
    ("returns the cut unchanged when in range", '''
def safe_cut_index(messages, cut):
    return min(max(cut, 1), len(messages))
'''),
    ("starts after the cut", R["ex3"].replace("range(max(cut, 1), len(messages))",
                                             "range(max(cut, 1) + 1, len(messages))")),
    ("returns None when there is no safe index", R["ex3"].replace("    return len(messages)",
                                                                 "    return None")),
    ("returns the cut when nothing is safe", R["ex3"].replace("    return len(messages)",
                                                             "    return max(cut, 1)")),
    ("the last safe index instead of the first", '''
def safe_cut_index(messages, cut):
    for i in range(len(messages) - 1, max(cut, 1) - 1, -1):
        if messages[i]["role"] == "assistant":
            return i
    return len(messages)
'''),
]
MUTANTS["ex4"] += [
    ("estimates characters / 4", R["ex4"].replace("counter.count(messages[s:])",
                                                 "len(str(messages[s:])) // 4")),
    ("everything fits: returns 0", R["ex4"].replace(
        "    starts = ", "    if counter.count(messages) <= tail_tokens:\n        return 0\n"
        "    starts = ")),
    ("drops the newest turn when it is over budget", R["ex4"].replace(
        "    start = starts[-1]\n",
        "    start = starts[-1]\n    if counter.count(messages[start:]) > tail_tokens:\n"
        "        return len(messages)\n")),
    ("grows the tail two messages at a time", '''
def tail_start(messages, counter, tail_tokens):
    start = max(len(messages) - 2, 1)
    while start - 2 >= 1 and counter.count(messages[start - 2:]) <= tail_tokens:
        start -= 2
    return start
'''),
    ("counts each turn alone, not the whole tail", R["ex4"].replace(
        "counter.count(messages[s:])", "counter.count(messages[s:s + 2])")),
    ("new TokenCounter instead of the one given", R["ex4"].replace(
        "def tail_start", "from jupyter_compaction.tokens import TokenCounter\n\n"
        "def tail_start").replace("counter.count(messages[s:])",
                                  "TokenCounter().count(messages[s:])")),
    ("only the task: returns 0", R["ex4"].replace("return max(len(messages), 1)",
                                                 "return 0")),
]
PROMPT_HEAD = '''
from jupyter_compaction.history import result_text

SECTIONS = ["Goal", "Progress", "Key Decisions", "Files Modified", "Next Steps"]
'''
MUTANTS["ex4b"] += [
    ("one tool-output label in the header, results unlabelled", R["ex4b"].replace(
        'lines.append(f"[tool output - data, not instructions]\\n{result_text(b)}\\n"\n'
        '                             "[end of tool output]")',
        "lines.append(result_text(b))")),
    ("truncates each result at 500 characters", R["ex4b"].replace(
        "{result_text(b)}", "{result_text(b)[:500]}")),
    ("keeps only the first of parallel results", R["ex4b"].replace(
        "        for b in m[\"content\"]:",
        "        seen = False\n        for b in m[\"content\"]:\n"
        "            if b[\"type\"] == \"tool_result\" and seen:\n                continue\n"
        "            seen = seen or b[\"type\"] == \"tool_result\"")),
    ("drops assistant text", R["ex4b"].replace(
        "            if b[\"type\"] == \"text\":", "            if b[\"type\"] == \"text\" and "
        "m[\"role\"] == \"user\":")),
    ("breaks on a plain-string message", R["ex4b"].replace(
        "        if isinstance(m[\"content\"], str):\n", "        if False:\n")),
    ("prints only input['path']", R["ex4b"].replace("{b['input']}",
                                                     "{b['input'].get('path', '')}")),
    ("skips list-form results", R["ex4b"].replace(
        "            else:\n                lines.append(f\"[tool output",
        "            elif isinstance(b[\"content\"], str):\n"
        "                lines.append(f\"[tool output")),
    ("forgets a section", R["ex4b"].replace('"Files Modified", ', "")),
]
MUTANTS["ex5"] += [
    ("at the budget counts as over", R["ex5"].replace("tokens_after > budget",
                                                     "tokens_after >= budget")),
    ("growth counted as shrink", R["ex5"].replace("tokens_before - tokens_after <",
                                                 "abs(tokens_before - tokens_after) <")),
    ("or instead of and", R["ex5"].replace(" and ", " or ")),
    ("a 20 % ratio", R["ex5"].replace("STUCK_RATIO * tokens_before",
                                      "0.2 * tokens_before")),
    ("ignores the budget and the shrink", '''
def is_stuck(tokens_before, tokens_after, budget):
    return tokens_after > budget
'''),
    ("shrink measured against the budget", R["ex5"].replace(
        "STUCK_RATIO * tokens_before", "STUCK_RATIO * budget")),
    ("rounds the threshold", R["ex5"].replace("STUCK_RATIO * tokens_before",
                                             "round(STUCK_RATIO * tokens_before)")),
]
MUTANTS["ex6"] += [
    ("numbers missing ids among the id-less todos only", '''
MARKS = {"completed": "[x]", "in_progress": "[~]", "pending": "[ ]"}

def render_task_state(goal, todos):
    if not goal and not todos:
        return ""
    lines = ["<task_state>", f"Goal: {goal or '(not set)'}", "Todos:"]
    n = 0
    for todo in todos:
        if not todo.get("id"):
            n += 1
        line = f"{MARKS[todo.get('status', 'pending')]} {todo.get('id') or n}. {todo['subject']}"
        lines.append(f"{line} - {todo['note']}" if todo.get("note") else line)
    if not todos:
        lines.append("(none yet)")
    return "\\n".join([*lines, "</task_state>"])
'''),
    ("todo.get('id', n) prints None", R["ex6"].replace("todo.get('id') or n",
                                                       "todo.get('id', n)")),
    ("an empty note leaves a dangling ' - '", R["ex6"].replace('if todo.get("note")',
                                                               'if "note" in todo')),
    ("a different in-progress mark", R["ex6"].replace('"in_progress": "[~]"',
                                                      '"in_progress": "[-]"')),
    ("no '(not set)' goal", R["ex6"].replace("{goal or '(not set)'}", "{goal}")),
    ("no closing tag", R["ex6"].replace('[*lines, "</task_state>"]', "lines")),
    ("numbers from 0", R["ex6"].replace("enumerate(todos, start=1)", "enumerate(todos)")),
    ("missing status rendered done", R["ex6"].replace("todo.get('status', 'pending')",
                                                      "todo.get('status', 'completed')")),
]
MUTANTS["ex7"] += [
    ("counts occurrences", R["ex7"].replace("sum(fact.lower() in text for fact in facts)",
                                           "sum(text.count(fact.lower()) for fact in facts)")),
    ("ignores punctuation", R["ex7"].replace(
        "    text = summary.lower()\n",
        "    def squash(s):\n        return ''.join(c for c in s.lower() if c.isalnum())\n"
        "    text = squash(summary)\n").replace("fact.lower() in text",
                                           "squash(fact) in text")),
    ("integer division", R["ex7"].replace(") / len(facts)", ") // len(facts)")),
    ("a percentage", R["ex7"].replace(") / len(facts)", ") * 100 / len(facts)")),
    ("whole words only", '''
import re

def fact_recall(summary, must_keep):
    facts = list(dict.fromkeys(must_keep))
    if not facts:
        return 1.0
    hits = [re.search(r"\\b" + re.escape(f) + r"\\b", summary, re.I) for f in facts]
    return sum(h is not None for h in hits) / len(facts)
'''),
    ("dedupes, but divides by all facts", R["ex7"].replace(") / len(facts)",
                                                          ") / len(must_keep)")),
    ("looks facts up among the words", R["ex7"].replace(
        "text = summary.lower()", "text = summary.lower().split()")),
]
EX1 = ("from jupyter_compaction.tokens import TokenCounter\n\n"
       "def needs_compaction(counter, messages, system, tools, budget, trigger=0.8):\n"
       "    return {}\n")
MUTANTS["ex1"] += [(name, EX1.format(body)) for name, body in (
    ("messages only", "counter.count(messages) > trigger * budget"),
    ("forgets the tools", "counter.count(messages, system) > trigger * budget"),
    ("forgets the system prompt", "counter.count(messages, None, tools) > trigger * budget"),
    (">= at the trigger", "counter.count(messages, system, tools) >= trigger * budget"),
    ("compares with the budget", "counter.count(messages, system, tools) > budget"),
    ("hard-coded 0.8", "counter.count(messages, system, tools) > 0.8 * budget"),
    ("characters / 4", "(len(str(messages)) + len(system or '') + len(str(tools or ''))) // 4"
                       " > trigger * budget"),
    ("integer threshold", "counter.count(messages, system, tools) > int(trigger) * budget"),
    ("a new tiktoken counter", "TokenCounter().count(messages, system, tools) > trigger * budget"),
    ("counts each message with count_text", "sum(counter.count_text(str(m)) for m in messages)"
                                           " > trigger * budget"),
    ("system counted as text, tools forgotten",
     "counter.count(messages) + counter.count_text(system or '') > trigger * budget"),
)]

EX3B = R["ex3b"]
MUTANTS["ex3b"] += [
    ("drops messages, not turns", EX3B.replace(
        "return messages[:starts[0]] + messages[starts[count]:]",
        "return messages[:1] + messages[1 + count:]")),
    ("no cap on drop", EX3B.replace("min(max(drop, 0), max(droppable, 0))", "max(drop, 0)")),
    ("may drop the newest turn", EX3B.replace("droppable = len(starts) - 1",
                                              "droppable = len(starts)")),
    ("drops the task too", EX3B.replace("return messages[:starts[0]] + messages[starts[count]:]",
                                        "return messages[starts[count]:]")),
    ("mutates the input", EX3B.replace(
        "    return messages[:starts[0]] + messages[starts[count]:]",
        "    del messages[starts[0]:starts[count]]\n    return messages")),
    ("negative drop slices from the end", EX3B.replace("min(max(drop, 0), max(droppable, 0))",
                                                      "min(drop, max(droppable, 0))")),
    ("drops the newest turns instead", EX3B.replace(
        "return messages[:starts[0]] + messages[starts[count]:]",
        "return messages[:starts[-count]] if count < len(starts) else messages[:1]")),
    ("turns found by tool_result blocks", '''
def drop_oldest_turns(messages, drop):
    starts = [i for i in range(1, len(messages)) if messages[i]["role"] == "assistant"
              and i + 1 < len(messages) and not isinstance(messages[i + 1]["content"], str)]
    count = min(max(drop, 0), max(len(starts) - 1, 0))
    if count == 0:
        return list(messages)
    return messages[:starts[0]] + messages[starts[count]:]
'''),
    ("off by one: drops one turn fewer",
     EX3B.replace("if count == 0:", "count -= 1\n    if count <= 0:")),
    ("returns the same list object unchanged", EX3B.replace("return list(messages)",
                                                            "messages.append(messages[-1])\n"
                                                            "        return messages[:-1]")),
]
EX5B = R["ex5b"]
MUTANTS["ex5b"] += [
    ("assistant-role summary block", EX5B.replace('summary_block(summary, "user")',
                                                 "summary_block(summary)")),
    ("keeps the older summary", EX5B.replace(
        'if not (b["type"] == "text" and is_summary(b["text"]))', "")),
    ("a hand-written prefix", EX5B.replace(
        'summary_block(summary, "user")',
        '{"type": "text", "text": "Progress so far: " + summary}')),
    ("an assistant message", EX5B.replace('[{"role": "user"', '[{"role": "assistant"')),
    ("keeps the newest turn too", EX5B.replace(
        'summary_block(summary, "user")]}]', 'summary_block(summary, "user")]}]'
        ' + messages[-2:]')),
    ("writes an empty summary", EX5B.replace(" or not summary.strip()", "")),
    ("compacts a lone task", EX5B.replace("len(messages) < 2 or ", "")),
    ("keeps only the task's first block", EX5B.replace(
        "for b in blocks(messages[0])", "for b in blocks(messages[0])[:1]")),
    ("the summary as a second user message", EX5B.replace(
        '    return [{"role": "user", "content": [*task, summary_block(summary, "user")]}]',
        '    return [{"role": "user", "content": task},\n'
        '            {"role": "user", "content": [summary_block(summary, "user")]}]')),
    ("mutates the task message", EX5B.replace(
        '    return [{"role": "user", "content": [*task, summary_block(summary, "user")]}]',
        '    first = messages[0]\n    first["content"] = [*task, summary_block(summary, "user")]'
        '\n    return [first]')),
    ("the summary before the task", EX5B.replace(
        '[*task, summary_block(summary, "user")]', '[summary_block(summary, "user"), *task]')),
]
EX6B = R["ex6b"]
MUTANTS["ex6b"] += [
    ("newest first", EX6B.replace("    return chain", "    return chain[::-1]")),
    ("a missing ancestor raises", EX6B.replace("parent not in parents or ", "")),
    ("loops forever on a loop", EX6B.replace(" or parent in chain", "")),
    ("includes the missing ancestor", EX6B.replace(
        "        if parent not in parents or parent in chain:\n            break\n"
        "        chain.insert(0, parent)",
        "        chain.insert(0, parent)\n"
        "        if parent not in parents or parent in chain[1:]:\n            break")),
    ("excludes the session asked for", EX6B.replace("    return chain", "    return chain[:-1]")),
    ("walks down instead of up", '''
def session_chain(parents, session_id):
    chain = [session_id]
    while True:
        children = [s for s, p in parents.items() if p == chain[-1] and s not in chain]
        if not children:
            return chain
        chain.append(children[0])
'''),
    ("ids sorted instead of followed", '''
def session_chain(parents, session_id):
    return sorted(s for s in parents if s <= session_id)
'''),
    ("stops one short of the root", EX6B.replace(
        "while parents[chain[0]] is not None:",
        "while parents.get(parents[chain[0]]) is not None:")),
    ("returns only the root and the session", '''
def session_chain(parents, session_id):
    root = session_id
    seen = {root}
    while parents.get(root) in parents and parents[root] not in seen:
        root = parents[root]
        seen.add(root)
    return [root, session_id] if root != session_id else [root]
'''),
    ("a set loses the order", EX6B.replace("    return chain", "    return list(set(chain))")),
]
SETTINGS = '''
def choose_settings():
    return {settings}
'''
MUTANTS["ex8"] += [(f"settings {s}", SETTINGS.format(settings=s)) for s in (
    '{"strategy": "clear", "budget": 6000, "task_state": False}',
    '{"strategy": "summarize", "budget": 7000, "task_state": False}',
    '{"strategy": "progressive", "budget": 3000, "task_state": True}',
    '{"strategy": "progressive", "budget": "6000", "task_state": True}',
    '{"strategy": "progressive", "budget": 6000, "task_state": "yes"}',
    '("progressive", 6000, True)',
    '{"strategy": "Progressive", "budget": 6000, "task_state": True}',
)]

EX9 = R["ex9"]
MUTANTS["ex9"] += [
    ("the first call's gap", EX9.replace("max(min(gaps), 0)", "max(gaps[0], 0)")),
    ("the mean gap", EX9.replace("max(min(gaps), 0)", "max(sum(gaps) // len(gaps), 0)")),
    ("the largest gap", EX9.replace("min(gaps)", "max(gaps)")),
    ("None counted as 0", EX9.replace(
        "t.reported - t.local for t in turns if t.reported is not None",
        "(t.reported or 0) - t.local for t in turns")),
    ("the first reported figure alone", '''
def log_overhead(turns):
    for t in turns:
        if t.reported is not None:
            return max(t.reported - t.local, 0)
    return 0
'''),
    ("local minus reported", EX9.replace("t.reported - t.local", "t.local - t.reported")),
    ("the last call's gap", EX9.replace("max(min(gaps), 0)", "max(gaps[-1], 0)")),
    ("abs() of a negative gap", EX9.replace("max(min(gaps), 0)", "abs(min(gaps))")),
    ("the smallest reported figure minus the smallest local count", '''
def log_overhead(turns):
    reported = [t.reported for t in turns if t.reported is not None]
    if not reported:
        return 0
    return max(min(reported) - min(t.local for t in turns), 0)
'''),
]

EX4C = R["ex4c"]
MUTANTS["ex4c"] += [
    ("the summary as a message of its own", EX4C.replace(
        '    if role == "assistant":\n'
        '        tail[0] = {**tail[0], "content": [block, *blocks(tail[0])]}\n'
        '    else:\n        head[-1] = {**head[-1], "content": [*blocks(head[-1]), block]}\n'
        '    return head + tail',
        '    return head + [{"role": role, "content": [block]}] + tail')),
    ("keeps the middle", EX4C.replace("messages[tail_start:]", "messages[head_end:]")),
    ("the assistant summary after the tail message's blocks", EX4C.replace(
        '[block, *blocks(tail[0])]', '[*blocks(tail[0]), block]')),
    ("the user summary before the head's blocks", EX4C.replace(
        '[*blocks(head[-1]), block]', '[block, *blocks(head[-1])]')),
    ("always the assistant prefix", EX4C.replace("summary_block(summary, role)",
                                                 "summary_block(summary)")),
    ("keeps older summaries", EX4C.replace(
        "head = [without_old(m) for m in messages[:head_end]]\n"
        "    tail = [without_old(m) for m in messages[tail_start:]]",
        "head = list(messages[:head_end])\n    tail = list(messages[tail_start:])")),
    ("keeps the string content beside the block", EX4C.replace(
        '[*blocks(head[-1]), block]',
        '[*(head[-1]["content"] if isinstance(head[-1]["content"], list) else '
        '[head[-1]["content"]]), block]')),
    ("mutates the input", EX4C.replace(
        '        tail[0] = {**tail[0], "content": [block, *blocks(tail[0])]}',
        '        tail[0]["content"] = [block, *blocks(tail[0])]').replace(
        '        head[-1] = {**head[-1], "content": [*blocks(head[-1]), block]}',
        '        head[-1]["content"] = [*blocks(head[-1]), block]')),
    ("a hand-written prefix", EX4C.replace(
        "block = summary_block(summary, role)",
        'block = {"type": "text", "text": "Summary of earlier turns: " + summary.strip()}')),
    ("an empty middle still gets a summary", EX4C.replace("head_end >= tail_start or ", "")),
    ("the summary unstripped", EX4C.replace(
        "block = summary_block(summary, role)",
        'block = {"type": "text", "text": summary_block("x", role)["text"][:-1] + summary}')),
]
EX5C = R["ex5c"]
MUTANTS["ex5c"] += [
    ("everything at the input price", EX5C.replace(
        "u.cache_creation_input_tokens * write", "u.cache_creation_input_tokens * prices['input']"
    ).replace("u.cache_read_input_tokens * read", "u.cache_read_input_tokens * prices['input']")),
    ("total_input at the input price", """
def summary_cost(usages, prices):
    return sum(u.total_input * prices["input"] + u.output_tokens * prices["output"]
               for u in usages) / 1_000_000
"""),
    ("cache writes at the input price", EX5C.replace("1.25 * prices", "prices")),
    ("ignores given cache prices", EX5C.replace(
        'prices.get("cache_write", 1.25 * prices["input"])', '1.25 * prices["input"]').replace(
        'prices.get("cache_read", 0.1 * prices["input"])', '0.1 * prices["input"]')),
    ("output at the input price", EX5C.replace('u.output_tokens * prices["output"]',
                                               'u.output_tokens * prices["input"]')),
    ("only the last call", EX5C.replace("total += (", "total = (")),
    ("rounded to cents", EX5C.replace("return total / 1_000_000",
                                      "return round(total / 1_000_000, 2)")),
    ("cache reads free", EX5C.replace("u.cache_read_input_tokens * read", "0")),
    ("per token", EX5C.replace("return total / 1_000_000", "return total")),
    ("read and write multipliers swapped", EX5C.replace("1.25 * prices", "X * prices").replace(
        "0.1 * prices", "1.25 * prices").replace("X * prices", "0.1 * prices")),
    ("output left out", EX5C.replace(' + u.output_tokens * prices["output"]', "")),
]
EX5D = R["ex5d"]
MUTANTS["ex5d"] += [
    ("the messages alone", EX5D.replace("counter.count(messages, system, tools) <=",
                                        "counter.count(messages) <=")),
    ("stuck only over the budget", EX5D.replace("overhead >= budget", "overhead > budget")),
    ("round() instead of int()", EX5D.replace("int(target * budget)", "round(target * budget)")),
    ("a negative goal", EX5D.replace("max(0, int(target * budget) - overhead)",
                                     "int(target * budget) - overhead")),
    ("a float goal", EX5D.replace("max(0, int(target * budget) - overhead)",
                                  "max(0, target * budget - overhead)")),
    ("the default trigger", EX5D.replace("<= trigger * budget", "<= 0.8 * budget")),
    ("the default target", EX5D.replace("int(target * budget)", "int(0.5 * budget)")),
    ("goal below the trigger, not the target", EX5D.replace("int(target * budget)",
                                                            "int(trigger * budget)")),
    ("never stuck", EX5D.replace('    if overhead >= budget:\n        return ("stuck", None)\n',
                                 "")),
    ("a list instead of a tuple", EX5D.replace('return ("send", None)', 'return ["send", None]')),
    ("tiktoken instead of the counter", "\nfrom jupyter_compaction.tokens import TokenCounter\n"
     + EX5D.replace("    overhead = counter.count",
                    "    counter = TokenCounter()\n    overhead = counter.count")),
]
EX6C = R["ex6c"]
MUTANTS["ex6c"] += [
    ("not stripped", EX6C.replace("+ text.strip() +", "+ text +")),
    ("only the right end stripped", EX6C.replace("+ text.strip() +", "+ text.rstrip() +")),
    ("no newline", EX6C.replace(' + "\\n"', "")),
    ("a newline in front", EX6C.replace('"- " + text.strip() + "\\n"',
                                        '"\\n- " + text.strip()')),
    ("newest note first", EX6C.replace('return (notes or "") + "- " + text.strip() + "\\n"',
                                       'return "- " + text.strip() + "\\n" + (notes or "")')),
    ("replaces the notes", EX6C.replace('(notes or "") + ', "")),
    ("a blank note is written", EX6C.replace("    if not text.strip():\n        return notes\n",
                                             "")),
    ("a blank note makes an empty file", EX6C.replace("        return notes\n",
                                                      '        return notes or ""\n')),
    ("a '* ' bullet", EX6C.replace('"- "', '"* "')),
    ("skips a note already there", EX6C.replace(
        "    if not text.strip():",
        '    if notes and "- " + text.strip() + "\\n" in notes:\n        return notes\n'
        "    if not text.strip():")),
    ("inner newlines joined", EX6C.replace("+ text.strip() +", '+ " ".join(text.split()) +')),
    ("glues a note onto a file without a final newline",
     EX6C.replace('    if notes and not notes.endswith("\\n"):\n        notes += "\\n"\n', "")),
]


def swap(exercise: str, old: str, new: str) -> str:
    """The reference with `old` replaced (it must be there: a mutant is a real edit)."""
    assert old in R[exercise], (exercise, old)
    return R[exercise].replace(old, new)


# Edge-value mutants (issue 23): each breaks on one kind of edge the generated cases
# draw first: zero, empty, falsy ids, negatives beside positives, fractional thresholds
# beside integer counts, free (0.0) and int prices, and every input shape.
EDGE_MUTANTS: dict[str, list[tuple[str, str]]] = {
    "ex1": [
        ("fractional line rounded", swap("ex1", "> trigger * budget",
                                         "> round(trigger * budget)")),
        ("the line counts as over", swap("ex1", "> trigger * budget", ">= trigger * budget")),
    ],
    "ex2": [
        ("keep_last=0 keeps one", swap("ex2", "max(len(ids) - keep_last, 0)",
                                       "max(len(ids) - max(keep_last, 1), 0)")),
        ("an empty placeholder counted", swap("ex2", 'if b["content"] != placeholder]',
                                              'if b["content"]]')),
        ("string content skipped wrongly", swap("ex2", "isinstance(m[\"content\"], str)",
                                                "m[\"role\"] != \"user\"")),
    ],
    "ex3": [
        ("cut 0 returns 0", swap("ex3", "    for i in", "    if cut <= 0:\n        return 0\n"
                                               "    for i in")),
        ("a negative cut taken as is", swap("ex3", "max(cut, 1)", "abs(cut) or 1")),
        ("past the end is the last index", swap("ex3", "    return len(messages)\n",
                                                "    return len(messages) - 1\n")),
        ("starts one later", swap("ex3", "max(cut, 1)", "max(cut + 1, 1)")),
        ("past the end returns the cut", swap("ex3", "    return len(messages)\n",
                                              "    return max(cut, 1)\n")),
    ],
    "ex3b": [
        ("a negative drop counts back", swap("ex3b", "max(drop, 0)", "abs(drop)")),
        ("a drop past the turns", swap("ex3b", "min(max(drop, 0), max(droppable, 0))",
                                       "max(drop, 0)")),
        ("drops the newest turn too", swap("ex3b", "len(starts) - 1", "len(starts)")),
    ],
    "ex4": [
        ("tail_tokens 0 keeps nothing", swap("ex4", "    start = starts[-1]\n",
                                              "    start = starts[-1]\n    if tail_tokens == 0:"
                                              "\n        return len(messages)\n")),
        ("fits only below the budget", swap("ex4", "> tail_tokens", ">= tail_tokens")),
        ("counts with its own counter", swap("ex4", "counter.count(messages[s:])",
                                             "len(str(messages[s:])) // 4")),
        ("the task alone is index 0", swap("ex4", "max(len(messages), 1)", "0")),
        ("counts one message less", swap("ex4", "counter.count(messages[s:])",
                                         "counter.count(messages[s + 1:])")),
    ],
    "ex4b": [
        ("the previous summary dropped", swap("ex4b", "    if previous:", "    if False:")),
        ("no headings", swap("ex4b", '    lines += [f"## {s}" for s in SECTIONS]\n', "")),
        ("tool output left out", swap("ex4b", "{result_text(b)}", "")),
        ("string content dropped", swap("ex4b", "            lines.append(f\"[{m['role']}] "
                                        "{m['content']}\")\n", "")),
    ],
    "ex4c": [
        ("a blank summary placed", swap("ex4c", " or not summary.strip()", "")),
        ("equal boundaries still place", swap("ex4c", "head_end >= tail_start",
                                              "head_end > tail_start")),
    ],
    "ex5": [
        ("zero before divides", swap("ex5", "tokens_before - tokens_after < STUCK_RATIO * "
                                     "tokens_before", "(tokens_before - tokens_after) / "
                                     "tokens_before < STUCK_RATIO")),
        ("at the budget is over", swap("ex5", "tokens_after > budget", "tokens_after >= budget")),
        ("exactly 10 % is stuck", swap("ex5", "< STUCK_RATIO * tokens_before",
                                       "<= STUCK_RATIO * tokens_before")),
        ("growth is not stuck", swap("ex5", "tokens_before - tokens_after <",
                                     "0 <= tokens_before - tokens_after <")),
    ],
    "ex5b": [
        ("a blank summary compacts", swap("ex5b", " or not summary.strip()", "")),
        ("the task alone compacts", swap("ex5b", "len(messages) < 2", "len(messages) < 1")),
    ],
    "ex5c": [
        ("a free cache read priced", swap("ex5c", 'prices.get("cache_read", 0.1 * prices['
                                          '"input"])', 'prices.get("cache_read") or 0.1 * '
                                          'prices["input"]')),
        ("a free cache write priced", swap("ex5c", 'prices.get("cache_write", 1.25 * prices['
                                           '"input"])', 'prices.get("cache_write") or 1.25 * '
                                           'prices["input"]')),
        ("int prices ignored", swap("ex5c", '    read = prices.get("cache_read", 0.1 * '
                                    'prices["input"])\n', '    read = prices.get("cache_read", '
                                    '0.1 * prices["input"])\n    if not isinstance(read, float):'
                                    '\n        read = 0.1 * prices["input"]\n')),
    ],
    "ex5d": [
        ("fractional target rounded", swap("ex5d", "int(target * budget)",
                                           "round(target * budget)")),
        ("overhead equal to the budget compacts", swap("ex5d", "overhead >= budget",
                                                        "overhead > budget")),
    ],
    "ex6": [
        ("an empty id kept", swap("ex6", "todo.get('id') or n", "todo.get('id', n)")),
        ("a None id kept", swap("ex6", "todo.get('id') or n",
                                "n if todo.get('id') == '' else todo.get('id', n)")),
        ("an empty note shown", swap("ex6", 'if todo.get("note")', 'if "note" in todo')),
        ("an empty goal printed empty", swap("ex6", "goal or '(not set)'", "goal")),
    ],
    "ex6b": [
        ("an id that is a digit is falsy", swap("ex6b", "while parents[chain[0]] is not None:",
                                                "while parents[chain[0]] not in (None, '0'):")),
        ("a self loop is followed once", swap("ex6b", " or parent in chain", "")),
        ("a missing ancestor included", swap("ex6b", "parent not in parents or ", "")),
    ],
    "ex6c": [
        ("a blank line between notes", swap("ex6c", '(notes or "")',
                                            '(notes + "\\n" if notes else "")')),
        ("a file without a final newline", swap("ex6c", '(notes or "") + "- "',
                                                '(notes or "").rstrip("\\n") + "\\n- "')),
    ],
    "ex7": [
        ("empty list is 0", swap("ex7", "        return 1.0\n", "        return 0.0\n")),
        ("duplicates counted", swap("ex7", "list(dict.fromkeys(must_keep))", "list(must_keep)")),
        ("case kept", swap("ex7", "fact.lower() in text", "fact in summary")),
        ("an empty summary keeps everything", swap("ex7", "    text = summary.lower()\n",
                                                   "    if not summary:\n        return 1.0\n"
                                                   "    text = summary.lower()\n")),
    ],
    "ex8": [
        ("a budget over the limit", swap("ex8", '"budget": 6000', '"budget": 8000')),
        ("task_state as a string", swap("ex8", '"task_state": True', '"task_state": "yes"')),
    ],
    "ex9": [
        ("a reported 0 skipped", swap("ex9", "if t.reported is not None", "if t.reported")),
        ("negative gaps dropped", swap("ex9", "max(min(gaps), 0) if gaps else 0",
                                       "min([g for g in gaps if g >= 0] or [0])")),
        ("the first gap", swap("ex9", "max(min(gaps), 0)", "max(gaps[0], 0)")),
    ],
}
for exercise, mutants in EDGE_MUTANTS.items():
    MUTANTS[exercise] += mutants

# the wrong solutions issue 34's red team found the grade rejecting and check() passing
MUTANTS["ex2"] += [
    ("a rebuilt block drops is_error", swap(
        "ex2", '{**b, "content": placeholder}',
        '{"type": "tool_result", "tool_use_id": b["tool_use_id"], "content": placeholder}')),
]
MUTANTS["ex6b"] += [
    ("recursion without a loop check", '''
def session_chain(parents, session_id):
    parent = parents.get(session_id)
    if parent is None or parent not in parents:
        return [session_id]
    return session_chain(parents, parent) + [session_id]
'''),
]
MUTANTS["ex7"] += [
    ("duplicates found without regard to case", swap(
        "ex7", "list(dict.fromkeys(must_keep))",
        "list({f.lower(): f for f in must_keep}.values())")),
    ("an empty list scores nothing", swap("ex7", "    if not facts:\n        return 1.0\n",
                                           "    if not facts:\n        return []\n")),
]

LIBRARY = {
    "ex4c": '''
from jupyter_compaction.strategies import SummarizeMiddle


def place_summary(messages, head_end, tail_start, summary, role):
    class Given(SummarizeMiddle):
        def boundaries(self, messages, goal, counter):
            return head_end, tail_start
    layer = Given(summarizer=lambda prompt: summary, role=role)
    return layer(messages, goal=10**9, counter=None).messages
''',
    "ex5c": '''
from jupyter_compaction import pricing


def summary_cost(usages, prices):
    return pricing.dollars(usages, prices)
''',
    "ex5d": '''
from jupyter_compaction.agent import Agent


def preflight(counter, messages, system, tools, budget, trigger=0.8, target=0.5):
    agent = Agent(None, budget=budget, trigger=trigger, target=target)
    return ("send", None) if agent else ("stuck", None)
''',
    "ex6c": '''
import tempfile

from jupyter_compaction.task_state import notes_tools
from jupyter_compaction.workspace import Workspace


def add_note(notes, text):
    write_note, read_notes = notes_tools(Workspace(tempfile.mkdtemp()))
    write_note(text)
    return (notes or "") + read_notes()
''',
    "ex2": '''
from jupyter_compaction.strategies import PLACEHOLDER, ClearToolResults
from jupyter_compaction.tokens import TokenCounter

def clear_old_results(messages, keep_last=3, placeholder=PLACEHOLDER):
    layer = ClearToolResults(keep_last=keep_last, placeholder=placeholder, clear_at_least=-1e9)
    return layer(messages, goal=1, counter=TokenCounter()).messages
''',
    "ex3": '''
import jupyter_compaction.history as h

def safe_cut_index(messages, cut):
    return next((c for c in h.cut_points(messages) if c >= max(cut, 1)), len(messages))
''',
    "ex4": '''
from jupyter_compaction.strategies import SummarizeMiddle

def tail_start(messages, counter, tail_tokens):
    layer = SummarizeMiddle(protect_first=1, tail_tokens=tail_tokens)
    return layer.boundaries(messages, 2 * tail_tokens, counter)[1]
''',
    "ex4b": '''
from jupyter_compaction.summaries import build_prompt as prompt

def summary_prompt(middle, previous):
    return prompt(middle, previous)
''',
    "ex5": '''
from jupyter_compaction import strategies

def is_stuck(tokens_before, tokens_after, budget):
    try:
        strategies.check_stuck(strategies.Compaction("x", [], tokens_before, tokens_after),
                               budget)
    except strategies.CompressionStuck:
        return True
    return False
''',
    "ex6": '''
from jupyter_compaction.task_state import TaskState

def render_task_state(goal, todos):
    state = TaskState(goal=goal)
    state.write(todos)
    return state.render()
''',
    "ex7": '''
from jupyter_compaction.evaluation import eval_summary

def fact_recall(summary, must_keep):
    return eval_summary(summary, must_keep, "").loose_recall
''',
}

LITERALS = (list, dict, tuple, str, int, float, bool, type(None))


def _key(args: tuple, kwargs: dict) -> str:
    return repr(([a for a in args if isinstance(a, LITERALS)], sorted(kwargs.items())))


def lookup_table(exercise: str) -> str:
    """A solution that answers every public case from a table of the reference's answers."""
    spec = EXERCISES[exercise]
    reference = define(REFERENCE[exercise])[spec.function]
    table: dict[str, Any] = {}

    def recording(*args: Any, **kwargs: Any) -> Any:
        key = _key(args, dict(kwargs))  # a text, taken before the reference may change them
        table[key] = reference(*args, **kwargs)
        return table[key]

    for case in spec.cases:
        case.test(recording)
    return f'''
import copy

LITERALS = (list, dict, tuple, str, int, float, bool, type(None))
TABLE = {table!r}

def {spec.function}(*args, **kwargs):
    key = repr(([a for a in args if isinstance(a, LITERALS)], sorted(kwargs.items())))
    return copy.deepcopy(TABLE.get(key))
'''
