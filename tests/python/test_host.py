"""The world host's answers (src/world/host.py) against the golden frames the workshop reads
them by (tests/fixtures/protocol/world_answers.json): each kind has the keys its golden frame
has, so a key renamed on one side fails here or in the Rust tests of src/world/frames.rs.

Run: python3 -m unittest discover -s tests/python"""

import importlib.util
import json
import os
import shutil
import sys
import tempfile
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GOLDEN = os.path.join(REPO, "tests", "fixtures", "protocol", "world_answers.json")

WORLD = '''
from kit.world import World, Failure, tool


class Shop(World):
    retry_helps = ("transient",)

    def load(self, data, tools, tickets, problems):
        if data.get("refuse"):
            problems.add("refuse = true", "this world refuses")

    def start(self, ticket):
        self.paid = []

    @tool("pay")
    def pay(self, input):
        if input.get("order") == "late":
            raise Failure("business", "The window has closed.", days=239)
        if input.get("order") == "boom":
            raise KeyError("ledger")
        self.say("the payment service was asked")
        self.paid.append(input["order"])
        return {"refunded": input["order"]}

    def messages(self):
        return {"late": "Order {order} is past the window."}

    def counts(self):
        return {"refunds_paid": len(self.paid)}

    def detail(self):
        return {"paid": list(self.paid)}

    def harms(self):
        return []
'''


def shape(frame):
    """The keys of an answer and of each part the workshop reads by its keys."""
    out = {"": sorted(frame)}
    for part in ("failure", "error", "effects"):
        if isinstance(frame.get(part), dict):
            out[part] = sorted(frame[part])
    return out


def load_host(folder):
    """host.py, imported from a copy in `folder` (it keeps its world's bytecode beside itself)."""
    path = os.path.join(folder, "host.py")
    shutil.copy(os.path.join(REPO, "src", "world", "host.py"), path)
    spec = importlib.util.spec_from_file_location("workshop_world_host_under_test", path)
    host = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(host)
    return host


class HostAnswers(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(GOLDEN, encoding="utf-8") as f:
            cls.golden = json.load(f)
        cls.folder = tempfile.mkdtemp()
        cls.world = os.path.join(cls.folder, "world.py")
        with open(cls.world, "w", encoding="utf-8") as f:
            f.write(WORLD)
        cls.saved_prefix = sys.pycache_prefix
        cls.host = load_host(cls.folder)
        cls.tools = [{"name": "process_refund", "does": "pay"}]

    @classmethod
    def tearDownClass(cls):
        sys.pycache_prefix = cls.saved_prefix
        for name in [n for n in sys.modules if n == "kit" or n.startswith("kit.")]:
            del sys.modules[name]
        shutil.rmtree(cls.folder, ignore_errors=True)

    def load(self, data=None):
        return self.host.load_world(self.world, data or {}, self.tools, ["old-order"], self.host.PROTOCOL)

    def assertShaped(self, answer, golden):
        self.assertEqual(shape(answer), shape(self.golden[golden]), answer)

    def call(self, number, order):
        return self.host.ask([], [number, "old-order"], "call", [number, "process_refund", {"order": order}])

    def test_a_loaded_world_has_the_golden_keys(self):
        answer = self.load()
        self.assertShaped(answer, "loaded")
        self.assertEqual(sorted(answer["value"]), sorted(self.golden["loaded"]["value"]))
        self.assertEqual(answer["value"]["counts"], {"old-order": ["refunds_paid"]})

    def test_a_workshop_of_another_protocol_is_refused_by_version(self):
        answer = self.host.load_world(self.world, {}, self.tools, ["old-order"], self.host.PROTOCOL + 1)
        self.assertEqual(list(answer), ["error"], answer)
        self.assertEqual(answer["error"]["doing"], "loading")
        self.assertIn(f"speaks version {self.host.PROTOCOL} of the workshop's protocol", answer["error"]["message"])

    def test_refused_data_is_a_problems_answer(self):
        answer = self.load({"refuse": True})
        self.assertShaped(answer, "problems")
        self.assertEqual(answer["problems"], [["refuse = true", "this world refuses"]])

    def test_a_call_answers_with_its_value_lines_and_effects(self):
        self.load()
        answer = self.call(1, "0871")
        self.assertShaped(answer, "call_value")
        self.assertEqual(answer["said"], ["the payment service was asked"])
        self.assertEqual(sorted(answer["effects"]), sorted(self.golden["call_value"]["effects"]))

    def test_a_failure_has_the_golden_keys(self):
        self.load()
        answer = self.call(2, "late")
        self.assertShaped(answer, "failure")
        self.assertEqual(answer["failure"]["fields"], {"days": 239})

    def test_an_error_has_the_golden_keys(self):
        self.load()
        answer = self.call(3, "boom")
        self.assertShaped(answer, "error")
        self.assertEqual(answer["error"]["code"], 'raise KeyError("ledger")')

    def test_a_run_that_is_gone_is_lost(self):
        self.load()
        answer = self.host.ask([], None, "call", [99, "process_refund", {"order": "0871"}])
        self.assertShaped(answer, "lost")

    def test_the_effects_question_and_a_plain_value(self):
        self.load()
        self.call(4, "0871")
        effects = self.host.ask([], None, "effects", [4])
        self.assertShaped(effects, "effects")
        self.assertEqual(sorted(effects["value"]), sorted(self.golden["effects"]["value"]))
        self.assertShaped(self.host.ask([], None, "found", [4, {}]), "value")


if __name__ == "__main__":
    unittest.main()
