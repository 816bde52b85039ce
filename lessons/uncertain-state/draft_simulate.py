"""DRAFT ONLY, delete once the lesson runs in the real runner.

Plays draft.toml's world and harness rules in plain Python, against the starter and the
reference refunds.py, and prints every check and every ticket's counts next to what the draft
expects. Run: python3 lessons/uncertain-state/draft_simulate.py
"""

import importlib.util
import pathlib
import sys
import tomllib
import types

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
DRAFT = tomllib.loads((HERE / "draft.toml").read_text())

kit = types.ModuleType("kit")
kit.__path__ = []
api = types.ModuleType("kit.api")
api.Json = dict
sys.modules["kit"], sys.modules["kit.api"] = kit, api


def load(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CODES = {
    "starter": load(ROOT / "starter/uncertain-state/refunds.py"),
    "structured": load(HERE / "solution/refunds.py"),
}
MSG = DRAFT["world"]["messages"]
ORDERS = {o["id"]: o for o in DRAFT["world"]["orders"]}


def days(date):
    y, m, d = map(int, date.split("-"))
    import datetime

    return datetime.date(y, m, d).toordinal()


class World:
    def __init__(self, ticket, code):
        self.code = code
        self.customer = ticket["customer"]
        self.payment_faults = list(ticket.get("payment_faults", []))
        self.read_faults = list(ticket.get("read_faults", []))
        self.records = {i for i, o in ORDERS.items() if "refunded" in o}
        self.ledger = {i: [dict(o["refunded"], amount=o["total"])] for i, o in ORDERS.items() if "refunded" in o}
        self.paid = 0
        self.calls = {"process_refund": 0, "find_refund": 0}

    def own(self, inp):
        oid = inp.get("order_id")
        if not isinstance(oid, str):
            return None, self.code.fail("validation", MSG["missing_id"])
        if len(oid) != 4 or not oid.isdigit():
            return None, self.code.fail("validation", MSG["bad_id"].format(order_id=oid))
        if oid not in ORDERS:
            return None, self.code.fail("validation", MSG["unknown_order"].format(order_id=oid))
        if ORDERS[oid]["customer"] != self.customer:
            return None, self.code.fail("permission", MSG["not_yours"].format(order_id=oid))
        return ORDERS[oid], None

    def pay(self, o):
        entries = self.ledger.setdefault(o["id"], [])
        ref = f"RF-{o['id']}-{len(entries) + 1}"
        entries.append({"paid_on": DRAFT["world"]["today"], "reference": ref, "amount": o["total"]})
        self.paid += 1
        return ref

    def call(self, tool, inp):
        self.calls[tool] += 1
        o, failure = self.own(inp)
        if failure is not None:
            return failure
        f = dict(order_id=o["id"], total=o["total"], item=o["item"])
        if tool == "find_refund":
            if self.read_faults and self.read_faults.pop(0) == "timeout":
                return self.code.fail("transient", MSG["lookup_timeout"].format(**f))
            found = self.ledger.get(o["id"], [])
            if not found:
                return self.code.fail("empty", MSG["refund_absent"].format(**f))
            r = found[0]
            return {
                "refunds": [dict(order_id=o["id"], **r) for r in found],
                "message": MSG["refund_found"].format(**f, **r),
            }
        if o["id"] in self.records:
            r = self.ledger[o["id"]][0]
            return self.code.fail("business", MSG["already_refunded"].format(**f, paid_on=r["paid_on"]))
        age = days(DRAFT["world"]["today"]) - days(o["purchased"])
        if age > DRAFT["world"]["refund_window_days"]:
            return self.code.fail("business", MSG["window_closed"].format(**f, age=age, window=30))
        fault = self.payment_faults.pop(0) if self.payment_faults else None
        verify = {"tool": "find_refund", "input": {"order_id": o["id"]}}
        if fault == "busy":
            return self.code.fail("transient", MSG["payment_busy"].format(**f))
        if fault == "dropped":
            return self.code.fail("uncertain", MSG["no_reply"].format(**f), verify)
        ref = self.pay(o)
        if fault == "lost_reply":
            return self.code.fail("uncertain", MSG["no_reply"].format(**f), verify)
        self.records.add(o["id"])
        return {"refunded": True, "order_id": o["id"], "amount": o["total"], "reference": ref,
                "message": MSG["refunded"].format(**f)}


def harness(world, tool, inp):
    h = DRAFT["harness"]
    steps, attempts = [], 0
    while True:
        result = world.call(tool, inp)
        attempts += 1
        step = world.code.next_step(result)
        steps.append(step)
        if step == "retry" and attempts < h["max_attempts"]:
            continue
        if step != "verify":
            return result, steps
        verify = (result.get("error") or {}).get("verify")
        if not verify:
            return result, steps
        for n in range(1, h["read_max_attempts"] + 1):
            read = world.call(verify["tool"], verify["input"])
            s = world.code.next_step(read)
            steps.append(s)
            if s != "retry":
                break
        if s == "done" and read.get(h["found_list"]):
            return read, steps
        if s == "done" and read.get(h["found_list"]) == [] and attempts < h["max_attempts"]:
            continue
        return result, steps


def get(value, path):
    for key in path.split("."):
        if not isinstance(value, dict) or key not in value:
            return "absent"
        value = value[key]
    return value


def run_checks(name, code):
    passed = []
    for i, check in enumerate(DRAFT["checks"], 1):
        ok = True
        if "ticket" in check:
            ticket = next(t for t in DRAFT["tickets"] if t["id"] == check["ticket"])
            world = World(ticket, code)
            _, steps = harness(world, ticket["probe"]["tool"], ticket["probe"]["input"])
            got = {"refund_calls": world.calls["process_refund"], "read_calls": world.calls["find_refund"],
                   "paid": world.paid, "steps": steps}
            ok = all(got[k] == v for k, v in check["expect"].items())
        else:
            for call, expect in zip(check["calls"], check["expect"]):
                value = getattr(code, call["function"])(*call["args"])
                for path, want in expect.items():
                    have = value if path == "return" else get(value, path)
                    ok &= have == want
        passed.append(ok)
        print(f"  {'pass' if ok else 'FAIL'} {i:2} {check['id']}")
    return passed


for name, code in CODES.items():
    print(f"== {name}: checks")
    run_checks(name, code)
    print(f"== {name}: tickets (harness)")
    for t in DRAFT["tickets"]:
        world = World(t, code)
        result, steps = harness(world, t["probe"]["tool"], t["probe"]["input"])
        want = t["expect"][name]["harness"]
        got = {"refund_calls": world.calls["process_refund"], "read_calls": world.calls["find_refund"],
               "paid": world.paid, "steps": steps}
        same = all(want[k] == v for k, v in got.items())
        print(f"  {'ok ' if same else 'DIFF'} {t['id']:18} {got}")
        print(f"       model gets: {result}")
