"""Your file for the messages-that-help lesson.

When a tool call fails, the on-call assistant's host calls `failure` (at the bottom, the host's
side) with what the world reported, and `failure` asks your `message` for the text the model
reads. After each failed attempt the host asks your `retry_in_code` whether to try the same call
again itself, before the model hears of it (3 attempts at most, whatever you answer).
Grade it with `./workshop check messages-that-help`; once it is green, replay the tickets with
`./workshop watch messages-that-help`.
"""

from kit.api import Json

# The tools that only read: running one of them twice changes nothing.
READS = ("list_alerts", "list_deployments", "get_metrics")


def message(kind: str, facts: Json) -> str:
    """The text the model reads for a failed call.

    `kind` is the world's word for the failure: "invalid" (the model's call had a bad value),
    "unavailable" (a service is down for maintenance), "partial" (a change stopped part way),
    "transport" (the connection dropped before an answer came) or "crash" (the service broke).
    `facts` holds only what the world knows about this failure:
      always        raw (the service's own text), tool, input (the call as the model made it)
      invalid       field, value (what was sent), valid (a list, or a range such as "1-8"),
                    and nearest (the closest valid value) when one is close
      unavailable   service, until (HH:MM it is back)
      partial       done, left (the pods restarted, and those not)
      partial, crash: code, host, token, sql, as the service reported them
      transport     host (the service whose connection dropped)
    """
    # TODO(workshop): this hands the model the service's own text: a 422 with a host in it, a
    # traceback with a token and SQL, a 503 with a ticket number. Write a sentence instead.
    return facts["raw"]


def retry_in_code(error: Json, tool: str, attempt: int) -> bool:
    """Whether the host tries the call again itself, before the model hears of the failure.

    `error` is what failure() built: {"kind": ..., "message": ...}; `attempt` counts from 1.
    """
    # TODO(workshop): nothing is retried in code, so even a dropped read reaches the model.
    return False


# ---- The host's side: you should not need to change anything below this line. ----------------

# The world's facts, in the order the lesson hands them to `failure` (its [failure] fields).
FACTS = ("field", "value", "valid", "nearest", "service", "until", "done", "left", "code", "host", "token", "sql")


def failure(kind: str, raw: str, tool: str, input: Json, *facts) -> Json:
    """What the model reads for a failed call: {"error": {"kind": ..., "message": ...}}."""
    known = {name: value for name, value in zip(FACTS, facts) if value is not None}
    text = message(kind, {"raw": raw, "tool": tool, "input": input, **known})
    return {"error": {"kind": kind, "message": text}}
