"""Mistake: the sentences are right, but every failure is retried in code: a wrong call, a
service that is down, and a restart that stopped part way, which runs again."""

from kit.api import Json

READS = ("list_alerts", "list_deployments", "get_metrics")

# What each read fetches, in the engineer's words.
WHAT = {"list_alerts": "the open alerts", "list_deployments": "the deployment list", "get_metrics": "the live figures"}


def message(kind: str, facts: Json) -> str:
    """The text the model reads for a failed call. Never the raw text, a host, a token, SQL or
    an internal code: everything the model reads stays in its context and in the logs."""
    what = WHAT.get(facts["tool"], "the answer")
    if kind == "invalid":
        return invalid(facts)
    if kind == "unavailable":
        until = facts["until"]
        return (
            f"The {facts['service']} service is down for maintenance until {until}. Do not call it "
            f"again before then; tell the engineer it is back at {until}."
        )
    if kind == "partial":
        done, left = ", ".join(facts["done"]), ", ".join(facts["left"])
        return (
            f"The restart stopped part way: {done} restarted, {left} not. Do not run it again; "
            f"tell the engineer which pods are left."
        )
    if kind == "transport":
        return (
            f"The connection dropped before {what} came back. Nothing was changed, and reading again "
            f"is safe; if it keeps failing, tell the engineer it cannot be read right now."
        )
    if kind == "declined":
        return "The engineer declined this change, so nothing was changed. Do not ask for it again."
    # A crash, or a kind this file does not know: the service's fault, not the call's.
    return f"The service failed on its side while fetching {what}; the call was fine. Tell the engineer it cannot be read right now."


def invalid(facts: Json) -> str:
    """A wrong call, for the model to correct: the field, the value sent, and what would work."""
    field, value, valid = facts["field"], facts["value"], facts.get("valid")
    if isinstance(value, str):
        text = f'There is no {field} "{value}".'
    else:
        text = f"The value {value} is not allowed for {field}."
    nearest = facts.get("nearest")
    if nearest is not None:
        return f'{text} Did you mean "{nearest}"? Call again with {field} "{nearest}".'
    if isinstance(valid, str):
        return f"{text} Call again with {field} in the range {valid}."
    if valid:
        return f"{text} The valid values are {', '.join(valid[:6])}. Call again with one of them."
    return f"{text} Ask the engineer for the right {field}."


def retry_in_code(error: Json, tool: str, attempt: int) -> bool:
    """Every failure is tried again, until the harness's cap of 3 attempts."""
    return True


# ---- The host's side: you should not need to change anything below this line. ----------------

# The world's facts, in the order the lesson hands them to `failure` (its [failure] fields).
FACTS = ("field", "value", "valid", "nearest", "service", "until", "done", "left", "code", "host", "token", "sql")


def failure(kind: str, raw: str, tool: str, input: Json, *facts) -> Json:
    """What the model reads for a failed call: {"error": {"kind": ..., "message": ...}}."""
    known = {name: value for name, value in zip(FACTS, facts) if value is not None}
    text = message(kind, {"raw": raw, "tool": tool, "input": input, **known})
    return {"error": {"kind": kind, "message": text}}
