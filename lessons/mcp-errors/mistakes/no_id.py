"""Mistake (no-id): every response leaves out the id of the request it answers. Otherwise the
reference solution: Tern Labs' on-call MCP server. A failure the model can act on is a
result flagged isError
(raise ToolError); a request the server cannot serve at all (a tool it
does not have, a method it does not know) is a JSON-RPC error, which the client handles."""

import json

from kit.api import Json
from kit.mcp import MCPServer, ToolError, backend

mcp = MCPServer("oncall")

# JSON-RPC's codes, as the MCP specification uses them.
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602


@mcp.tool()
def get_metrics(namespace: str, deployment: str) -> str:
    """Live figures of one deployment: replicas, CPU, p95 latency and error rate. Read-only."""
    answer = backend.call("get_metrics", {"namespace": namespace, "deployment": deployment})
    if answer["ok"]:
        return json.dumps(answer["result"])
    raise ToolError(sentence(answer["kind"], answer["facts"]))


@mcp.tool()
def list_alerts() -> str:
    """List the monitoring alerts that are open right now. Read-only."""
    answer = backend.call("list_alerts", {})
    if answer["ok"]:
        return json.dumps(answer["result"])
    raise ToolError(sentence(answer["kind"], answer["facts"]))


def sentence(kind: str, facts: Json) -> str:
    """What the model reads about a failure: what was wrong, and what to do instead."""
    if kind == "invalid":
        field, value = facts["field"], facts["value"]
        if facts.get("nearest"):
            near = facts["nearest"]
            return f'There is no {field} "{value}". Did you mean "{near}"? Call again with it.'
        valid = ", ".join(f'"{v}"' for v in facts["valid"])
        return f'There is no {field} "{value}". The ones that exist: {valid}. Use one of them.'
    if kind == "unavailable":
        service, until = facts["service"], facts["until"]
        return (
            f"The {service} service is down for maintenance until {until}. "
            "Do not call it again before then."
        )
    return (
        "The service failed on its side; the call was fine. "
        "Tell the engineer it cannot be read right now."
    )


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
        # The client cannot serve this call at all: a protocol error, and it reads tools/list again.
        return error(request, INVALID_PARAMS, f"Unknown tool: {name}")
    try:
        text = tool(**(params.get("arguments") or {}))
    except ToolError as failure:
        return answer(request, {"content": text_of(str(failure)), "isError": True})
    except TypeError as wrong:
        # Arguments the tool does not take: an input the model can correct, so a tool error too.
        text = f"{name} got the wrong arguments ({wrong}). Check its inputSchema and try again."
        return answer(request, {"content": text_of(text), "isError": True})
    return answer(request, {"content": text_of(text), "isError": False})


def text_of(text: str) -> list:
    """A result's content: one text block."""
    return [{"type": "text", "text": text}]


def answer(request: Json, result: Json) -> Json:
    return {"jsonrpc": "2.0", "result": result}


def error(request: Json, code: int, message: str) -> Json:
    return {"jsonrpc": "2.0", "error": {"code": code, "message": message}}


if __name__ == "__main__":
    mcp.serve()
