"""The quiz questions of the course, three to five per lesson, by lesson.

Each question is answered from its lesson's own checked outputs (a number it printed, or
which row of a table says what); `tests/lessons/test_lesson_quiz.py` reads each answer
back from the stored outputs. The answers are sealed (`quiz_question.seal`): to add a
question, run `seal("q3.4", "b")` in a Python shell, or for a number `seal("q3.4", "120")`
(written as `quiz_question.normalize` writes it, rounded to the question's `decimals`),
and paste the digest.

Left out: judging an answer (`quiz_question.py`) and asking (`quiz.py`).
"""

from __future__ import annotations

from .quiz_question import Question

QUESTIONS = (
    # Lesson 1: measure first
    Question("q1.1", "Section 1: how many tokens does the task message alone count?",
             "c27fb1479453fe70",
             "The table's first line counts the task message by itself; the system prompt "
             "and the tool definitions come on top of it in every request."),
    Question("q1.2", "Section 2: on which turn does the request first pass 8,000 tokens?",
             "455c4b6950ac1f0c",
             "Read down the request column: each turn adds the tool output of the turn "
             "before, so the request grows until it crosses the budget."),
    Question("q1.3", "Section 5: where in the request does the question sit when the model "
             "writes its answer?",
             "8ba3695da54666d1",
             "The task is the first message, so it sits at 0 % while the model answers after "
             "100 %: everything read in between pushes the question further away.",
             options=("at the very start", "in the middle", "at the very end",
                      "it is no longer in the request")),
    Question("q1.4", "Section 7: why does the simulated model refuse the second question?",
             "4892c6b6b935be04",
             "It answers only the questions its scenario declares, and only when it understands "
             "every word; it names the words it did not understand.",
             options=("the customer does not exist", "the budget is too small",
                      "it did not understand some words of the task",
                      "the API key is missing")),
    # Lesson 2: clear old tool results
    Question("q2.1", "Section 1: what share (in %) of the last request are tool results?",
             "f565d55ca043adbe",
             "Tool results dwarf the system prompt and the messages' own text, which is why "
             "clearing them is the first layer."),
    Question("q2.2", "Section 2: how many tokens does clearing with keep_last=2 save?",
             "69c4835b52a65868",
             "The first line prints tokens before -> after and the difference; three old "
             "results were replaced by the placeholder."),
    Question("q2.3", "Section 3: what does ClearToolResults do with clear_at_least=5_000?",
             "3ca0bcef6e55693e",
             "Clearing would free fewer tokens than the minimum, so the layer leaves the "
             "history unchanged and says why in its note.",
             options=("it clears every old result", "it clears nothing: it would free too little",
                      "it raises an error", "it clears only the list_files result")),
    # Lesson 3: trimming and pairs
    Question("q3.1", "Section 3: how many safe cut points does the history have?",
             "f160fb00c82d108c",
             "cut_points lists every index where the history may be cut with every call "
             "still next to its result; count the list section 3 prints."),
    Question("q3.2", "Section 2: which of the four cuts leaves a valid history?",
             "fec57fb5f81c5a63",
             "Only a cut in front of an assistant message keeps the roles alternating and every "
             "tool_use answered by its tool_result in the next message.",
             options=("cut in front of a user message", "... and merged with the task",
                      "one of two parallel results dropped",
                      "cut in front of an assistant message")),
    Question("q3.3", "Section 4: how many messages does trimming drop?",
             "3dd5e1a395fd054e",
             "Trimming drops whole turns from the oldest until the rest fits the goal, and "
             "everything those turns said is no longer visible."),
    # Lesson 4: head, middle, tail
    Question("q4.1", "Section 1: in the table's second row, how many messages are in the tail?",
             "76fb7351d43c9a35",
             "The tail grows from the newest message while it stays within tail_tokens, and "
             "never starts in the middle of a call and its result."),
    Question("q4.2", "Section 3: how many tokens are left after the first summary?",
             "dc7b082551f64dcd",
             "The middle is replaced by one structured summary; the head and the tail stay "
             "as they were."),
    Question("q4.3", "After exercise ex4b: which summary prompt made the run fail, stuck "
             "with repeats?",
             "3857f7fbd9067f1b",
             "A summary asked for 'in a few lines' drops the identifiers the agent needs, so it "
             "reads the same files again until it is stuck.",
             options=("the weak one ('a few lines')", "the good one ('keep every ID')",
                      "both", "neither")),
    Question("q4.4", "Section 6: which summary role and modelling assumption fail?",
             "15b98d7643a34523",
             "Only when the summary arrives as a user message and the model redoes everything "
             "it is told does the run repeat its work until it fails.",
             options=("assistant, redo_all", "user, trust", "user, redo_all",
                      "none of them fail")),
    # Lesson 5: who summarizes, preflight, stuck detection
    Question("q5.1", "Section 1: which summarizer design reads most of its input from the cache?",
             "b7f7d85d2a596aba",
             "Appending the summary request to the agent's own conversation reuses its cached "
             "prefix; a separate request starts a new, uncached prompt.",
             options=("aux, own model", "aux, cheap model", "same (append)",
                      "all three equally")),
    Question("q5.2", "Section 2: how many tokens does whole-history compaction (compact) send "
             "in all?",
             "540e0102d244ad52",
             "Compacting everything into one summary leaves a smaller history for the turns "
             "after it, so the run sends fewer tokens than summarizing the middle."),
    Question("q5.3", "Section 3: on its first compaction before a call, preflight compacts "
             "the messages down to how many tokens?",
             "be863238bb5c7d76",
             "Preflight compacts before the call, so the model never sees a request over the "
             "new, smaller budget."),
    Question("q5.4", "Section 4: the clear strategy is stuck over how many tokens left for "
             "the messages?",
             "55ffadb631196d52",
             "Clearing freed nothing (the tokens before and after are equal), and the messages "
             "are still over what the budget leaves them once the system prompt and tools are "
             "counted."),
    # Lesson 6: task state and notes
    Question("q6.1", "Section 1: what is the smallest summary size (in words) with which the "
             "run finished?",
             "73a7813a809b9630",
             "Below that size the summary loses findings, and the agent re-reads files until "
             "it is stuck; above it, more words change nothing here."),
    Question("q6.2", "Section 2: with task state on, what share (in %) of the input tokens "
             "is read from the cache?",
             "1fdaaa308c98875d",
             "The task state lives in the system prompt and changes every turn, so the cached "
             "prefix breaks at the very start of each request."),
    Question("q6.3", "Section 4: the run compacted 4 times; how many sessions are in its "
             "chain on disk?",
             "fbca504b07b49ce8",
             "Each compaction starts a new session whose parent is the one before, so nothing "
             "of the transcript is lost."),
    # Lesson 7: evaluating summaries
    Question("q7.1", "Section 1: what is the smallest word cap with a full recall?",
             "d74d03ee4693cfac",
             "Below it the summary drops must-keep facts; above it the summary writes no more "
             "words, because it has nothing more to say."),
    Question("q7.2", "Section 2: which candidate summary makes unsupported claims?",
             "f37c195978929465",
             "Recall alone cannot catch it: it keeps every fact and adds ones the source never "
             "said.",
             options=("extractive, 200 words", "copy of the source", "vague",
                      "confident but wrong")),
    Question("q7.3", "Section 3: which strategy drops must-keep facts?",
             "e7b98d592d9ef212",
             "It drops whole turns, and the findings in them go with them; the others replace "
             "what they remove with a placeholder or a summary that keeps them.",
             options=("clear", "trim", "summarize", "compact")),
    # Lesson 8: the capstone
    Question("q8.1", "Section 2: what is the baseline's peak request, in tokens?",
             "8691d3771e61f36e",
             "Without compaction the request only grows, so the peak is the last request, "
             "far over a small budget."),
    Question("q8.2", "Section 2: how many of the five targets does the baseline fail?",
             "1bf3023e475e9d99",
             "Read the PASS and FAIL lines under the run: without compaction the request "
             "only grows, and the targets that measure it are the ones missed."),
    Question("q8.3", "Section 4: which target does no row of the sweep meet?",
             "4072d4886352317f",
             "Every row of the sweep misses it; the sweep leaves some settings for you to "
             "try in the exercise.",
             options=("correct", "budget", "small", "cheap")),
    Question("q8.4", "Section 5: with offload, what share of plain `off`'s tokens does `off` "
             "send, in percent?",
             "0509cf28f2c3a728",
             "Each large file's full text no longer rides along in every later call: only its "
             "preview does, and one search brings back the lines the task needs.",
             decimals=1),
    Question("q8.5", "Section 5: how does the run of `trim` without task state end?",
             "89d656f35f44c4ee",
             "Its windows between compactions kept repeating the same calls with the same "
             "results and wrote nothing new, so the progress guard ended it long before "
             "`max_turns`.",
             options=("finished, with the right answer", "out of turns (max_turns)",
                      "stuck in a loop", "thrashing")),
    # Lesson 9: a real session
    Question("q9.1", "Section 3: how many reported tokens were in the context when Claude "
             "Code compacted?",
             "66a77fd5ddd6dba2",
             "The session's own compaction record carries the reported count at the moment it "
             "fired (trigger: auto)."),
    Question("q9.2", "Section 4: how many tokens does the first call report beyond the local "
             "count of its messages (the overhead)?",
             "580fc475e67ce020",
             "The first call's messages are tiny, so the difference is the system prompt and "
             "the tool definitions that every request carries."),
    Question("q9.3", "Section 5: which strategy loses the most identifiers of Claude Code's "
             "own summary?",
             "d9e94aea680e058d",
             "It keeps a single short summary of the whole history, so most identifiers that "
             "Claude Code chose to keep are gone.",
             options=("clear", "trim", "summarize", "compact")),
    # Lesson 10: the API's own context management
    Question("q10.1", "Section 2: what is the smallest trigger (in tokens) the API's "
             "compaction accepts?",
             "55da58f44cbadb99",
             "The API refuses a compaction trigger below its minimum, so a small budget like "
             "this course's 8,000 needs the library's own strategies."),
    Question("q10.2", "Section 1: which edit type is the API's counterpart of ClearToolResults?",
             "9022dab33b747bb5",
             "Context editing clears old tool results on the server, with the same keep, "
             "trigger, clear-at-least and exclude knobs as the local layer.",
             options=("clear_tool_uses_20250919", "compact_20260112",
                      "clear_thinking_20251015", "memory_20250818")),
    Question("q10.3", "Section 4: which betas does the request with all three features name?",
             "923fb8f2c001e543",
             "Each server-side feature is a beta the request must name; the memory tool is a "
             "tool, not an edit.",
             options=("context-management-2025-06-27 only",
                      "context-management-2025-06-27 and compact-2026-01-12",
                      "compact-2026-01-12 only", "none")),
)
