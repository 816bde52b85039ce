"""Mistake: every failure gets a clean sentence of its own, with nothing internal in it, but no
sentence names what the model or the engineer could act on: not the value that was wrong or the
one that exists, not when a service is back, not which pods were restarted."""

from kit.api import Json

READS = ("list_alerts", "list_deployments", "get_metrics")


def message(kind: str, facts: Json) -> str:
    if kind == "invalid":
        return "That call was not valid. Check the arguments and try again."
    if kind == "unavailable":
        return f"The {facts['service']} service is unavailable right now."
    if kind == "partial":
        return "The restart did not complete."
    if kind == "transport":
        return "The service did not answer. Try again later."
    return "Something went wrong on the service's side."


def retry_in_code(error: Json, tool: str, attempt: int) -> bool:
    return error.get("kind") == "transport" and tool in READS


# ---- The host's side: you should not need to change anything below this line. ----------------

# The world's facts, in the order the lesson hands them to `failure` (its [failure] fields).
FACTS = ("field", "value", "valid", "nearest", "service", "until", "done", "left", "code", "host", "token", "sql")


def failure(kind: str, raw: str, tool: str, input: Json, *facts) -> Json:
    """What the model reads for a failed call: {"error": {"kind": ..., "message": ...}}."""
    known = {name: value for name, value in zip(FACTS, facts) if value is not None}
    text = message(kind, {"raw": raw, "tool": tool, "input": input, **known})
    return {"error": {"kind": kind, "message": text}}
