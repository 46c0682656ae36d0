"""What a task says around its question: asides a reader need not understand.

A learner seldom types the bare question. "I'm debugging the 504s: how long does the
gateway wait?", "Would you mind listing ...", "The customer insists nobody rang the bell.
Was ORD-1042 on time?": the words around the question say who asks and why, not what. A
grammar (`grammar.py`) must consume every content word of the question itself; the tokens
found here are forgiven when left over. Their entities still fill slots (the ticket in "I'm
handling TCK-5521. What do we offer?"), but the attribute must be asked outside them, so an
aside can never carry a question in ("The dispatch table in agents/router.py: who wrote
it?" is refused: "who" and "wrote" are asked, and no question reads them).

Six kinds, each a pattern over the text:
- an opening first-person clause that ends before the question ("I'm new here - ...", "I
  already checked X, so ...", "I think X is gold, can you ..."), or a closing one that says
  what the learner is doing ("..., I'm drawing a dependency graph");
- a clause that sets the scene: "before / while / since ... I (we)" ("... before we ship"),
  "since / because it ...", "when <subject or -ing> ..." inside a sentence (not after
  "tell me", where "when" is asked), each ending where a request starts ("Before I add a
  tool | I want every file ..."), an opening purpose or occasion ("To rule out the payment
  side, ...", "For my notes, ..."; not "For the /api/ location, ...", whose path makes it
  the question's topic), whom or what it is for ("for the weekly report", "for exercise
  2"), the workspace named as the source ("Using the workspace files, ...": a source it
  names, "According to the tracking", must be the question's), and the words that open a
  turn ("OK agent,", "Quick check:", "New hire question:", "ex 2b:", "ok now the opposite:");
- a relative pronoun after a noun ("the customer who placed ORD-1042");
- hedges and the frames of a polite request ("if any", "would you mind", "I'd like to
  know", "I'm not sure whether", "a simple yes or no would do", "if you can"), and who
  wants or asked the answer ("My team lead wants to know ...", "the OSPO asked how ...");
- a sentence (or a lead-in before a dash) that states rather than asks, when another
  sentence of the task asks: it opens with its subject ("The ...", "I've ...", "Since
  ..."), a noun and its "is" ("Customer's on the phone -"), a participle ("Poking at the
  router -") or a verb that tells what happened ("Got a flaky call -"), or has a stating
  verb among its first words ("Release is tomorrow:"), does not open with a verb that asks
  for work ("Translate ...", "Suppose ..."), does not end with "?" and makes no request
  ("I want to know", "tell me", "can you"); a topic ending in a colon ("The checkout route
  at the gateway: ...") names what is asked and is no statement, and a question that only
  points back ("What is it?", "Which files are those?", "What's the value?") asks what the
  sentences before it say: they are no asides, and it is one;
- a clause of an asking sentence, cut at its commas, that states while another clause asks
  ("the customer swears nobody rang, so why ...?", "..., we don't care about the CLI
  entry"): a first-person subject, what the learner is doing ("writing the reply ..."), or
  a stating verb no "that / which / who" ties to a noun ("the slot that is free" is a noun
  phrase, the question's topic), and no question word. A sentence with a later clause
  that opens a question ("..., how long does ...") asks, though it starts by stating.

Left out: conditions and suppositions ("if we raised the timeout ...": a hypothetical
changes the question), subordinate clauses with other subjects ("since the last release": a
date filter; "before it gives up" is the question's own), and any syntax beyond these
patterns; a sentence this misses stays for the grammar to understand.
"""

from __future__ import annotations

import re


def word_set(text: str) -> frozenset[str]:
    """The words of `text`, a set to look words up in."""
    return frozenset(text.split())


# up to the clause's end (the dot of a file name is not; a dash between spaces is)
CLAUSE = r"(?:(?!\s[-\u2013\u2014]\s)[^,.;:!?]|\.(?=\w))*"
# ... a scene's clause ends where a request starts ("Before I add a tool I want every ...")
SCENE_ENDS = (r"\s(?:(?:I|we)\s+(?:want|need)\s+(?:every|all|each|the|a|an|to\s+see)|please|"
           r"tell|show|list|(?:can|could)\s+you)\b")
SCENE_CLAUSE = rf"(?:(?!\s[-\u2013\u2014]\s|{SCENE_ENDS})[^,.;:!?]|\.(?=\w))*"
# ... and an opening "For ..." that names a path, an id or a licence is the question's topic
# ("For the general /api/ location, ...", "For the libraries under the LGPL, ..."), not whom it
# is for ("For my notes, ...")
NAMELESS = r"(?:(?!\s[-\u2013\u2014]\s|(?-i:[A-Z]{2}))[^,.;:!?/]|\.(?=\w))*"
START = r"(?:^|(?<=[.;:!?]\s)|(?<=\s[-\u2013\u2014]\s))\s*"  # where a sentence or a clause opens
# where an opening clause ends ("I'm on exercise 3 and need to know ...")
STOP = (r"(?:[.;:!?]\s|\s[-\u2013\u2014]\s|,\s+so\s|"
        r",?\s+and\s+(?:I\s+)?(?:need|want|have)\s+to\s+(?:know|find\s+out|check|see)\s|"
        r",?\s+and\s+(?:I\s+)?(?:need|want)\s(?=(?:the|a|an|every|all)\s))(?=\S)")

# A word said before speaking: "OK", "Honestly", "Hmm".
INTERJECTION = (r"ok(?:ay)?|so|now|right|alright|well|hmm|honestly|frankly|actually|sorry|um|uh|"
                r"hi|hey|hello|ugh|argh|phew|oof|yo")
# A word or two that opens a turn and asks nothing: "OK agent,", "So,", "Quick check:",
# "Next step:", "Let's see...", "Hi!".
OPENER = (rf"(?:^|(?<=[.;:!?]\s))(?:(?:{INTERJECTION})[,!]?\s+)*"  # "Hi, stuck on ...:"
          rf"(?:(?:{INTERJECTION})(?:,?\s+(?:{INTERJECTION}))*|"
          r"first(?:ly)?|next(?:\s+(?:step|question))?|then|also|finally|find\s+out|"
          r"thanks|thank\s+you|cheers|great|"
          r"pop\s+quiz(?:\s+for\s+you)?|quiz\s+time|(?:a\s+)?question\s+for\s+you|"
          r"(?:the\s+)?last\s+one(?:\s+for\s+(?:today|now|the\s+day))?|one\s+more(?:\s+thing)?|"
          r"(?:quick|sanity)\s+(?:check|question|one|warm-?up)"
          r"(?:\s+(?:for|on)\s+(?:the\s+|this\s+)?(?:class|group|pr|branch|diff|change))?|"
          r"let's\s+see(?:\s+if\s+you\s+can)?|"
          r"(?:i'm\s+)?stuck(?:\s+on\s+(?:the\s+|this\s+)?(?:exercise|question|task|step|part)"
          r"(?:\s+\d+[a-z]?)?)?|"
          # who asks: "New on the team here:", "New hire question:"
          r"(?:i'm\s+)?new\s+(?:here|on\s+the\s+team|to\s+the\s+team)(?:\s+here)?|"
          r"new\s+(?:hire|joiner|starter)(?:\s+(?:here|question))?|"
          r"(?:on-call|sre|support|ops|qa|legal|security|finance)(?:\s+(?:engineer|person|team))?"
          r"\s+here|"
          r"(?:have\s+you\s+)?got\s+a\s+(?:sec(?:ond)?|minute|moment)(?=\?)|"
          # a question that turns the last one round: "ok now the opposite:"
          rf"(?:(?:{INTERJECTION})[,\s]+)*(?:the\s+)?(?:opposite|reverse)|"
          # which exercise: "ex 2b:", "homework q4:", "Task 3 -"
          r"(?:ex(?:ercise)?|homework|hw|task|part|step|quiz|lab|q)\s*\d*[a-z]?"
          r"(?:\s+(?:q|ex(?:ercise)?|part|step)\s*\d+[a-z]?)?)"
          r"(?:\s+agent)?(?:(?:[!,:.?]|\.\.\.|\u2026)+|\s[-\u2013\u2014])(?=\s|$)")

# 1. An opening first-person clause ("I'm debugging the 504s: ...", "I already checked X,
# so ...").
FIRST_PERSON = (rf"{START}(?:(?:{INTERJECTION}),?\s+)?"
                r"(?:I'm|I\s+am|I've|I\s+have|we're|we\s+are|we've|we\s+have|"
                rf"I\s+(?:already|just)\s+\w+)\b.*?{STOP}"
                # ... or what I believe, up to the comma before the question ("I think X is
                # gold, can you check their tier?")
                # ... or what I am doing, said last: "..., I'm drawing a dependency graph"
                rf"|(?<=,\s)(?:I'm|I\s+am|we're|we\s+are)\s+\w+ing\b{CLAUSE}(?=[.!]?\s*$)"
                rf"|{START}I\s+(?:think|believe|guess|suspect|reckon)\b{CLAUSE}"
                r"(?=,\s+(?:what|which|how|why|when|where|who|is|are|does|do|did|can|could|"
                r"would|will|has|have)\b)")
# 2. A clause that sets the scene: "... before we ship", "... when customers try to pay",
# "To rule out the payment side, ...", "For my notes: ...", and the words of an OPENER.
SCENE = (rf"\b(?:before|after|while|until|once|so|since|because)\s+(?:I|we)\b{SCENE_CLAUSE}"
         rf"|\b(?:since|because)\s+(?:it|they)\b{SCENE_CLAUSE}"
         # ... not the question "when" of "tell me when ...", "do you know when ..."
         r"|(?<=\w\s)(?<!\bme\s)(?<!\bus\s)(?<!\bknow\s)(?<!\bsee\s)(?<!\bout\s)"
         rf"when\s+(?:I|we|it|they|the|this|our|customers?|users?|people|shoppers|someone|somebody|"
         rf"\w+ing)\b{SCENE_CLAUSE}"
         r"|\bfor\s+(?:my|our)\s+\w+(?:\s+(?:notes|report|summary|slides))?"
         # ... who it is for: "for the weekly report", "for the legal team"
         r"|\bfor\s+(?:the|a|an|my|our)\s+(?:[\w-]+\s+){0,2}(?:report|review|team|notes|summary|"
         r"slides|exercise|(?:exercise\s+|work)?sheet|header|meeting|standup|lab|class|vp|boss|manager|"
         r"postmortem|audit\s+file|"
         r"leadership|management|execs|stakeholders|runbook|ticket|checklist|write-?up|update|"
         r"page|dashboard)\b"
         r"|\bbefore\s+(?:the\s+|our\s+)?(?:code\s+review|standup|(?:release\s+)?meeting|demo|lecture|"
         r"class)\b"
         r"|\bfor\s+(?:leadership|management|(?:the\s+)?execs|stakeholders)\b"
         r"|\bfor\s+(?:[\w-]+\s+)?purposes\b"  # "for SLA purposes"
         # ... or which exercise: "for exercise 2", "for question 3b"
         r"|\bfor\s+(?:the\s+)?(?:exercise|question|task|step|part|worksheet|homework|assignment|"
         r"quiz)\s+\d+[a-z]?\b"
         rf"|{START}(?:to\s+\w+|in\s+(?:my|our)|as\s+(?:the|a|an)|"
         rf"(?:before|after|during|ahead\s+of)(?:\s+the)?)\b{CLAUSE}[,:]"
         rf"|{START}for\s+(?:my|our|the|a|an)\b{NAMELESS}[,:]"
         # ... the workspace as the source: "Using the workspace files, ...", "Based on the
         # code, ..." (a source it names, "According to the tracking", is the question's)
         rf"|{START}(?:using|based\s+on|according\s+to|looking\s+at|judging\s+by|going\s+by)\s+"
         r"(?:the\s+|this\s+|our\s+)?(?:workspace(?:\s+files)?|files|code(?:base)?|"
         r"repo(?:sitory)?|source(?:\s+code)?|snapshot|bundle|data|materials?)\s*[,:]"
         # ... and who acts: "When someone places an order, ..."
         rf"|{START}when(?:ever)?\s+(?:someone|somebody|a\s+customer|customers|users?|people|"
         rf"shoppers)\b{CLAUSE}[,:]"
         rf"|{OPENER}")
# 3. A relative pronoun after a noun ("the customer who placed ...", ", which I have read")
# joins a clause to it and asks nothing; opening a question ("who wrote ...?") it asks.
RELATIVE = (rf"(?<=[a-z0-9_)] )(?:who|whose|whom|whoever)\b|{START}whoever\b|"
            rf"(?<=,\s)which\s+(?:I|we)\b{CLAUSE}")
# Who wants the answer: "My team lead wants to know ...", "Our TA asked us to ...".
WHO = (r"(?:(?:my|our)\s+(?:(?:team|tech)\s+lead|manager|boss|lead|teacher|instructor|tutor|ta|"
       r"professor|supervisor)|"
       # ... or a team: "Legal review needs to know ...", "Change control needs ..."
       r"(?:the\s+)?(?:legal(?:\s+review)?|change\s+control|compliance|security|finance|"
       r"procurement|ospo|release\s+manager))")
# 4. Hedges ("if any"), and the frames of a polite request ("would you mind listing ...").
HEDGES = (r"\b(?:sorry\s+if\s+(?:this\s+is\s+|it's\s+)?(?:obvious|silly|dumb|basic)"
          r"(?:\s+question)?|"
          r"if\s+any|if\s+(?:it|they)\s+(?:has|have)\s+(?:any|one)|or\s+similar|"
          r"any\s+idea|i(?:'m|\s+am)\s+not\s+(?:sure|certain)|and\s+so\s+on|"
          r"and\s+the\s+like|etc\b\.?|"
          r"(?:and\s+)?that\s+sort\s+of\s+thing|at\s+the\s+moment|for\s+now|"
          r"let's\s+see\s+if\s+you\s+can|in\s+(?:plain|simple)\s+(?:words|english|terms)|(?:per|according\s+to)\s+the\s+(?:brief|spec)|"
          r"(?:i\s+)?need\s+(?:it|this)\s+(?:fast|asap|quickly)|"
          r"asap|urgent(?:ly)?|"
          r"would\s+you\s+mind|i(?:'d|\s+would)\s+(?:like|love|want)\s+to\s+(?:know|understand)|"
          r"(?:would|will|are)\s+you\s+(?:be\s+)?able\s+to|"
          r"i(?:'d|\s+would)\s+(?:be\s+(?:grateful|glad|thankful)|appreciate\s+it)\s+if\s+you\s+"
          r"could|"
          r"(?:could|can)\s+you\s+check\s+that\s+for\s+me|"
          r"what\s+(?:i'm|we're|i\s+am|we\s+are)\s+(?:working|dealing)\s+with|"
          # who wants it: "My manager asked me to ..."
          # ... or who asked it: "the OSPO asked how many ..."
          r"(?:(?:the|my|our)\s+)?[\w-]+\s+(?:asked|wondered)(?=\s+(?:how|what|which|whether|"
          r"why|when|who)\b)|"
          rf"{WHO}\s+(?:(?:asked|wants|told|needs)\s+(?:me|us)\s+to|"
          r"(?:wants|needs|asked)(?:\s+(?:me|us))?(?:\s+to\s+(?:know|see|find\s+out|learn))?)|"
          r"if\s+you\s+(?:can|could)|(?:any|some)\s+(?:sort|kind)\s+of|"
          r"(?:together|along)\s+with|"
          r"(?:a\s+(?:simple|quick|plain)\s+)?yes\s+or\s+no\s+(?:(?:would|will)\s+do|is\s+(?:fine|"
          r"enough|ok|okay))|in\s+the\s+end|"
          r"(?:the\s+whole\s+)?code\s+base|so\s+far|bottom\s+line|"
          r"(?:paths?|names?|ids?|rules?|files?|file\s*names?)\s+only|"
          r"(?<=\bknow\s)if|(?<=\bme\s)if|(?<=\bcheck\s)if|(?<=\bsee\s)if)")  # "know if ..."
ASIDE = re.compile("|".join((FIRST_PERSON, SCENE, RELATIVE, HEDGES)), re.I)

# 5. A sentence that states rather than asks: it opens with its subject ("The customer
# insists nobody rang the bell.") or has a stating verb among its first words ("Release is
# tomorrow:"), and makes no request.
SENTENCE = re.compile(r"[^\s\-\u2013\u2014].*?(?:(?<!\bi\.e)(?<!\be\.g)(?<!\betc)[.!?;:](?=\s|$)|"
                      r"(?=\s[-\u2013\u2014]\s)|$)", re.S)  # "i.e." ends no sentence
SUBJECT = word_set("""i i'm i've i'd we we're we've we'd it it's they they're there there's
he she my our their his her its the this that these those some part according since about
around after today yesterday let's now""")
ASKING = word_set("what what's which how why when where who whose is are does do did can could")
# ... unless it opens with a verb that asks for work ("Translate X. Which ...?" asks twice).
ACTIONS = word_set("""translate write rewrite fix refactor add delete remove create generate
draft update change replace rename convert upgrade raise lower sort cancel refund book send
email compare summarise summarize implement patch edit move copy run check scan list tell give
show find make build suppose imagine assume pretend consider if""")
STATING = word_set("""is are was were has have had says said wants needs insists seems
started starts keeps kept began begins broke failed fails went looks owns uses runs mentions
complains complained reports reported came sounds swears thinks thought lists see sees get
gets""")
TOPICS = word_set("the this that these those")  # a noun phrase's first word
TOLD = word_set("got had saw found noticed heard spotted")
# A question that only points back ("What is it?", "Which files are those?"): what it asks
# is in the sentences before it, which are then no asides (and it is one).
POINTS_BACK = re.compile(r"(?:so,?\s+)?(?:what|which(?:\s+\w+)?|who)"
                         r"(?:'s|\s+(?:is|are|was|were))\s+(?:it|they|those|these|that|them|"
                         r"the\s+(?:value|number|figure|setting|answer))\s*\?", re.I)
REQUESTS = re.compile(rf"\b(?:{WHO}\s+(?:wants|needs)\s+"
                      r"(?:to\s+(?:know|see|find\s+out|learn)|the)\b|"
                      r"(?:what|which|how|why|when|where|who)(?:'s|\s+(?:is|are|was|were|do|does|"
                      r"did|should|can|could|would|will))|"
                      r"(?:i|we)(?:'d|\s+would|\s+do|\s+really)?\s+(?:want|need|like)\s+"
                      r"(?:to\s+(?:know|see|find|get|have|learn|check)|the|a|an|all|every|each|"
                      r"any)|"
                      r"(?:i|we)\s+wonder|tell|show|give|list|find|count|please|"
                      r"(?:can|could|would|will)\s+you)\b", re.I)
ASKS = re.compile(rf"\?|{REQUESTS.pattern}", re.I)
# 6. A clause of an asking sentence, cut at its commas, that states ("the customer swears
# nobody rang, so why ...?", "..., we don't care about the CLI entry"): a stating verb or a
# first-person subject, no question word, while another clause of it asks.
CLAUSE_CUT = re.compile(r"(?:[^,]|,(?!\s))+")  # "1,000" is one clause
QUESTION_WORDS = word_set("what what's which how why when where who whose whether")
FIRST = word_set("i i'm i've i'd we we're we've we'd")
# ... or what the learner is doing, said without "I'm": "writing the reply for TCK-5521 now, ..."
ACTIVITY = word_set("""writing drafting preparing working debugging reviewing building planning
studying replying answering going""")


def _inside(tokens: list[tuple[int, int]], spans: list[tuple[int, int]]) -> set[int]:
    """The indices of the tokens (start, end) that lie inside one of `spans`."""
    return {i for i, (first, last) in enumerate(tokens)
            if any(start <= first and last <= end for start, end in spans)}


def _opens_a_statement(first: str) -> bool:
    """Whether a sentence's first word opens a statement: its subject ("The ..."), a noun
    and its "is" ("Customer's on the phone"), a participle ("Poking at the browser agent -
    ...", "Writing up the reply -") or a verb that tells what happened ("Got a flaky call")."""
    return first in SUBJECT or first in TOLD or (first.endswith("'s") and first not in ASKING) \
        or (first.endswith("ing") and len(first) > 5)


def _topic(first: str) -> bool:
    """Whether a phrase's first word opens a noun phrase: "the", "this", ..., or a named
    thing's possessive ("checkout-api's client timeout: ...")."""
    return first in TOPICS or (first.endswith("'s") and bool(re.search(r"[-/\d]", first)))


def _states(sentence: str) -> bool | None:
    """Whether a sentence states rather than asks (see the module docstring); None for one
    that only opens the turn ("Quick check:")."""
    words = re.sub(OPENER, "", sentence, flags=re.I).lower().split()
    if not words:
        return None
    if sentence.rstrip().endswith(":") and _topic(sentence.split()[0].lower()) \
            and not any(w in STATING for w in words):
        return False  # a topic, not a statement: "The checkout route at the gateway: ..."
    return words[0] not in ASKING and words[0] not in ACTIONS and (
        _opens_a_statement(words[0]) or any(w in STATING for w in words[1:5])) \
        and not sentence.rstrip().endswith("?") and not ASKS.search(sentence) \
        and not any(_opens_a_question(m.group(0)) for m in CLAUSE_CUT.finditer(sentence))


def _asks(clause: str) -> bool:
    """Whether a clause asks something of its own: a question word, a request, or an
    auxiliary that opens a question longer than a tag ("..., right?", "does it?")."""
    words = clause.lower().split()
    return bool(QUESTION_WORDS & set(words)) or bool(REQUESTS.search(clause)) or (
        len(words) > 3 and words[0] in ASKING)


def _has_a_subject(words: list[str]) -> bool:
    """Whether a clause's words say something of a subject: a first-person one, or a
    stating verb that no "that / which / who" ties to a noun ("the slot that is free" is
    a noun phrase)."""
    verbs = [i for i, word in enumerate(words) if word in STATING]
    return words[0] in FIRST or bool(verbs) and (
        verbs[0] == 0 or words[verbs[0] - 1] not in ("that", "which", "who"))


def _opens_a_question(clause: str) -> bool:
    """Whether a clause after a comma opens a question of its own ("..., how long does
    ...", "..., but which ...", "..., can you count them")."""
    words = re.sub(r"^\s*(?:(?:so|but|and|then|now|ok|okay)\b,?\s*)*", "", clause,
                   flags=re.I).lower().split()
    return bool(words) and (words[0] in QUESTION_WORDS or words[0] in ASKING
                            or bool(REQUESTS.match(" ".join(words))))


def _stated_clauses(text: str, span: tuple[int, int]) -> list[tuple[int, int]]:
    """The clauses of the asking sentence at `span` that state (see 6. above)."""
    clauses = [(span[0] + m.start(), span[0] + m.end())
               for m in CLAUSE_CUT.finditer(text[span[0]:span[1]])]
    said = {clause: text[clause[0]:clause[1]].strip() for clause in clauses}
    stated = [clause for clause, words in ((c, s.lower().rstrip("?.!").split())
                                           for c, s in said.items())
              if words and not QUESTION_WORDS & set(words) and "?" not in said[clause]
              and (words[0] in ACTIVITY or _has_a_subject(words) and _states(said[clause]))]
    return stated if any(_asks(s) for c, s in said.items() if c not in stated) else []


def around(text: str, tokens: list[tuple[int, int]]) -> set[int]:
    """The indices of the `tokens` (start, end offsets in `text`) that lie in an aside."""
    spans = [m.span() for m in ASIDE.finditer(text)]
    sentences = [(m.span(), _states(m.group(0))) for m in SENTENCE.finditer(text)]
    asked = [span for span, states in sentences if states is False]
    back = [span for span in asked if POINTS_BACK.fullmatch(text[span[0]:span[1]].strip())]
    if len(asked) > len(back):  # the request is somewhere: what states is an aside
        spans += [span for span, states in sentences if states]
    if len(sentences) > len(back):  # a question that points back asks what came before
        spans += back
    for span in asked:  # ... and a clause of an asking sentence that states
        spans += _stated_clauses(text, span)
    return _inside(tokens, spans)


def questions(text: str) -> list[str]:
    """The sentences of `text` that ask, each without the words that open the turn."""
    return [re.sub(OPENER, "", m.group(0), flags=re.I).strip()
            for m in SENTENCE.finditer(text) if _states(m.group(0)) is False]
