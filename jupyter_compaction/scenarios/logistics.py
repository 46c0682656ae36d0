"""Scenario "logistics": work a late-delivery ticket from support, order and carrier records.

The customer on ticket TCK-5521 wants a full refund for order ORD-1042. The records
(bulky JSON, as real back-office APIs return it) show that the carrier did try to
deliver on the promised date and failed because the building could not be entered, so
the policies say: no refund, one free redelivery. The identifiers (ORD-1042, VD-88317,
D-17, the dates) are what a summary must keep; drop one and the agent has to look it up
again, or writes a resolution without it.
"""

from __future__ import annotations

from collections.abc import Callable

from jupyter_compaction.scenarios.base import Fact, Known, Scenario, Step, read_record
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
    Step("read ticket {ticket}", "get_ticket", {"ticket_id": "{ticket}"}, (
        Fact("order", r'"order_id": "(ORD-\d+)"'),
        Fact("customer", r'"customer_id": "(CUS-\d+)"'),
        Fact("request", r'"requested_resolution": "(\w+)"'))),
    Step("look up order {order}", "lookup_order", {"order_id": "{order}"}, (
        Fact("waybill", r'"waybill": "(VD-\d+)"'),
        Fact("promised", r'"promised_delivery_date": "([\d-]+)"'))),
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
        Fact("address", r'"address_id": "(ADR-\d+)"'),)),
)


def compose(f: Known) -> str:
    """The resolution note, every value taken from the facts."""
    return (
        f"Resolution for ticket {f['ticket']} (order {f['order']}, waybill {f['waybill']}): "
        f"{f['refund']}; {f['redelivery']}. The customer asked for {f['request']}. The carrier "
        f"attempted delivery on {f['attempt']} (promised date {f['promised']}) and the attempt "
        f"failed with {f['reason']}, so policy {f['refund-clause']} applies: {f['refund']}. "
        f"The parcel is held at depot {f['depot']} until {f['hold']}; policy "
        f"{f['redelivery-clause']} allows {f['redelivery']} before then. The first free slot "
        f"is {f['slot']}. Before booking, ask customer {f['customer']} for the building "
        f"access code and add it to saved address {f['address']}."
    )


SCENARIO = Scenario(
    name="logistics",
    title="Resolve a late-delivery support ticket",
    task=(
        "Work support ticket TCK-5521: the customer says their order is late and wants their "
        "money back. Check the order, the carrier tracking and our policies, decide what we "
        "offer, and write the resolution with the order and waybill numbers, the policy "
        "clauses that apply and the dates."
    ),
    given=(Fact("ticket", r"\b(TCK-\d+)\b"),),
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
)
