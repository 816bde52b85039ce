"""The mcp-errors solution's tools under the official MCP Python SDK, compared with what they
give under the workshop's kit.mcp: the same tool code, the same service answers.

The SDK is not a dependency of the workshop. This test runs it from a virtual environment:
the Python named by WORKSHOP_MCP_PYTHON, else one it makes under target/mcp-venv with
`pip install mcp` (.ci/run makes it beforehand). When neither can be had it skips, saying why.

Run: python3 -m unittest discover -s tests/python"""

import json
import os
import subprocess
import sys
import types
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOLUTION = os.path.join(REPO, "lessons", "mcp-errors", "solution", "server.py")
KIT_MCP = os.path.join(REPO, "src", "bridge", "kit_mcp.py")
VENV = os.path.join(REPO, "target", "mcp-venv")

# The service's answers the tools are given: a success, a wrong namespace, a service down.
FIGURES = {"deployment": "checkout", "namespace": "storefront", "replicas": 3, "cpu_percent": 91,
           "p95_ms": 840, "error_rate_percent": 0.4, "as_of": "14:20"}
CASES = [
    ("get_metrics", {"namespace": "storefront", "deployment": "checkout"},
     {"ok": True, "result": FIGURES}),
    ("get_metrics", {"namespace": "payment", "deployment": "ledger"},
     {"ok": False, "kind": "invalid", "message": "422 from deployd",
      "facts": {"field": "namespace", "value": "payment", "valid": ["payments", "platform"],
                "nearest": "payments"}}),
    ("get_metrics", {"namespace": "storefront", "deployment": "checkout"},
     {"ok": False, "kind": "unavailable", "message": "503",
      "facts": {"service": "metrics", "until": "15:30"}}),
    ("list_alerts", {}, {"ok": True, "result": {"alerts": []}}),
]

# Run under the SDK's Python: the solution's file imports kit.mcp, which here hands it the SDK's
# own MCPServer and ToolError; only the workshop's backend and handler marker are stand-ins.
UNDER_SDK = r'''
import asyncio, json, sys, types
from mcp.server.mcpserver import MCPServer as SdkServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent

cases = json.loads(sys.argv[2])
current = {}

class Backend:
    def call(self, tool, arguments):
        return current["answer"]

class MCPServer(SdkServer):
    def handler(self, fn):
        return fn

kit = types.ModuleType("kit"); kit.__path__ = []
api = types.ModuleType("kit.api"); api.Json = dict
mcp = types.ModuleType("kit.mcp")
mcp.MCPServer, mcp.ToolError, mcp.backend = MCPServer, ToolError, Backend()
sys.modules.update({"kit": kit, "kit.api": api, "kit.mcp": mcp})
namespace = {"__name__": "solution"}
exec(compile(open(sys.argv[1]).read(), sys.argv[1], "exec"), namespace)
server = namespace["mcp"]

async def main():
    out = {"calls": [], "tools": []}
    for name, arguments, answer in cases:
        current["answer"] = answer
        try:
            result = await server.call_tool(name, arguments)
            # What the SDK's own call handler makes of a return (mcpserver/server.py).
            if isinstance(result, CallToolResult):
                wire = result
            elif isinstance(result, tuple):
                wire = CallToolResult(content=list(result[0]))
            else:
                wire = CallToolResult(content=list(result))
        except Exception as e:
            # What the SDK's call handler makes of an exception (mcpserver/server.py).
            wire = CallToolResult(content=[TextContent(type="text", text=str(e))], is_error=True)
        out["calls"].append(wire.model_dump(by_alias=True, mode="json", exclude_none=True))
    current["answer"] = None
    try:
        await server.call_tool("get_p95", {"deployment": "checkout"})
        out["unknown"] = None
    except Exception as e:
        out["unknown"] = [type(e).__name__, str(e)]
    for tool in await server.list_tools():
        out["tools"].append({"name": tool.name, "required": tool.input_schema.get("required", [])})
    print(json.dumps(out))

asyncio.run(main())
'''


def sdk_python():
    """A Python with the official mcp package, or the reason there is none."""
    named = os.environ.get("WORKSHOP_MCP_PYTHON")
    if named:
        if not os.path.exists(named):
            return None, f"WORKSHOP_MCP_PYTHON names {named}, which does not exist"
        return named, None
    python = os.path.join(VENV, "bin", "python")
    if not os.path.exists(python):
        made = subprocess.run([sys.executable, "-m", "venv", VENV], capture_output=True, text=True)
        if made.returncode != 0:
            why = made.stderr.strip()[-300:]
            return None, f"could not make a virtual environment at {VENV}: {why}"
    found = subprocess.run([python, "-c", "import mcp.server.mcpserver"], capture_output=True)
    if found.returncode != 0:
        install = [python, "-m", "pip", "install", "-q", "mcp"]
        pip = subprocess.run(install, capture_output=True, text=True)
        if pip.returncode != 0:
            return None, f"pip could not install mcp into {VENV}: {pip.stderr.strip()[-300:]}"
    return python, None


def under_kit():
    """The solution's answers under the workshop's kit.mcp, for the same cases."""
    kit = types.ModuleType("kit")
    kit.__path__ = []
    api = types.ModuleType("kit.api")
    api.Json = dict
    mcp = types.ModuleType("kit.mcp")
    with open(KIT_MCP) as source:
        exec(compile(source.read(), KIT_MCP, "exec"), mcp.__dict__)
    saved = {k: sys.modules.get(k) for k in ("kit", "kit.api", "kit.mcp")}
    sys.modules.update({"kit": kit, "kit.api": api, "kit.mcp": mcp})
    try:
        namespace = {"__name__": "solution"}
        with open(SOLUTION) as source:
            exec(compile(source.read(), SOLUTION, "exec"), namespace)
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v
    handle = namespace["handle"]
    calls = []
    for i, (name, arguments, answer) in enumerate(CASES):
        request = {"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                   "params": {"name": name, "arguments": arguments}}
        calls.append(handle(request, answer)["result"])
    unknown = handle({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
                      "params": {"name": "get_p95", "arguments": {}}}, None)
    listed = handle({"jsonrpc": "2.0", "id": 10, "method": "tools/list"}, None)["result"]["tools"]
    tools = [{"name": t["name"], "required": t["inputSchema"].get("required", [])} for t in listed]
    return {"calls": calls, "unknown": unknown, "tools": tools}


class SolutionUnderTheSdk(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        python, why = sdk_python()
        if python is None:
            raise unittest.SkipTest(f"the official MCP SDK is not available: {why}")
        run = subprocess.run([python, "-c", UNDER_SDK, SOLUTION, json.dumps(CASES)],
                             capture_output=True, text=True, timeout=120)
        if run.returncode != 0:
            raise AssertionError(f"the solution's tools failed under the SDK:\n{run.stderr}")
        cls.sdk = json.loads(run.stdout)
        cls.kit = under_kit()

    def test_a_call_that_worked_gives_the_same_text_unflagged(self):
        for at in (0, 3):
            sdk, kit = self.sdk["calls"][at], self.kit["calls"][at]
            texts = [[c["text"] for c in r["content"]] for r in (sdk, kit)]
            self.assertEqual(texts[0], texts[1])
            self.assertFalse(sdk.get("isError", False))
            self.assertFalse(kit["isError"])

    def test_a_tool_error_is_flagged_is_error_on_the_wire_with_the_tools_own_sentence(self):
        for at in (1, 2):
            sdk, kit = self.sdk["calls"][at], self.kit["calls"][at]
            self.assertIs(sdk["isError"], True)
            self.assertIs(kit["isError"], True)
            self.assertNotIn("is_error", sdk)
            # The SDK puts "Error executing tool <name>: " before the tool's own sentence.
            said, own = sdk["content"][0]["text"], kit["content"][0]["text"]
            self.assertTrue(said.endswith(own), (sdk, kit))

    def test_the_same_tools_are_listed_with_the_same_required_arguments(self):
        self.assertEqual(self.sdk["tools"], self.kit["tools"])

    def test_an_unknown_tool_is_the_one_place_the_lesson_parts_from_the_sdk(self):
        # The SDK's high-level server raises ToolError for it (a result flagged isError, as the
        # lesson says); the solution answers the specification's -32602.
        self.assertEqual(self.sdk["unknown"], ["ToolError", "Unknown tool: get_p95"])
        self.assertEqual(self.kit["unknown"]["error"]["code"], -32602)


if __name__ == "__main__":
    unittest.main()
