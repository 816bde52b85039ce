"""kit.mcp: write an MCP server's tools as the official Python SDK has you write them, with
nothing to install.

Same names as the SDK (mcp 2.x, `mcp.server.mcpserver`; 1.x called the class FastMCP):
`MCPServer(name)`, its `@mcp.tool()` decorator (the function stays a plain function), and
`ToolError`, which a tool raises to report a failure the model should read. What the SDK does
for you and the workshop asks you to write is the request handler: mark it `@mcp.handler`, and it
is given each JSON-RPC request and returns the response.

Workshop-only: `backend`, the service behind the tools (in a replay, the lesson's world: its
answer to the call in progress; outside the workshop, "offline" for every call),
`mcp.find(name)`, `mcp.listed()`, and `mcp.serve()`, which speaks MCP's stdio transport (one
JSON-RPC message a line) so the same file runs under a real MCP client: `python3 server.py`,
with this kit beside it (`start` puts a copy in the lesson's work folder).
"""

import sys

_KINDS = {
    "str": "string", "int": "integer", "float": "number",
    "bool": "boolean", "list": "array", "dict": "object",
}
_NOBODY = "No service answers outside the workshop's runs."


class ToolError(Exception):
    """A tool's failure: the server answers with a result flagged isError, for the model to read."""


class _Backend:
    """The service the tools ask. The workshop looks the call up in the lesson's world before it
    sends the request, so `call` gives that answer: {"ok": True, "result": ...} or {"ok": False,
    "kind": ..., "message": ..., "facts": {...}}."""

    def __init__(self):
        self._request = None
        self._answer = None

    def call(self, tool, arguments):
        params = (self._request or {}).get("params") or {}
        if self._answer is None:
            return {"ok": False, "kind": "offline", "message": _NOBODY, "facts": {}}
        if params.get("name") != tool or params.get("arguments") != arguments:
            raise RuntimeError(
                f"backend.call({tool!r}, {arguments!r}) during a call of {params.get('name')!r} "
                f"with {params.get('arguments')!r}: the service answers only the call in progress"
            )
        return self._answer


backend = _Backend()


class MCPServer:
    def __init__(self, name=None, instructions=None):
        self.name = name or "mcp-server"
        self.instructions = instructions
        self._tools = {}
        self._handler = None

    def tool(self, name=None, title=None, description=None):
        """Register a tool, as the SDK's `@mcp.tool()` does; the function is returned as it is."""
        if callable(name):
            raise TypeError("use @mcp.tool(), with parentheses, as the MCP SDK does")

        def register(fn):
            doc = description or (fn.__doc__ or "").strip()
            self._tools[name or fn.__name__] = (fn, doc, title)
            return fn

        return register

    def find(self, name):
        """The function of the tool called `name`, or None when this server has no such tool."""
        found = self._tools.get(name)
        return found[0] if found else None

    def listed(self):
        """Every tool as `tools/list` gives it: name, description, inputSchema."""
        return [_definition(name, fn, doc) for name, (fn, doc, _) in self._tools.items()]

    def handler(self, fn):
        """Mark the request handler: `fn(request)` returns the JSON-RPC response to `request`."""

        def handle(request, service=None):
            backend._request, backend._answer = request, service
            try:
                return fn(request)
            finally:
                backend._request, backend._answer = None, None

        handle.__name__ = fn.__name__
        handle.__doc__ = fn.__doc__
        self._handler = handle
        return handle

    def serve(self):
        """Serve MCP over stdio: one JSON-RPC message a line in, one response a line out."""
        import json

        if self._handler is None:
            raise RuntimeError("mark the request handler with @mcp.handler before serve()")
        for line in sys.stdin:
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except ValueError:
                error = {"code": -32700, "message": "Parse error"}
                _send({"jsonrpc": "2.0", "id": None, "error": error})
                continue
            if "id" not in message:
                continue  # a notification (notifications/initialized): nothing to answer
            if message.get("method") == "initialize":
                _send(self._welcome(message))
            elif message.get("method") == "ping":
                _send({"jsonrpc": "2.0", "id": message["id"], "result": {}})
            else:
                _send(self._answer(message))

    def _answer(self, request):
        """The handler's response; an exception in it is the server's own failure, -32603."""
        try:
            return self._handler(request, None)
        except Exception as failure:
            import traceback

            traceback.print_exc(file=sys.stderr)
            error = {"code": -32603, "message": f"Internal error: {type(failure).__name__}"}
            return {"jsonrpc": "2.0", "id": request.get("id"), "error": error}

    def _welcome(self, request):
        asked = (request.get("params") or {}).get("protocolVersion") or "2025-11-25"
        result = {
            "protocolVersion": asked,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": self.name, "version": "1.0.0"},
        }
        if self.instructions:
            result["instructions"] = self.instructions
        return {"jsonrpc": "2.0", "id": request["id"], "result": result}


def _send(message):
    import json

    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def _definition(name, fn, doc):
    code = fn.__code__
    names = code.co_varnames[: code.co_argcount]
    defaults = fn.__defaults__ or ()
    required = list(names[: len(names) - len(defaults)])
    hints = getattr(fn, "__annotations__", {})
    properties = {}
    for arg in names:
        hint = hints.get(arg)
        kind = _KINDS.get(hint if isinstance(hint, str) else getattr(hint, "__name__", None))
        properties[arg] = {"type": kind} if kind else {}
    schema = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return {"name": name, "description": doc, "inputSchema": schema}
