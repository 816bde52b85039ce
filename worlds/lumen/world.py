"""Lumen Supply, an online electronics shop: customers, their orders, a frozen calendar, an order
service and a payment service whose faults a ticket schedules, and the payment service's own
record of what was paid. Lessons 4, 5 and 6 are set here.

The tools answer any input truthfully: a live model may call them with anything. Every failure
is raised as a `Failure` with the lesson's own message ([world.messages]); the learner's code
shapes it, never this file.
"""

from kit.world import Failure, World, tool

# The keys of the lesson's [world] table: required ones, then those with a default.
WORLD_KEYS = {"today", "refund_window_days", "retry_helps", "messages", "customers", "orders"}
WORLD_OPTIONAL = {"faults"}
FAULT_KEYS = {"category", "message"}
FAULT_OPTIONAL = {"paid", "verify"}
ORDER_KEYS = {"id", "customer", "item", "purchased", "total"}
ORDER_OPTIONAL = {"status", "refunded"}
CUSTOMER_KEYS = {"id", "name"}
# A ticket's keys: whose conversation it is, and the faults it schedules.
TICKET_KEYS = {"customer"}
TICKET_OPTIONAL = {"payment_faults", "lookup_timeouts", "read_timeouts", "lookup_crashes"}


def days(text):
    """Days since 1970-01-01 of a YYYY-MM-DD date, or None when it is not one."""
    if not isinstance(text, str):
        return None
    parts = text.split("-", 2)
    if len(parts) != 3 or [len(p) for p in parts] != [4, 2, 2] or not all(p.isdigit() for p in parts):
        return None
    y, m, d = (int(p) for p in parts)
    if not (1 <= m <= 12 and 1 <= d <= 31):
        return None
    # Howard Hinnant's days_from_civil.
    if m <= 2:
        y -= 1
    era = y // 400
    yoe = y - era * 400
    doy = (153 * ((m + 9) % 12) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def keys_problem(table, required, optional, what):
    """Why a table's keys are not the ones it should have, or None."""
    if not isinstance(table, dict):
        return f"{what} is not a table"
    missing = sorted(required - set(table))
    if missing:
        return f"{what} lacks {', '.join(missing)}"
    unknown = sorted(set(table) - required - optional)
    if unknown:
        known = ", ".join(sorted(required | optional))
        return f"{what} has an unknown key {unknown[0]}: the keys are {known}"
    return None


class Lumen(World):
    def load(self, data, tools, tickets, problems):
        self.tools = {t["name"]: t for t in tools}
        self.data = data
        self.tickets = {}
        why = keys_problem(data, WORLD_KEYS, WORLD_OPTIONAL, "[world]")
        if why:
            problems.add("[world]", f"[world] is not Lumen Supply's: {why}")
            return
        self.faults = data.get("faults", {})
        for name, fault in self.faults.items():
            why = keys_problem(fault, FAULT_KEYS, FAULT_OPTIONAL, f"fault {name}")
            if why:
                problems.add(f"[world.faults.{name}]", why)
                continue
            read = fault.get("verify")
            if read is not None and read not in self.tools:
                problems.add(f'verify = "{read}"', f"fault {name} names an unknown read tool '{read}'")
            if fault["message"] not in data["messages"]:
                problems.add(f"[world.faults.{name}]", f"fault {name} uses an unknown message '{fault['message']}'")
        customers = set()
        for customer in data["customers"]:
            why = keys_problem(customer, CUSTOMER_KEYS, set(), "a customer")
            if why:
                problems.add("[[world.customers]]", why)
            else:
                customers.add(customer["id"])
        self.orders = []
        for order in data["orders"]:
            why = keys_problem(order, ORDER_KEYS, ORDER_OPTIONAL, "an order")
            if why:
                problems.add("[[world.orders]]", why)
                continue
            at = f'id = "{order["id"]}"'
            if days(order["purchased"]) is None:
                problems.add(at, f"order {order['id']} has a purchase date '{order['purchased']}' that is not YYYY-MM-DD")
            if order["customer"] not in customers:
                problems.add(at, f"order {order['id']} belongs to an unknown customer '{order['customer']}'")
            self.orders.append({"status": "delivered", "refunded": False, **order})
        if days(data["today"]) is None:
            problems.add("today", f"world.today '{data['today']}' is not a YYYY-MM-DD date")
        for id, keys in tickets.items():
            at = f'id = "{id}"'
            why = keys_problem(keys, TICKET_KEYS, TICKET_OPTIONAL, f"ticket {id}")
            if why:
                problems.add(at, why)
                continue
            if keys["customer"] not in customers:
                problems.add(at, f"ticket {id} names an unknown customer '{keys['customer']}'")
            for fault in keys.get("payment_faults", []):
                if fault not in self.faults:
                    problems.add(at, f"ticket {id} schedules an unknown fault '{fault}'")
            if keys.get("lookup_crashes") and "crash_trace" not in data["messages"]:
                problems.add(at, f"ticket {id} crashes a lookup, but [world.messages] has no crash_trace")
            self.tickets[id] = keys
        self.today = days(data["today"]) or 0
        self.retry_helps = tuple(data["retry_helps"])
        # A crash's message is the order service's traceback (crash_trace), secrets and all.
        self.internal = ("crash",)

    def messages(self):
        return self.data.get("messages", {})

    def start(self, ticket):
        keys = self.tickets.get(ticket, {})
        self.customer = keys.get("customer", "")
        # The payment service's faults still to come, one per refund that reaches it.
        self.payment_faults = list(keys.get("payment_faults", []))
        # Lookups of an order that time out before the order service answers.
        self.lookup_timeouts = dict(keys.get("lookup_timeouts", {}))
        self.read_timeouts = keys.get("read_timeouts", 0)
        self.crashes = set(keys.get("lookup_crashes", []))
        # The refunds the shop knows it made (its ledger), and the money that really moved.
        self.confirmed = {o["id"] for o in self.orders if o["refunded"]}
        self.paid = {}

    def fail(self, category, key, **fields):
        raise Failure(category, self.message(key, **fields))

    def own_order(self, input):
        """The customer's order with the id in `input`; a Failure that says why not."""
        order_id = input.get("order_id") if isinstance(input, dict) else None
        if not isinstance(order_id, str):
            self.fail("validation", "missing_id")
        if len(order_id) != 4 or not all("0" <= c <= "9" for c in order_id):
            self.fail("validation", "bad_id", order_id=order_id)
        order = next((o for o in self.orders if o["id"] == order_id), None)
        if order is None:
            self.fail("validation", "unknown_order", order_id=order_id)
        if order["customer"] != self.customer:
            self.fail("permission", "not_yours", order_id=order_id)
        return order

    @tool("refund")
    def process_refund(self, input):
        order = self.own_order(input)
        order_id = order["id"]
        # Every refund message may name the order, its item and its total.
        fields = {"order_id": order_id, "item": order["item"], "total": order["total"], "amount": order["total"]}
        if order_id in self.confirmed:
            self.fail("business", "already_refunded", **fields)
        age = self.today - (days(order["purchased"]) or self.today)
        window = self.data["refund_window_days"]
        if age > window:
            self.fail("business", "window_closed", **fields, age=age, window=window)
        if self.payment_faults:
            fault = self.faults.get(self.payment_faults.pop(0))
            if fault is not None:
                if fault.get("paid"):
                    self.paid[order_id] = self.paid.get(order_id, 0) + 1
                read = fault.get("verify")
                verify = {"tool": read, "input": {"order_id": order_id}} if read else None
                raise Failure(fault["category"], self.message(fault["message"], **fields), verify=verify)
        self.paid[order_id] = self.paid.get(order_id, 0) + 1
        self.confirmed.add(order_id)
        return {
            "refunded": True,
            "order_id": order_id,
            "amount": order["total"],
            "message": self.message("refunded", **fields),
        }

    @tool("find_refund")
    def find_refund(self, input):
        """The payment service's own record: has money moved for this order? Safe to ask again."""
        order = self.own_order(input)
        order_id = order["id"]
        if self.read_timeouts > 0:
            self.read_timeouts -= 1
            self.fail("transient", "read_timeout", order_id=order_id)
        times = self.paid.get(order_id, 0) + int(bool(order["refunded"]))
        if times > 0:
            # The read settles it: the shop's ledger now knows.
            self.confirmed.add(order_id)
        fields = {"order_id": order_id, "total": order["total"], "amount": order["total"], "item": order["item"], "times": times}
        if times == 0:
            # Nothing found is an answer, not a failure: the learner's code shapes it.
            self.fail("empty", "refund_not_found", **fields)
        return {"found": True, "order_id": order_id, "refunds": times, "message": self.message("refund_found", **fields)}

    @tool("show_order")
    def lookup_order(self, input):
        order = self.own_order(input)
        order_id = order["id"]
        if order_id in self.crashes:
            self.fail("crash", "crash_trace", order_id=order_id)
        if self.lookup_timeouts.get(order_id, 0) > 0:
            self.lookup_timeouts[order_id] -= 1
            self.fail("transient", "lookup_timeout", order_id=order_id)
        return {"order": {"order_id": order_id, **{k: order[k] for k in ("item", "purchased", "total", "status")}}}

    @tool("delegate")
    def delegate(self, input):
        # A subagent's task is run by the agent; called directly, it shows the order.
        return self.lookup_order(input)

    @tool("list_orders")
    def lookup_orders(self, input):
        mine = [o for o in self.orders if o["customer"] == self.customer]
        if not mine:
            self.fail("empty", "no_orders")
        mine.sort(key=lambda o: o["purchased"], reverse=True)
        return {
            "orders": [
                {
                    "order_id": o["id"],
                    "item": o["item"],
                    "purchased": o["purchased"],
                    "days_ago": self.today - (days(o["purchased"]) or self.today),
                    "total": o["total"],
                    "refunded": o["id"] in self.confirmed,
                }
                for o in mine
            ]
        }

    def found(self, read):
        # The record answers found: true when money moved; anything else found nothing.
        return isinstance(read, dict) and bool(read.get("found"))

    def counts(self):
        return {"refunds_paid": sum(self.paid.values())}

    def detail(self):
        return {"refunds_paid": dict(sorted(self.paid.items()))} if self.paid else {}

    def harms(self):
        return [
            f"Order {order} was refunded {times} times: the customer was paid more than once."
            for order, times in sorted(self.paid.items())
            if times > 1
        ]

    def card(self, output):
        if not isinstance(output, dict):
            return None

        def text(v, k):
            value = v.get(k) if isinstance(v, dict) else None
            return value if isinstance(value, str) else "?"

        if "order" in output:
            order = output["order"]
            return f"order {text(order, 'order_id')}: {text(order, 'item')}, {text(order, 'status')}"
        if isinstance(output.get("orders"), list):
            ids = [text(o, "order_id") for o in output["orders"]]
            return f"{len(ids)} orders: {', '.join(ids)}" if ids else "no orders"
        return None

    def sample_fields(self, draw):
        # Order ids are four digits; the API's retry-after is a whole number of seconds, 3 to 11
        # (a check reads it as a number: `{ number = "$retry_after" }`).
        return {"order_id": f"{draw(10000):04}", "retry_after": str(3 + draw(9))}

    def report(self, seen, attempts, input):
        """A subagent whose lookup failed passes up a report in four labelled parts, built from
        the failure it got. A failure with no category gives it nothing to report."""
        category = seen.get("category")
        if category is None:
            return None
        order_id = input.get("order_id") if isinstance(input, dict) else None
        fields = {
            "order_id": order_id if isinstance(order_id, str) else "?",
            "category": category,
            "message": seen["message"] if seen.get("message") is not None else "no message",
            "attempts": attempts,
        }
        tried = "subagent_tried_retry" if attempts > 1 else "subagent_tried_once"
        after = "subagent_next_later" if seen.get("retryable") is True else "subagent_next_final"
        return {
            "failed": self.message("subagent_failed", **fields),
            "tried": self.message(tried, **fields),
            "partial": self.message("subagent_partial", **fields),
            "next": self.message(after, **fields),
        }
