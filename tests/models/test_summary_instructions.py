"""The summary prompt reader: sections, lengths, identifiers and focus, in people's words."""

import pytest

from jupyter_compaction.models.summary_instructions import (
    KINDS,
    identifiers,
    limits,
    parse_number,
    read_instructions,
    sections,
)
from jupyter_compaction.summaries import SECTIONS, build_prompt, summary_prompt
from jupyter_compaction.vocab import untagged

TWO = ("Goal", "Next Steps")


@pytest.mark.parametrize("prompt", [
    "Summarize the turns.\n## Goal\n## Next Steps\n",
    "Summarize the turns. Use exactly two sections, '## Goal' and '## Next Steps'.",
    'Use two headings, "Goal" and "Next Steps", nothing else.',
    "Write the sections `## Goal` then `## Next Steps`.",
    "Use exactly two sections, ‘Goal’ and ‘Next Steps’.",
    "Use these sections: Goal and Next Steps. Be brief.",
    "Use the sections: Goal, Next Steps; keep it short.",
    "Use these sections:\n- Goal\n- Next Steps\n\nThen stop.",
    "Use these headings:\n1. Goal\n2. Next Steps\nWrite plainly.",
    "Summarize in two sections, Goal and Next Steps, in under 80 words.",
    "Use two headings named Goal and Next Steps.",
])
def test_sections_named_as_headings_quoted_or_listed(prompt):
    assert sections(prompt) == TWO


@pytest.mark.parametrize("prompt", [
    "Keep every section short.",  # no names
    "Summarize the turns; don't say 'maybe' or 'perhaps'.",  # quoted, but not sections
    "Summarize the turns below in a few lines.",
])
def test_near_misses_name_no_section(prompt):
    assert sections(prompt) == ()


def test_the_librarys_own_prompt_names_its_five_sections():
    prompt = str(build_prompt([{"role": "user", "content": "hi"}], goal="a task"))
    assert sections(prompt) == SECTIONS
    assert identifiers(prompt) is True and limits(prompt) == {}


@pytest.mark.parametrize(("prompt", "expected"), [
    ("Summarize in at most 40 words.", {"words": 40}),
    ("Keep it under 40 words.", {"words": 40}),
    ("Keep the summary to 40 words.", {"words": 40}),
    ("Stay below 40 words.", {"words": 40}),
    ("No more than 40 words, please.", {"words": 40}),
    ("Use fewer than 40 words.", {"words": 40}),
    ("Use less than 40 words.", {"words": 40}),
    ("Write 40 words or fewer.", {"words": 40}),
    ("Write 40 words or less.", {"words": 40}),
    ("Forty words or fewer.", {"words": 40}),
    ("At most forty-five words.", {"words": 45}),
    ("Write a 100-word summary.", {"words": 100}),
    ("At most two hundred and fifty tokens.", {"tokens": 250}),
    ("Under 1,000 tokens.", {"tokens": 1000}),
    ("At most 6 lines.", {"lines": 6}),
    ("Summarize in 80 words.", {"words": 80}),
    ("In at most three sentences.", {"sentences": 3}),
    ("No more than five bullet points.", {"bullets": 5}),
    ("At most 3 bullets and under 80 words; under 60 words if you can.",
     {"bullets": 3, "words": 60}),
])
def test_lengths_in_words_tokens_lines_or_bullets(prompt, expected):
    assert limits(prompt) == expected


@pytest.mark.parametrize("prompt", [
    "Write at least 50 words.",
    "The log has 300 lines; summarize it.",
    "It ran over 40 words before.",
    "Read under 40 files.",
    "Summarize the last 40 words of the ticket.",
])
def test_near_misses_are_no_limit(prompt):
    assert limits(prompt) == {}


@pytest.mark.parametrize(("text", "number"), [
    ("40", 40), ("1,200", 1200), ("forty", 40), ("forty-two", 42), ("two hundred", 200),
    ("two hundred and fifty", 250), ("one thousand five hundred", 1500), ("twelve", 12),
    ("forty banana", None),
])
def test_numbers_in_digits_or_words(text, number):
    assert parse_number(text) == number


@pytest.mark.parametrize(("prompt", "keep"), [
    ("Keep every identifier verbatim.", True),
    ("Copy every ID, file name and value as written.", True),
    ("Preserve IDs.", True),
    ("Don't drop IDs.", True),  # two negations
    ("Summarize without changing any IDs.", True),
    ("Quote error messages verbatim.", None),  # error messages are no kind it keeps
    ("Leave out all identifiers.", False),
    ("Do not keep ids.", False),
    ("No IDs, please.", False),
    ("Omit identifiers and numbers.", False),
    ("Never include identifiers.", False),
    ("Keep IDs. On second thought, leave out all identifiers.", False),  # the last decides
    ("Keep IDs, no more than 100 words.", True),  # "no more than" is a length
    ("Summarize briefly.", None),
    ("A missing ID costs more than an extra line.", None),
])
def test_identifiers_kept_or_left_out_negation_included(prompt, keep):
    assert identifiers(prompt) is keep


def test_a_focus_names_its_words():
    found = read_instructions("Summarize. Focus on: the timeout and the retries.")
    assert found.focus == frozenset({"timeout", "retries"})
    assert read_instructions("Summarize.").focus == frozenset()


@pytest.mark.parametrize(("prompt", "keep"), [
    ("Leave out names and paths.", {"names": False, "paths": False}),
    ("Do not keep numbers.", {"numbers": False}),
    ("Drop the figures and the file names.", {"numbers": False, "paths": False}),
    ("Keep class names and record ids verbatim.", {"names": True, "ids": True}),
    ("No dates or versions.", {"numbers": False}),
    ("Don't leave out file paths.", {"paths": True}),  # two negations
    ("Keep every identifier. Also omit the numbers.",
     {**dict.fromkeys(KINDS, True), "numbers": False}),  # the last sentence decides numbers
    ("Drop all numbers but keep file paths.", {"numbers": False, "paths": True}),  # clauses
    ("Keep the ids while leaving out the names.", {"ids": True, "names": False}),
    ("Exclude names of files.", {"paths": False}),  # the files' names are paths
    ("Do not mention ticket IDs.", {"ids": False}),
    ("Summarize so far, preserving exact file paths.", {"paths": True}),
])
def test_each_kind_kept_or_left_out_with_synonyms_and_negation(prompt, keep):
    found = read_instructions(prompt)
    assert found.keep == keep and found.not_understood == ()


@pytest.mark.parametrize(("prompt", "words"), [
    ("Summarize the turns as a haiku, in French.", ("haiku", "French")),
    ("Summarize the turns for the CFO and be funny.", ("CFO", "funny")),
    ("Keep every ID. Recall comes first.", ("Recall", "comes", "first")),
    ("Consider the paths.", ("Consider", "paths")),  # no verdict: nothing decided
])
def test_words_no_rule_reads_are_reported_not_guessed(prompt, words):
    found = read_instructions(prompt)
    assert found.not_understood == words
    assert read_instructions("Consider the paths.").keep == {}


@pytest.mark.parametrize("options", [{}, {"focus": "the timeout"}, {"previous": "## Goal\nx"},
                                     {"cover": (2, 5)}])
def test_the_librarys_own_prompts_are_read_but_for_what_it_does_not_do(options):
    prompt = summary_prompt([{"role": "user", "content": "hi"}], goal="a task", **options).text
    found = read_instructions(untagged(prompt))
    assert found.sections == SECTIONS and found.keep == dict.fromkeys(("ids", "paths",
                                                                       "numbers"), True)
    # It keeps no error messages and weighs no recall against length: it says so.
    assert set(found.not_understood) == {"error", "Recall", "comes", "first", "missing", "ID",
                                         "costs", "more", "extra", "line"}
    assert "writes a summary" in found.followed()


def test_what_it_followed_in_words():
    found = read_instructions("Summarize in at most 3 sentences with two sections, 'Goal' and "
                              "'Next Steps'. Leave out paths. Focus on the timeout.")
    assert found.followed()[:4] == ["sections: Goal, Next Steps", "length: at most 3 sentences",
                                    "leaves out: paths", "focus: timeout"]
