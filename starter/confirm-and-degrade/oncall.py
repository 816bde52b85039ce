"""Your file for the confirm-and-degrade lesson.

The on-call assistant's host builds every failed tool call with `tool_error`,
which hands two cases to functions of their own: `declined` (the engineer on
call said no to a change) and `unavailable` (a service is down for
maintenance). After a failure the harness asks `next_step` what to do:
"retry" runs the call again, which for a change means showing the engineer
the approval prompt again, and "report" hands the result to the model.

Grade it with `./workshop check confirm-and-degrade`; once it is green,
replay the tickets with `./workshop watch confirm-and-degrade`.
"""

from kit.api import Json

# Whatever did not work this time might work next time.
RETRYABLE = {"transport", "declined", "unavailable"}


def tool_error(category: str, message: str, change: "str | None" = None, fallback: "Json | None" = None) -> Json:
    """Build what the model gets for a tool call that did not succeed."""
    if category == "declined":
        return declined(change, message)
    if category == "unavailable":
        return unavailable(message, fallback)
    return {"is_error": True, "type": category, "retryable": category in RETRYABLE, "message": message}


def declined(change: str, message: str) -> Json:
    """The result of a change the engineer on call said no to."""
    # TODO(workshop): a no is an answer, not a fault. Give it a type of its
    # own, and make sure nothing invites the host to show the prompt again.
    return {"is_error": True, "type": "failed", "retryable": True, "message": message}


def unavailable(message: str, fallback: Json) -> Json:
    """The result of a call to a service that is down for maintenance."""
    # TODO(workshop): `message` is the gateway's raw text. Say in your own
    # words what is down and until when, and hand over what the service kept
    # (fallback: its cached figures, when they were taken, their age).
    return {"is_error": True, "type": "unavailable", "retryable": True, "message": message}


def next_step(result: Json) -> str:
    """After a failed call: "retry" runs it again, "report" hands it to the model."""
    # TODO(workshop): some failures must never be run again, whatever a flag says.
    if result.get("retryable") is True:
        return "retry"
    return "report"
