"""The the-loop solution's loop under the official `anthropic` Python SDK, against a local stand-in
of the Messages API, and under the workshop's stand-in module (src/bridge/kit_anthropic.py).

The file the learner writes must run against the real SDK unchanged: the same `import anthropic`,
the same error classes, the same `client.messages.create(...)`, `max_retries` retrying as the
stand-in says it does. The SDK is not a dependency of the workshop: the SDK's half runs under the
Python named by WORKSHOP_ANTHROPIC_PYTHON, else target/anthropic-venv/bin/python (.ci/run makes it
with `pip install anthropic`); without one it skips, saying why. The stand-in's half always runs.

Run: python3 -m unittest discover -s tests/python"""

import json
import os
import subprocess
import sys
import types
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LESSON = os.path.join(REPO, "lessons", "the-loop")
SOLUTION = os.path.join(LESSON, "solution", "loop.py")
DOUBLE_RETRY = os.path.join(LESSON, "mistakes", "double_retry.py")
KIT = os.path.join(REPO, "src", "bridge", "kit_anthropic.py")
VENV_PYTHON = os.path.join(REPO, "target", "anthropic-venv", "bin", "python")

# The error names the stand-in shares with the SDK, whose subclass relations must agree.
NAMES = [
    "AnthropicError", "APIError", "APIStatusError", "APIConnectionError", "APITimeoutError",
    "BadRequestError", "AuthenticationError", "PermissionDeniedError", "NotFoundError",
    "RequestTimeoutError", "ConflictError", "UnprocessableEntityError", "RateLimitError",
    "InternalServerError", "ServiceUnavailableError", "OverloadedError",
]

# Run under the SDK's Python: a local Messages API answering from a script, the solution's loop
# (or a named mistake's) given the real client, the `time` module and a run_tool that records.
UNDER_SDK = r'''
import json, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
import anthropic

path, scripts, names = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
state = {"script": [], "bodies": []}

class Api(BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        state["bodies"].append(body)
        script = state["script"]
        status, headers, answer = script.pop(0) if len(script) > 1 else script[0]
        data = json.dumps(answer).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass

server = ThreadingHTTPServer(("127.0.0.1", 0), Api)
threading.Thread(target=server.serve_forever, daemon=True).start()
namespace = {"__name__": "loop"}
exec(compile(open(path).read(), path, "exec"), namespace)
out = {"runs": {}, "classes": {}}
for name, script in scripts.items():
    state["script"], state["bodies"] = list(script), []
    tools = []
    def run_tool(tool, input):
        tools.append([tool, input])
        return {"content": "The payment service is not answering.", "is_error": True}
    client = anthropic.Anthropic(
        base_url=f"http://127.0.0.1:{server.server_address[1]}", api_key="test", max_retries=2
    )
    told = namespace["answer"](client, time, run_tool, "Please refund order 3377.")
    out["runs"][name] = {"told": told, "requests": len(state["bodies"]), "tools": tools,
                         "last": state["bodies"][-1]}
for name in names:
    cls = getattr(anthropic, name)
    out["classes"][name] = [n for n in names if issubclass(cls, getattr(anthropic, n))]
server.shutdown()
print(json.dumps(out))
'''


def message(stop_reason, content):
    return {"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-haiku-4-5",
            "content": content, "stop_reason": stop_reason, "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 10}}


def error(status, kind, text):
    return {"type": "error", "error": {"type": kind, "message": text}}


TOOL_USE = message("tool_use", [{"type": "tool_use", "id": "toolu_01A", "name": "process_refund",
                                 "input": {"order_id": "3377"}}])
DONE = message("end_turn", [{"type": "text", "text": "Done, Theo: your refund is on its way."}])
# A short retry-after, so the run honours it without waiting long on the machine's clock.
BUSY = (529, {"retry-after": "0.05"}, error(529, "overloaded_error", "Overloaded"))
SCRIPTS = {
    "busy": [BUSY, BUSY, (200, {}, TOOL_USE), (200, {}, DONE)],
    "bad": [(400, {}, error(400, "invalid_request_error", "messages.0: unexpected tool_use_id"))],
    "stubborn": [(200, {}, TOOL_USE)],
    "down": [BUSY],
}


def sdk_python():
    """A Python with the official anthropic package, or the reason there is none."""
    named = os.environ.get("WORKSHOP_ANTHROPIC_PYTHON")
    python = named or VENV_PYTHON
    if not os.path.exists(python):
        if named:
            return None, f"WORKSHOP_ANTHROPIC_PYTHON names {named}, which does not exist"
        return None, (f"no {VENV_PYTHON}: make it with `python3 -m venv target/anthropic-venv && "
                      "target/anthropic-venv/bin/python -m pip install anthropic` (.ci/run does)")
    found = subprocess.run([python, "-c", "import anthropic"], capture_output=True, text=True)
    if found.returncode != 0:
        return None, f"{python} cannot import anthropic: {found.stderr.strip()[-300:]}"
    return python, None


def under_sdk(python, path, scripts):
    run = subprocess.run([python, "-c", UNDER_SDK, path, json.dumps(scripts), json.dumps(NAMES)],
                         capture_output=True, text=True, timeout=120)
    if run.returncode != 0:
        raise AssertionError(f"{os.path.basename(path)} failed under the SDK:\n{run.stderr}")
    return json.loads(run.stdout)


def stand_in():
    """The workshop's stand-in module, as the runner installs it: under the name `anthropic`."""
    module = types.ModuleType("anthropic")
    with open(KIT) as source:
        exec(compile(source.read(), KIT, "exec"), module.__dict__)
    return module


def load(path, module):
    saved = sys.modules.get("anthropic")
    sys.modules["anthropic"] = module
    try:
        namespace = {"__name__": "loop"}
        with open(path) as source:
            exec(compile(source.read(), path, "exec"), namespace)
    finally:
        if saved is None:
            sys.modules.pop("anthropic", None)
        else:
            sys.modules["anthropic"] = saved
    return namespace["answer"]


def kit_answers(script):
    """The stand-in's answers for a script of HTTP answers (the last one repeated)."""
    answers = []
    for status, headers, body in script:
        if status == 200:
            answers.append({"response": body, "took_ms": 100})
        else:
            retry_after = float(headers["retry-after"]) if "retry-after" in headers else None
            answers.append({"error": {"status": status, "type": body["error"]["type"],
                                      "message": body["error"]["message"],
                                      "retry_after": retry_after}, "took_ms": 100})
    return answers


def under_kit(path, scripts):
    """The same runs under the stand-in: each run's answers given whole, the last repeated, as
    the workshop gives them; tool calls answered with the same failure."""
    kit = stand_in()
    answer = load(path, kit)
    runs = {}
    for name, script in scripts.items():
        tool = {"result": {"content": "The payment service is not answering.", "is_error": True}}
        # A tool call takes its answer from the same list: one after every tool_use reply.
        calls = lambda a: a.get("response", {}).get("stop_reason") == "tool_use"  # noqa: E731
        given = [[a, tool] if calls(a) else [a] for a in kit_answers(script)]
        spec = {"answers": [a for pair in given[:-1] for a in pair], "cycle": given[-1]}
        record = kit._workshop_call(answer, [spec, "Please refund order 3377."])
        runs[name] = {"told": record["value"], "requests": len(record["sendings"]),
                      "state": record["state"], "steps": record["steps"]}
    return kit, runs


class TheLoopUnderTheStandIn(unittest.TestCase):
    """What the workshop's replays rest on, without the SDK."""

    @classmethod
    def setUpClass(cls):
        cls.kit, cls.runs = under_kit(SOLUTION, SCRIPTS)
        _, cls.double = under_kit(DOUBLE_RETRY, {"down": SCRIPTS["down"]})

    def test_the_fix_waits_out_two_529s_and_returns_the_models_answer(self):
        busy = self.runs["busy"]
        self.assertEqual((busy["state"], busy["requests"]), ("returned", 4))
        self.assertEqual(busy["told"], "Done, Theo: your refund is on its way.")
        # The loop's own waits, each the retry-after the API asked for.
        waits = [s for s in busy["steps"] if "sleep" in s]
        self.assertEqual(waits, [{"sleep": 0.05, "by": "loop"}] * 2)

    def test_a_400_is_sent_once_and_the_person_never_reads_its_text(self):
        bad = self.runs["bad"]
        self.assertEqual(bad["requests"], 1)
        self.assertNotIn("tool_use_id", bad["told"])

    def test_a_stubborn_tool_is_stopped_at_6_turns(self):
        self.assertEqual(self.runs["stubborn"]["requests"], 6)
        self.assertIn("6 tries", self.runs["stubborn"]["told"])

    def test_two_layers_of_retries_send_an_overloaded_request_9_times(self):
        self.assertEqual(self.runs["down"]["requests"], 3)
        self.assertEqual(self.double["down"]["requests"], 9)
        client_waits = [s for s in self.double["down"]["steps"] if s.get("by") == "client"]
        self.assertEqual(len(client_waits), 6)

    def test_a_caught_pause_is_seen(self):
        kit = self.kit

        def swallowing(client, clock, run_tool, text):
            try:
                client.messages.create(model="m", max_tokens=1, messages=[])
            except:  # noqa: E722
                return "it failed"

        record = kit._workshop_call(swallowing, [{"answers": []}, "hi"])
        self.assertEqual(record["state"], "swallowed")

    def test_the_client_retries_a_timeout_by_itself_and_never_a_400(self):
        kit = self.kit

        def plain_loop(client, clock, run_tool, text):
            try:
                reply = client.messages.create(model="m", max_tokens=1, messages=[])
            except kit.BadRequestError as error:
                return f"refused: {error.status_code}"
            return reply.content[0].text

        text = [{"type": "text", "text": "ok"}]
        done = {"response": {"stop_reason": "end_turn", "content": text}}
        spec = {"answers": [{"timeout": True, "took_ms": 10}] * 2 + [done]}
        record = kit._workshop_call(plain_loop, [spec, "hi"])
        self.assertEqual((record["state"], record["value"]), ("returned", "ok"))
        self.assertEqual(record["sendings"], ["timeout", "timeout", "reply"])
        waits = [s["sleep"] for s in record["steps"] if "sleep" in s]
        self.assertEqual(waits, [0.5, 1.0])
        bad = {"error": {"status": 400, "type": "invalid_request_error", "message": "no"}}
        record = kit._workshop_call(plain_loop, [{"answers": [bad] * 3}, "hi"])
        self.assertEqual((record["value"], record["sendings"]), ("refused: 400", [400]))

    def test_an_error_is_the_sdks_class_for_its_status(self):
        kit = self.kit
        for status, name in [(400, "BadRequestError"), (429, "RateLimitError"),
                             (529, "OverloadedError"), (500, "InternalServerError"),
                             (502, "InternalServerError"), (418, "APIStatusError")]:
            raised = kit._error_of({"error": {"status": status, "type": "x", "message": "y"}})
            self.assertEqual(type(raised).__name__, name)
            self.assertEqual(raised.status_code, status)
        self.assertIsInstance(kit._error_of({"timeout": True}), kit.APITimeoutError)


class TheLoopUnderTheSdk(unittest.TestCase):
    """The same file against the real SDK and a local stand-in server: what the server counted
    and what the person was told agree with the stand-in's runs."""

    @classmethod
    def setUpClass(cls):
        python, why = sdk_python()
        if python is None:
            raise unittest.SkipTest(f"the official anthropic SDK is not available: {why}")
        cls.sdk = under_sdk(python, SOLUTION, SCRIPTS)
        cls.double = under_sdk(python, DOUBLE_RETRY, {"down": SCRIPTS["down"]})
        _, cls.kit_runs = under_kit(SOLUTION, SCRIPTS)
        cls.kit = stand_in()

    def test_the_fix_waits_out_two_529s_runs_the_tool_and_returns_the_models_answer(self):
        busy = self.sdk["runs"]["busy"]
        self.assertEqual(busy["requests"], 4)
        self.assertEqual(busy["told"], "Done, Theo: your refund is on its way.")
        self.assertEqual(busy["tools"], [["process_refund", {"order_id": "3377"}]])
        # The SDK's response blocks went back in the next request as the API takes them.
        result = busy["last"]["messages"][-1]["content"][0]
        self.assertEqual((result["type"], result["tool_use_id"]), ("tool_result", "toolu_01A"))
        self.assertEqual(busy["last"]["messages"][-2]["content"][0]["id"], "toolu_01A")

    def test_a_400_is_sent_once_and_told_in_the_persons_words(self):
        bad = self.sdk["runs"]["bad"]
        self.assertEqual(bad["requests"], 1)
        self.assertNotIn("tool_use_id", bad["told"])
        self.assertEqual(bad["told"], self.kit_runs["bad"]["told"])

    def test_a_stubborn_tool_is_stopped_at_6_requests_with_an_honest_message(self):
        stubborn = self.sdk["runs"]["stubborn"]
        self.assertEqual(stubborn["requests"], 6)
        self.assertEqual(len(stubborn["tools"]), 6)
        self.assertEqual(stubborn["told"], self.kit_runs["stubborn"]["told"])

    def test_max_retries_multiplies_as_the_stand_in_says(self):
        # The fix sets max_retries=0 and sends 3 times; the mistake leaves the client's 2 and
        # its 3 sendings become 9 requests at the server.
        self.assertEqual(self.sdk["runs"]["down"]["requests"], 3)
        self.assertEqual(self.double["runs"]["down"]["requests"], 9)

    def test_the_error_classes_are_related_as_in_the_sdk(self):
        kit = {name: [n for n in NAMES if issubclass(getattr(self.kit, name), getattr(self.kit, n))]
               for name in NAMES}
        self.assertEqual(kit, self.sdk["classes"])


if __name__ == "__main__":
    unittest.main()
