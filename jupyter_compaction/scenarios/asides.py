"""What a task says around its question: asides a reader need not understand.

A learner seldom types the bare question. "I'm debugging the 504s: how long does the
gateway wait?", "Would you mind listing ...", "The customer insists nobody rang the bell.
Was ORD-1042 on time?": the words around the question say who asks and why, not what. A
grammar (`grammar.py`) must consume every content word of the question itself; the tokens
found here are forgiven when left over. Their entities still fill slots (the ticket in "I'm
handling TCK-5521. What do we offer?"), but the attribute must be asked outside them, so an
aside can never carry a question in ("The dispatch table in agents/router.py: who wrote
it?" is refused: "who" and "wrote" are asked, and no question reads them).

Five kinds, each a pattern over the text:
- an opening first-person clause that ends before the question ("I'm new here - ...", "I
  already checked X, so ...", "I think X is gold, can you ...");
- a clause that sets the scene: "before / while / since ... I (we)" ("... before we ship"),
  "since / because it ...", "when <subject or -ing> ..." inside a sentence (not after
  "tell me", where "when" is asked), each ending where a request starts ("Before I add a
  tool | I want every file ..."), an opening purpose or occasion ("To rule out the payment
  side, ...", "For my notes, ..."; not "For the /api/ location, ...", whose path makes it
  the question's topic), whom or what it is for ("for the weekly report", "for exercise
  2"), and the words that open a turn ("OK agent,", "Quick check:", "New hire question:");
- a relative pronoun after a noun ("the customer who placed ORD-1042");
- hedges and the frames of a polite request ("if any", "would you mind", "I'd like to
  know", "I'm not sure whether", "a simple yes or no would do");
- a sentence (or a lead-in before a dash) that states rather than asks, when another
  sentence of the task asks: it opens with its subject ("The ...", "I've ...", "Since
  ..."), a noun and its "is" ("Customer's on the phone -"), a participle ("Poking at the
  router -") or a verb that tells what happened ("Got a flaky call -"), or has a stating
  verb among its first words ("Release is tomorrow:"), does not open with a verb that asks
  for work ("Translate ...", "Suppose ..."), does not end with "?" and makes no request
  ("I want to know", "tell me", "can you"); a topic ending in a colon ("The checkout route
  at the gateway: ...") names what is asked and is no statement, and a question that only
  points back ("What is it?", "Which files are those?") asks what the statements before it
  say, so they are no asides.

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
# ... and an opening "For ..." that names a path is the question's topic ("For the general
# /api/ location, ..."), not whom it is for ("For my notes, ...")
NAMELESS = r"(?:(?!\s[-\u2013\u2014]\s)[^,.;:!?/]|\.(?=\w))*"
START = r"(?:^|(?<=[.;:!?]\s)|(?<=\s[-\u2013\u2014]\s))\s*"  # where a sentence or a clause opens
# where an opening clause ends ("I'm on exercise 3 and need to know ...")
STOP = (r"(?:[.;:!?]\s|\s[-\u2013\u2014]\s|,\s+so\s|"
        r",?\s+and\s+(?:I\s+)?(?:need|want|have)\s+to\s+(?:know|find\s+out|check|see)\s)(?=\S)")

# A word said before speaking: "OK", "Honestly", "Hmm".
INTERJECTION = (r"ok(?:ay)?|so|now|right|alright|well|hmm|honestly|frankly|actually|sorry|um|uh|"
                r"hi|hey|hello|ugh|argh|phew|oof|yo")
# A word or two that opens a turn and asks nothing: "OK agent,", "So,", "Quick check:",
# "Next step:", "Let's see...", "Hi!".
OPENER = (rf"(?:^|(?<=[.;:!?]\s))(?:(?:{INTERJECTION})(?:,?\s+(?:{INTERJECTION}))*|"
          r"first(?:ly)?|next(?:\s+(?:step|question))?|then|also|finally|find\s+out|"
          r"thanks|thank\s+you|cheers|great|"
          r"pop\s+quiz(?:\s+for\s+you)?|quiz\s+time|(?:a\s+)?question\s+for\s+you|"
          r"(?:the\s+)?last\s+one(?:\s+for\s+(?:today|now|the\s+day))?|one\s+more(?:\s+thing)?|"
          r"(?:quick|sanity)\s+(?:check|question|one)|let's\s+see(?:\s+if\s+you\s+can)?|"
          # who asks: "New on the team here:", "New hire question:"
          r"(?:i'm\s+)?new\s+(?:here|on\s+the\s+team|to\s+the\s+team)(?:\s+here)?|"
          r"new\s+(?:hire|joiner|starter)(?:\s+(?:here|question))?|"
          r"(?:have\s+you\s+)?got\s+a\s+(?:sec(?:ond)?|minute|moment)(?=\?))"
          r"(?:\s+agent)?(?:(?:[!,:.?]|\.\.\.|\u2026)+|\s[-\u2013\u2014])(?=\s|$)")

# 1. An opening first-person clause ("I'm debugging the 504s: ...", "I already checked X,
# so ...").
FIRST_PERSON = (rf"{START}(?:(?:{INTERJECTION}),?\s+)?"
                r"(?:I'm|I\s+am|I've|I\s+have|we're|we\s+are|we've|we\s+have|"
                rf"I\s+(?:already|just)\s+\w+)\b.*?{STOP}"
                # ... or what I believe, up to the comma before the question ("I think X is
                # gold, can you check their tier?")
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
         r"|\bfor\s+(?:the|a|an|my|our)\s+(?:[\w-]+\s+)?(?:report|review|team|notes|summary|"
         r"slides|exercise|meeting|standup|lab|class|vp|boss|manager|postmortem|audit\s+file|"
         r"leadership|management|execs|stakeholders|"
         r"page|dashboard)\b"
         r"|\bbefore\s+(?:the\s+|our\s+)?(?:code\s+review|standup|meeting|demo|lecture|class)\b"
         r"|\bfor\s+(?:leadership|management|(?:the\s+)?execs|stakeholders)\b"
         # ... or which exercise: "for exercise 2", "for question 3b"
         r"|\bfor\s+(?:the\s+)?(?:exercise|question|task|step|part|worksheet|homework|assignment|"
         r"quiz)\s+\d+[a-z]?\b"
         rf"|{START}(?:to\s+\w+|in\s+(?:my|our)|as\s+(?:the|a|an)|"
         rf"(?:before|after|during|ahead\s+of)(?:\s+the)?)\b{CLAUSE}[,:]"
         rf"|{START}for\s+(?:my|our|the|a|an)\b{NAMELESS}[,:]"
         # ... and who acts: "When someone places an order, ..."
         rf"|{START}when(?:ever)?\s+(?:someone|somebody|a\s+customer|customers|users?|people|"
         rf"shoppers)\b{CLAUSE}[,:]"
         rf"|{OPENER}")
# 3. A relative pronoun after a noun ("the customer who placed ...", ", which I have read")
# joins a clause to it and asks nothing; opening a question ("who wrote ...?") it asks.
RELATIVE = (rf"(?<=[a-z0-9_)] )(?:who|whose|whom|whoever)\b|{START}whoever\b|"
            rf"(?<=,\s)which\s+(?:I|we)\b{CLAUSE}")
# 4. Hedges ("if any"), and the frames of a polite request ("would you mind listing ...").
HEDGES = (r"\b(?:if\s+any|any\s+idea|i(?:'m|\s+am)\s+not\s+(?:sure|certain)|and\s+so\s+on|"
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
          r"(?:my|our)\s+(?:manager|boss|lead|teacher|instructor|tutor|ta|professor)\s+"
          r"(?:asked|wants|told)\s+(?:me|us)\s+to|"
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
complains complained reports reported came sounds swears""")
TOPICS = word_set("the this that these those")  # a noun phrase's first word
TOLD = word_set("got had saw found noticed heard spotted")
# A question that only points back ("What is it?", "Which files are those?"): what it asks
# is in the sentences before it, which are then no asides.
POINTS_BACK = re.compile(r"(?:so,?\s+)?(?:what|which(?:\s+\w+)?|who)\s+(?:is|are|was|were)\s+"
                         r"(?:it|they|those|these|that|them)\s*\?", re.I)
ASKS = re.compile(r"\?|\b(?:(?:i|we)(?:'d|\s+would|\s+do|\s+really)?\s+(?:want|need|like)\s+"
                  r"(?:to\s+(?:know|see|find|get|have|learn|check)|the|a|an|all|every|each|any)|"
                  r"(?:i|we)\s+wonder|tell|show|give|list|find|please|"
                  r"(?:can|could|would|will)\s+you)\b", re.I)


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
        and not sentence.rstrip().endswith("?") and not ASKS.search(sentence)


def around(text: str, tokens: list[tuple[int, int]]) -> set[int]:
    """The indices of the `tokens` (start, end offsets in `text`) that lie in an aside."""
    spans = [m.span() for m in ASIDE.finditer(text)]
    sentences = [(m.span(), _states(m.group(0))) for m in SENTENCE.finditer(text)]
    asked = [text[start:end].strip() for (start, end), states in sentences if states is False]
    if asked and not all(POINTS_BACK.fullmatch(a) for a in asked):  # the request is somewhere
        spans += [span for span, states in sentences if states]
    return _inside(tokens, spans)


def questions(text: str) -> list[str]:
    """The sentences of `text` that ask, each without the words that open the turn."""
    return [re.sub(OPENER, "", m.group(0), flags=re.I).strip()
            for m in SENTENCE.finditer(text) if _states(m.group(0)) is False]
