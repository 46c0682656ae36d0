"""Scenario "logistics": work a late-delivery ticket from support, order and carrier records.

The customer on ticket TCK-5521 wants a full refund for order ORD-1042. The records
(bulky JSON, as real back-office APIs return it) show that the carrier did try to
deliver on the promised date and failed because the building could not be entered, so
the policies say: no refund, one free redelivery. The identifiers (ORD-1042, VD-88317,
D-17, the dates) are what a summary must keep; drop one and the agent has to look it up
again, or writes a resolution without it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from jupyter_compaction.scenarios.base import Scenario, Step, have, read_record
from jupyter_compaction.tools import ToolError
from jupyter_compaction.workspace import Workspace


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
    Step(
        "ticket",
        "read ticket TCK-5521",
        "get_ticket",
        {"ticket_id": "TCK-5521"},
        "Ticket TCK-5521 (2024-03-15): customer CUS-20931 asks for a full_refund of order "
        "ORD-1042, which was promised by 12 March",
        ("full_refund",),
    ),
    Step(
        "order",
        "look up order ORD-1042",
        "lookup_order",
        {"order_id": "ORD-1042"},
        "Order ORD-1042 (214.90 EUR, 2 parcels) ships on waybill VD-88317, "
        "promised_delivery_date 2024-03-12",
        ("214.90", "VD-88317"),
    ),
    Step(
        "waybill",
        "track waybill VD-88317",
        "track_waybill",
        {"waybill_id": "VD-88317"},
        "Waybill VD-88317: the delivery attempt on 2024-03-12 failed with NO_ACCESS (gate "
        "locked, GPS match, photo); the parcel is held at depot D-17 until 2024-03-22",
        ("NO_ACCESS",),
    ),
    Step(
        "policy-late",
        "read the late-delivery policy",
        "get_policy",
        {"topic": "late-delivery"},
        "Decision: no refund, by policy LD-2.3 (no refund when the carrier attempted delivery "
        "by the promised date and it failed on the recipient's side, e.g. no access)",
        ("LD-2.3",),
    ),
    Step(
        "policy-redelivery",
        "read the redelivery policy",
        "get_policy",
        {"topic": "redelivery"},
        "Decision: offer a free redelivery, by policy RD-1.1 (one free redelivery while the "
        "parcel is held at the depot; RD-1.3: confirm the access code before booking)",
        ("RD-1.1",),
    ),
    Step(
        "depot",
        "check depot D-17",
        "get_depot",
        {"depot_id": "D-17"},
        "Depot D-17 (Relais Express Lyon-Gerland): first free redelivery slot 2024-03-18 "
        "08:00-13:00",
        ("2024-03-18",),
    ),
    Step(
        "customer",
        "look up customer CUS-20931",
        "lookup_customer",
        {"customer_id": "CUS-20931"},
        "Customer CUS-20931 (gold, 0 refunds in 12 months): saved address ADR-77120, "
        "12 Rue des Tanneurs, has no access code",
        ("12 Rue des Tanneurs",),
    ),
)


def compose(facts: Mapping[str, str]) -> str:
    """The resolution note; each clause needs the findings that justify it."""
    no_refund = have(facts, "order", "waybill", "policy-late")
    redelivery = have(facts, "waybill", "policy-redelivery")
    refs = ["order ORD-1042"] if have(facts, "ticket") or have(facts, "order") else []
    refs += ["waybill VD-88317"] if have(facts, "order") else []
    decision = " and ".join(
        text for text, ok in (("no refund", no_refund), ("free redelivery", redelivery)) if ok
    )
    about = f" ({', '.join(refs)})" if refs else ""
    out = [f"Resolution for ticket TCK-5521{about}: {decision or 'no decision yet'}."]
    if have(facts, "ticket"):
        out.append("The customer asked for a full refund.")
    if no_refund:
        out.append(
            "The carrier attempted delivery on 2024-03-12, the promised date, and the "
            "attempt failed with NO_ACCESS, so policy LD-2.3 rules out a refund."
        )
    else:
        out.append(
            "Refund: not decided; the attempt, the promised date or the policy is still unchecked."
        )
    if redelivery:
        out.append(
            "The parcel is held at depot D-17 until 2024-03-22, and policy RD-1.1 "
            "allows one free redelivery before then."
        )
        if have(facts, "depot"):
            out.append("The first free slot is 2024-03-18 08:00-13:00.")
    else:
        out.append("Redelivery: not decided; the hold or the policy is still unchecked.")
    if have(facts, "customer"):
        out.append(
            "Before booking, ask customer CUS-20931 for the building access code and "
            "add it to saved address ADR-77120."
        )
    return " ".join(out)


SCENARIO = Scenario(
    name="logistics",
    title="Resolve a late-delivery support ticket",
    task=(
        "Work support ticket TCK-5521: the customer says their order is late and wants their "
        "money back. Check the order, the carrier tracking and our policies, decide what we "
        "offer, and write the resolution with the order and waybill numbers, the policy "
        "clauses that apply and the dates."
    ),
    steps=STEPS,
    must_keep=(
        "TCK-5521",
        "ORD-1042",
        "VD-88317",
        "CUS-20931",
        "no refund",
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
)
