"""Your file for the mcp-errors lesson: Tern Labs' on-call MCP server.

The workshop is the MCP client. For every tool the model calls it sends your `handle` a JSON-RPC
2.0 request (`tools/call`, or `tools/list`) and reads the response: a `result` goes to the model
as the call's tool_result, a JSON-RPC `error` never does. Grade it with
`./workshop check mcp-errors`; replay the tickets with `./workshop watch mcp-errors`. Run it under
a real MCP client with `python3 server.py` (see the lesson's "You do").
"""

import json

from kit.api import Json
from kit.mcp import MCPServer, ToolError, backend

mcp = MCPServer("oncall")

# JSON-RPC's codes, as the MCP specification uses them.
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603


@mcp.tool()
def get_metrics(namespace: str, deployment: str) -> str:
    """Live figures of one deployment: replicas, CPU, p95 latency and error rate. Read-only."""
    answer = backend.call("get_metrics", {"namespace": namespace, "deployment": deployment})
    if answer["ok"]:
        return json.dumps(answer["result"])
    # TODO(workshop): an exception escapes to handle(), which answers it as a JSON-RPC error.
    # Does the model ever read what went wrong?
    raise RuntimeError(answer["message"])


@mcp.tool()
def list_alerts() -> str:
    """List the monitoring alerts that are open right now. Read-only."""
    answer = backend.call("list_alerts", {})
    if answer["ok"]:
        return json.dumps(answer["result"])
    raise RuntimeError(answer["message"])


@mcp.handler
def handle(request: Json) -> Json:
    """The JSON-RPC 2.0 response to one request."""
    method, params = request.get("method"), request.get("params") or {}
    if method == "tools/list":
        return answer(request, {"tools": mcp.listed()})
    if method != "tools/call":
        return error(request, METHOD_NOT_FOUND, f"Method not found: {method}")
    name = params.get("name")
    tool = mcp.find(name)
    if tool is None:
        # TODO(workshop): who can do something about a tool this server does not have: the
        # model, or the client whose list of tools is out of date?
        return answer(request, {"content": text_of(f"Unknown tool: {name}"), "isError": True})
    try:
        text = tool(**(params.get("arguments") or {}))
    except Exception:
        return error(request, INTERNAL_ERROR, "Internal error")
    return answer(request, {"content": text_of(text), "isError": False})


def text_of(text: str) -> list:
    """A result's content: one text block."""
    return [{"type": "text", "text": text}]


def answer(request: Json, result: Json) -> Json:
    return {"jsonrpc": "2.0", "id": request.get("id"), "result": result}


def error(request: Json, code: int, message: str) -> Json:
    return {"jsonrpc": "2.0", "id": request.get("id"), "error": {"code": code, "message": message}}


if __name__ == "__main__":
    mcp.serve()
