"""Scenario "logistics": work a late-delivery ticket from support, order and carrier records.

The customer on ticket TCK-5521 wants a full refund for order ORD-1042. The records
(bulky JSON, as real back-office APIs return it) show that the carrier did try to
deliver on the promised date and failed because the building could not be entered, so
the policies say: no refund, one free redelivery. The identifiers (ORD-1042, VD-88317,
D-17, the dates) are what a summary must keep; drop one and the agent has to look it up
again, or writes a resolution without it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path

from jupyter_compaction.scenarios.base import (
    MISSING,
    Fact,
    Known,
    Question,
    Scenario,
    Step,
    missing,
    operators,
    or_missing,
    read_record,
    template,
)
from jupyter_compaction.scenarios.grammar import Grammar, Slot
from jupyter_compaction.scenarios.truth import find
from jupyter_compaction.tools import ToolError
from jupyter_compaction.vocab import UNKNOWN
from jupyter_compaction.workspace import Workspace

# Carrier reason codes for a failed attempt that lie on the recipient's side, and what to
# ask the customer before booking the redelivery in each case (the rules' facts).
ADVICE = {
    "NO_ACCESS": "ask customer {customer} for the building access code and add it to saved "
                 "address {address}",
    "NOBODY_HOME": "ask customer {customer} for a slot when someone can receive the parcel",
    "INCOMPLETE_ADDRESS": "ask customer {customer} to complete saved address {address}",
}
MISSING_RECORD = r"\bNo (\w+) '([A-Z]+-\d+)' on record"  # read_record's error: "ticket TCK-1"


def make_tools(ws: Workspace) -> list[Callable[..., str]]:
    def get_ticket(ticket_id: str) -> str:
        """Fetch a support ticket (messages, requester, requested resolution) as JSON."""
        return read_record(ws, "tickets", ticket_id, kind="ticket", example="TCK-5521")

    def lookup_order(order_id: str) -> str:
        """Fetch an order (lines, totals, payment, shipping and waybill) as JSON."""
        return read_record(ws, "orders", order_id, kind="order", example="ORD-1042")

    def track_waybill(waybill_id: str) -> str:
        """Fetch the carrier's tracking record for a waybill: status, events, attempts."""
        return read_record(ws, "waybills", waybill_id, kind="waybill", example="VD-88317")

    def get_depot(depot_id: str) -> str:
        """Fetch a carrier depot: opening hours, hold rules and redelivery calendar."""
        return read_record(ws, "depots", depot_id, kind="depot", example="D-17")

    def lookup_customer(customer_id: str) -> str:
        """Fetch a customer account (addresses, loyalty, order and support history)."""
        return read_record(ws, "customers", customer_id, kind="customer", example="CUS-20931")

    def get_policy(topic: str) -> str:
        """Fetch a customer-service policy by topic, e.g. 'late-delivery' or 'redelivery'."""
        topics = sorted(
            p.removeprefix("policies/").removesuffix(".json") for p in ws.list_files("policies")
        )
        if topic not in topics:
            raise ToolError(f"No policy on {topic!r}; topics: {', '.join(topics)}.")
        return ws.read_text(f"policies/{topic}.json")

    return [get_ticket, lookup_order, track_waybill, get_depot, lookup_customer, get_policy]


STEPS = (
    Step("read ticket {ticket}", "get_ticket", {"ticket_id": "{ticket}"}, (
        missing("ticket", MISSING_RECORD),
        Fact("order", r'"order_id": "(ORD-\d+)"'),
        Fact("customer", r'"customer_id": "(CUS-\d+)"'),
        Fact("request", r'"requested_resolution": "(\w+)"'))),
    Step("look up order {order}", "lookup_order", {"order_id": "{order}"}, (
        missing("order", MISSING_RECORD),
        Fact("waybill", r'"waybill": "(VD-\d+)"'),
        Fact("promised", r'"promised_delivery_date": "([\d-]+)"'),
        Fact("customer", r'"customer_id": "(CUS-\d+)"'))),
    Step("track waybill {waybill}", "track_waybill", {"waybill_id": "{waybill}"}, (
        Fact("attempt", r'"at": "([\d-]+)T[^"]*",\s*"code": "DA"'),
        Fact("reason", r'"reason_code": "(\w+)"'),
        Fact("depot", r'"depot": "(D-\d+)"'),
        Fact("hold", r'"hold_until": "([\d-]+)"'))),
    Step("read the late-delivery policy", "get_policy", {"topic": "late-delivery"}, (
        Fact("refund-clause", r'"id": "(LD-[\d.]+)",\s*"rule": "[^"]*attempt failed for a '
             r"reason on the recipient's side"),
        Fact("refund", r'"rule": "(\w+ refund) when the carrier attempted', decision=True))),
    Step("read the redelivery policy", "get_policy", {"topic": "redelivery"}, (
        Fact("redelivery-clause", r'"id": "(RD-[\d.]+)",\s*"rule": "One free redelivery'),
        Fact("redelivery", r'"rule": "(One free redelivery|\w+ redelivery) per order',
             decision=True))),
    Step("check depot {depot}", "get_depot", {"depot_id": "{depot}"}, (
        Fact("slot", r'"date": "([\d-]+)",\s*"slot": "([\d:-]+)",\s*"capacity": \d+,'
             r'\s*"booked": \d+,\s*"free": [1-9]'),)),
    Step("look up customer {customer}", "lookup_customer", {"customer_id": "{customer}"}, (
        missing("customer", MISSING_RECORD),
        Fact("address", r'"address_id": "(ADR-\d+)"'),
        Fact("tier", r'"loyalty": \{[^}]*"tier": "(\w+)"'))),
)


def on_time(f: Known) -> bool | None:
    """Rule: the attempt counts when it was made by the promised date (ISO dates)."""
    if UNKNOWN in (f["attempt"], f["promised"]):
        return None
    return f["attempt"] <= f["promised"]


def refund_decision(f: Known) -> str:
    """Rule LD: no refund when an on-time attempt failed on the recipient's side; a late
    or carrier-side failure is refunded under the late-delivery policy."""
    timely = on_time(f)
    if timely is None or f["reason"] == UNKNOWN:
        return UNKNOWN
    if timely and f["reason"] in ADVICE:
        return f["refund"]
    return "refund under the late-delivery policy (the order counts as late)"


def advice(f: Known) -> str:
    """Rule: what to ask the customer before booking, from the attempt's reason code."""
    template = ADVICE.get(f["reason"])
    return template.format_map(f) if template else UNKNOWN


def failure(f: Known) -> str:
    """Why the delivery failed, and whether the order was late."""
    timely = on_time(f)
    verdict = UNKNOWN if timely is None else (
        "by the promised date, so the order was not late" if timely else
        "after the promised date, so the order was late")
    ops = operators(f)
    said = timely if "ontime" in ops else timely is False  # the yes/no to what was asked
    late = "" if timely is None or "yesno" not in ops else "Yes. " if said else "No. "
    return (f"{late}Order {f['order']} (waybill {f['waybill']}): the carrier attempted "
            f"delivery on {f['attempt']} (promised date {f['promised']}) and the attempt "
            f"failed with {f['reason']}: {verdict}.")


def clauses(f: Known) -> str:
    """The policy clauses that apply to this failed delivery."""
    decision = refund_decision(f)
    refund_clause = f["refund-clause"] if decision == f["refund"] != UNKNOWN else UNKNOWN
    return (f"Policies that apply to order {f['order']}: {refund_clause} ({decision}) and "
            f"{f['redelivery-clause']} ({f['redelivery']}).")


first_slot = template("The parcel of order {order} is held at depot {depot} until {hold}; the "
                      "first free redelivery slot is {slot}.")
loyalty = template("Customer {customer} is in loyalty tier {tier}.")


def compose(f: Known) -> str:
    """The resolution note: values from the facts, conclusions from the rules."""
    decision = refund_decision(f)
    ticket = f"ticket {f['ticket']} (order {f['order']}, " if "ticket" in f else \
        f"order {f['order']} ("
    asked = f" The customer asked for {f['request']}." if "ticket" in f else ""
    clause = (UNKNOWN if decision == UNKNOWN else f["refund-clause"] if decision == f["refund"]
              else "the late-delivery policy")
    return (
        f"Resolution for {ticket}waybill {f['waybill']}): {decision}; {f['redelivery']}."
        f"{asked} The carrier attempted delivery on {f['attempt']} (promised date "
        f"{f['promised']}) and the attempt failed with {f['reason']}, so policy {clause} "
        f"applies: {decision}. The parcel is held at depot {f['depot']} until {f['hold']}; "
        f"policy {f['redelivery-clause']} allows {f['redelivery']} before then. The first free "
        f"slot is {f['slot']}. Before booking, {advice(f)}."
    )


TICKET, ORDER, CUSTOMER = (Slot(name, rf"({prefix}-\d+)", optional=True, upper=True)
                           for name, prefix in (("ticket", "TCK"), ("order", "ORD"),
                                                ("customer", "CUS")))
RECORD_WORDS = (r"(?:support\s+)?tickets?|support|cases?|(?:unhappy|upset|angry|frustrated)|"
                r"orders?|customers?|customer's|parcels?|"
                r"package|"
                # what was ordered: "the late desk delivery", "get their desk"
                r"(?:late-)?desk|(?:standing\s+)?desk\s+frame|items?|goods|drop-?off|shipments?|(?:never\s+)?show(?:ed)?\s+up|"
                r"deliver(?:y|ies|ed|ing)?|late-delivery|missed|complaint|behind|"
                # who the customer is: "the person who raised TCK-5521", "the buyer of ..."
                r"requester|person|buyer|purchaser|client|placed|(?<=\bwho\s)made|raised|opened|filed|complain\w*|"
                r"driver(?:'s)?|courier's",)


def _asks(heads: str, words: str = "", customer: bool = False,
          operators: tuple[str, ...] = ()) -> Grammar:
    """A question about the records a task names (a ticket or an order, or a customer)."""
    slots = (TICKET, ORDER, CUSTOMER) if customer else (TICKET, ORDER)
    return Grammar((heads,), (*RECORD_WORDS, words) if words else RECORD_WORDS, slots,
                   operators, any_slot=True)


QUESTIONS = (
    Question("resolution", "the resolution of a late-delivery ticket: what we offer and why",
             _asks(r"resol\w*|decid\w*|offer\w*|owed?|entitled|compensat\w*|work(?:\s+on)?|"
                   r"settle\w*|remed(?:y|ies)|sort\s+(?:things|it|this|them)\s+out|"
                   # "handle" as what we do with the ticket, not "which carrier handles ..."
                   r"(?:^|(?<=\bwe\s)|(?<=\bto\s)|(?<=\bbe\s)|(?<=\byou\s)|(?<=please\s))"
                   r"handl\w*|"
                   r"(?:right|best|fair)\s+(?:outcome|way)|"
                   r"what\s+(?:should|can)\s+we\s+do|what\s+to\s+do|propos\w*|put\s+on\s+the\s+table|"
                   r"we(?:'ll|\s+will|\s+should)\s+do\s+for\s+(?:them|her|him|the\s+customer)|"
                   r"clos(?:e|ing)(?:\s+(?:it|this|that|the\s+ticket))?\s+(?:out|off)|"
                   r"what\s+(?:\w+\s+)?(?:should|can|could|do)\s+we\s+(?:end\s+up\s+|actually\s+|really\s+)?"
                   r"(?:giv(?:e|ing)|offer(?:ing)?)|"
                   r"what(?:'s|\s+is)\s+our\s+(?:answer|reply|response)|"
                   r"what(?:'s|\s+is)\s+the\s+(?:call|verdict|decision)",
                   r"write|the\s+outcome|outcome|how\s+(?:should|do|can)(?:\s+(?:we|I))?|are\s+we|"
                   r"(?:to|a|any)\s+refund|refund\s+or(?:\s+not)?|redelivery|wants?\s+(?:a\s+)?"
                   r"refund|(?:asking\s+for\s+)?(?:(?:their|her|his)\s+)?money\s+back|over|refund\s+request|refund\s+or\s+not|instead|why|vouchers?|goodwill|"
                   r"end\s+up|decision|action(?=\s+items?\b)|next\s+steps?|another\s+delivery|"
                   r"something\s+else|another|clos(?:e|ing)(?:\s+(?:out|off))?|final|put(?:\s+to)?|"
                   r"(?:goodwill\s+)?credit|(?:didn't|did\s+not|never)\s+(?:arrive|come|show\s+up)|"
                   r"is\s+late|late|find\s+out|says|wants|carrier|tracking|waybill|numbers|"
                   r"polic(?:y|ies)|clauses|apply|dates|(?:on\s+what\s+)?grounds|basis|justif\w*|"
                   r"write\s+(?:it\s+)?up|draft\w*|(?:our\s+)?(?:answer|reply)|reasoning|reasons?|rationale|refund|how\s+(?:we|to)"),
             ("refund-clause", "redelivery-clause", "refund", "redelivery", "attempt",
              "promised", "reason", "depot", "hold", "slot", "customer", "address", "request",
              "order", "waybill"),
             or_missing(compose), example="Work support ticket TCK-5521 and decide what we "
                                          "offer the customer."),
    Question("clauses", "which policy clauses apply to an order's failed delivery",
             _asks(r"polic(?:y|ies)|clauses?|rule[\s-]?books?|rules?|paragraphs?|sections?|provisions?|terms|t&cs?|parts?(?=\s+of\b)|"
                   r"(?:numbered\s+)?points(?=\s+(?:in|of)\b)",
                   r"appl(?:y|ies|ying)|applicable|relevant|cover(?:s|ing)?|govern(?:s|ing)?|"
                   r"failed|late|refund|redelivery|cite|quote(?:\s+back)?|ids?|numbers?|"
                   r"(?:what\s+)?happen(?:ed)?|(?:didn't|did\s+not|never)\s+(?:happen|work(?:\s+out)?)|files|answer(?:ing)?|reply(?:ing)?|respond\w*|exact|"
                   r"matter(?:s)?|"
                   r"rel(?:y|ies|ying)\s+on|kicks?\s+in|case|situation|documents?|docs?|"
                   r"bears?\s+on|pertain\w*|(?:come|comes|coming)\s+into\s+play|in\s+play|at\s+play|"
                   r"written|company|what\s+went\s+wrong|rule[\s-]?books?|botched|messed[\s-]up|"
                   r"drop(?:-?off)?|invoked?|compensation|failure|guidelines?|falls?(?:\s+under)?"),
             ("refund-clause", "redelivery-clause", "refund", "redelivery", "attempt",
              "promised", "reason"),
             or_missing(clauses), example="Which policy clauses apply to order ORD-1042?"),
    Question("slot", "the first free redelivery slot",
             _asks(r"slots?|windows?|appointments?|new\s+delivery|second[\s-]delivery|re-?deliver(?:y|ies|ed|ing)?|deliver(?:ed)?\s+again|"
                   r"(?:send(?:ing)?|tak(?:e|en|ing)|bring(?:ing)?)\s+(?:\S+\s+){0,2}?(?:out\s+)?"
                   r"(?:to\s+(?:the\s+customer|her|him|them)\s+)?(?:again|a\s+second\s+time)|"
                   r"(?:brought|bring)\s+(?:it\s+|them\s+|the\s+\w+\s+)?(?:round|back)\s+again|"
                   r"(?:next|first|earliest|soonest)\s+(?:open\s+|free\s+)?(?:chance|opportunity|opening|time)|"
                   # "taken back out to the customer", "when can the courier come back"
                   r"(?:send|sending|sent|take|taking|taken|brought)\s+(?:a\s+driver\s+|"
                   r"the\s+(?:courier|driver|parcel|package)\s+|someone\s+|it\s+|[a-z]{3}-\d+\s+)?"
                   r"back(?:\s+out)?|(?:come|comes|coming)\s+back|"
                   r"round\s+again|back\s+out\s+to|drop(?:ping|s)?\s+(?:it\s+|the\s+\w+\s+)?off\s+again|(?:another|a\s+second|second)\s+(?:delivery\s+)?(?:attempt|try|go)|"
                   r"a\s+second\s+time",
                   r"when|dates?|earliest|soonest|how\s+soon|first|next|free|available|open|book|"
                   r"schedule|be|on\s+which|could|deliver|bring|carrier|courier|offer|again|"
                   r"depot|still|has|with|space|spare|capacity|room|left|places?|openings?|bookable|"
                   r"(?:at\s+)?no\s+(?:extra\s+)?(?:charge|cost)|free\s+of\s+charge|tak(?:e|ing)|polic(?:y|ies)|get|time|calendar|places|"
                   r"days?|brought|round|try|trying|send|sending|van|driver|truck|reserved?|"
                   # "If we rebook ORD-1042, what is the soonest slot?" rebooks the redelivery
                   r"(?:if\s+(?:we|I)\s+)?(?:re-?book\w*|reschedul\w*)|if\s+(?:we|I)\s+(?:book|schedul)\w*"),
             ("slot", "depot", "hold", "order"), or_missing(first_slot),
             example="When is the first free redelivery slot for order ORD-1042?"),
    Question("failure", "why the delivery failed, and whether the order was late",
             _asks(r"why|what\s+(?:actually\s+|really\s+)?went\s+wrong|what\s+happened|what\s+(?:actually\s+|really\s+)?(?:made|stopped|kept|prevented)|explain\w*|reason|"
                   r"root\s+cause|caus\w*|fail(?:ed|ure)?|unsuccessful|late|(?:not|never|didn't)\s+arrived?|"
                   r"(?:not|never|wasn't|weren't|isn't)\s+(?:been\s+)?delivered|"
                   # "delivered on time", "the delivery attempt for ORD-1042 on time"
                   r"(?:delivered|arrived?|came|delivery|attempt)"
                   r"(?=(?:\s+\S+){0,3}?\s+(?:(?:on|in)\s+time|by\s+the\s+(?:promised\s+)?date))",
                   r"arriv\w*|not|(?:was|were|is|has|had|did|could|can)n't|find\s+out|courier|"
                   r"carrier(?:\s+side)?|side|attempts?|the\s+attempt|hand(?:s|ed|ing)?(?:\s+over)?|over|at\s+checkout|able(?:\s+to)?|work|reach|events|root\s+cause|"
                   r"home(?:\s+all\s+day)?|track\w*|doorstep|ma(?:ke|de)\s+it|(?:the\s+)?date\s+we\s+promised|"
                   r"promised(?:_delivery_date|\s+(?:delivery\s+)?date)?|turn(?:ed|s)?\s+up|"
                   r"drop(?:[\s-]?off)?|(?:says\s+)?exception|waybill|manag(?:e|ed)\s+to|happened|never|"
                   r"(?:go|goes|went)\s+through|(?:go|goes|going)\s+wrong",
                   operators=("ontime", "yesno")),
             ("attempt", "promised", "reason", "order", "waybill"), or_missing(failure),
             example="Why did the delivery of order ORD-1042 fail?"),
    Question("tier", "the customer's loyalty tier",
             _asks(r"loyalty(?:\.tier)?|tiers?|rungs?|bands?|(?:status\s+)?rank(?:ing)?|rank(?=\s+(?:in|on|within)\b)|(?:rewards?|loyalty|membership)\s+status|membership|programme|program|(?:status\s+)?level|gold|"
                   r"(?:northwind\s+)?circle\s+status|"
                   r"silver|"
                   r"bronze",
                   r"level|holds?|look\s+up|behind|status|belongs?(?:\s+to)?|rewards?|where|stands?|"
                   r"ladder|"
                   r"(?:northwind\s+)?circle|club|scheme|ranks?|ranking|sits?(?:\s+at)?|records?|reached|"
                   r"repeat\s+(?:shoppers|customers|buyers)|how\s+high(?:\s+up)?",
                   customer=True),
             ("tier", "customer"), or_missing(loyalty),
             example="What loyalty tier is the customer of ticket TCK-5521 in?"),
)


def _record(root: Path, folder: str, key: object) -> dict | None:
    path = root / folder / f"{key}.json"
    return json.loads(path.read_text()) if isinstance(key, str) and path.is_file() else None


def _clause(root: Path, says: str) -> tuple[str, str] | None:
    """(id, what it grants) of the policy clause, in any policy file, whose rule says
    `says`; what it grants is the rule's text before those words."""
    for path in sorted((root / "policies").glob("*.json")):
        for clause in json.loads(path.read_text()).get("clauses", []):
            if says in clause.get("rule", ""):
                return clause["id"], clause["rule"].split(says, 1)[0]
    return None


def _missing_records(root: Path, slots: Mapping[str, str]) -> dict[str, str]:
    """"missing-order" = "order ORD-7788" for each record the task names that is not here."""
    return {f"{MISSING}{kind}": f"{kind} {slots[kind]}" for kind in ("ticket", "order", "customer")
            if slots.get(kind) and _record(root, f"{kind}s", slots[kind]) is None}


def truth(root: Path, slots: Mapping[str, str]) -> dict[str, str]:
    """The case's facts, read from the JSON records by key: ticket, order, waybill (its
    failed-attempt event), depot calendar, customer, and the policy clauses by content."""
    facts: dict[str, object] = dict(slots) | _missing_records(root, slots)
    if ticket := _record(root, "tickets", slots.get("ticket")):
        facts |= {"order": facts.get("order") or find(ticket, "order_id"),
                  "customer": find(ticket, "customer_id"),
                  "request": find(ticket, "requested_resolution")}
    if order := _record(root, "orders", facts.get("order")):
        facts.setdefault("customer", find(order, "customer_id"))
        facts |= {"waybill": find(order, "waybill"),
                  "promised": find(order, "promised_delivery_date")}
    if waybill := _record(root, "waybills", facts.get("waybill")):
        attempt = next((e for e in find(waybill, "events") or [] if e.get("code") == "DA"), {})
        facts |= {"attempt": attempt.get("at", "").split("T")[0] or None,
                  "reason": attempt.get("reason_code"), "depot": find(waybill, "depot"),
                  "hold": find(waybill, "hold_until")}
    if refund := _clause(root, " when the carrier attempted delivery by the promised date"):
        facts["refund-clause"], facts["refund"] = refund
    if redelivery := _clause(root, " per order when the first attempt failed"):
        facts["redelivery-clause"], facts["redelivery"] = redelivery
    if depot := _record(root, "depots", facts.get("depot")):
        free = [s for s in depot.get("redelivery_calendar", []) if s.get("free", 0) > 0]
        facts["slot"] = f"{free[0]['date']} {free[0]['slot']}" if free else None
    if customer := _record(root, "customers", facts.get("customer")):
        addresses = customer.get("addresses") or [{}]
        facts |= {"address": addresses[0].get("address_id"),
                  "tier": (customer.get("loyalty") or {}).get("tier")}
    return {k: str(v) for k, v in facts.items() if v is not None}


SCENARIO = Scenario(
    name="logistics",
    title="Resolve a late-delivery support ticket",
    task=(
        "Work support ticket TCK-5521: the customer says their order is late and wants their "
        "money back. Check the order, the carrier tracking and our policies, decide what we "
        "offer, and write the resolution with the order and waybill numbers, the policy "
        "clauses that apply and the dates."
    ),
    given=(),
    steps=STEPS,
    must_keep=(
        "TCK-5521",
        "ORD-1042",
        "VD-88317",
        "CUS-20931",
        "No refund",
        "free redelivery",
        "2024-03-12",
        "2024-03-22",
        "2024-03-18",
        "D-17",
        "LD-2.3",
        "RD-1.1",
    ),
    compose=compose,
    make_tools=make_tools,
    questions=QUESTIONS,
    read_truth=truth,
)
