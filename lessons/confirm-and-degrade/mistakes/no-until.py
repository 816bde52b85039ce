"""A half-finished file: the outage is reported in plain words and hands over the cached
figures, but never says until when the service is down."""

from kit.api import Json

# A reset connection on a read changed nothing: the same read may get through next time.
RETRYABLE = frozenset({"transport"})
# Results that are never run again, whatever their flag claims.
FINAL = frozenset({"user_declined", "unavailable"})


def tool_error(category: str, message: str, change: "str | None" = None, fallback: "Json | None" = None) -> Json:
    """Build what the model gets for a tool call that did not succeed."""
    if category == "declined":
        return declined(change, message)
    if category == "unavailable":
        return unavailable(message, fallback)
    return {"is_error": True, "type": category, "retryable": category in RETRYABLE, "message": message}


def declined(change: str, message: str) -> Json:
    """The result of a change the engineer on call said no to."""
    return {
        "is_error": True,
        "type": "user_declined",
        "retryable": False,
        "message": (
            f"The engineer on call declined {change}. Nothing was changed. "
            "Do not ask for the same change again; say what you would do instead, or ask them."
        ),
    }


def unavailable(message: str, fallback: Json) -> Json:
    """The result of a call to a service that is down for maintenance."""
    # The gateway's own text (`message`) names hosts and tickets: none of it goes to the model.
    fallback = fallback or {}
    service = fallback.get("service", "the")
    result = {
        "is_error": True,
        "type": "unavailable",
        "retryable": False,
        "message": (
            f"The {service} service is down for maintenance, so there are no live figures. "
            "Its last cached figures are attached with their time and age: use them only as old figures, "
            "or tell the engineers when live ones are back."
        ),
    }
    if fallback.get("figures") is not None:
        result["fallback"] = {k: fallback.get(k) for k in ("figures", "as_of", "age_minutes")}
    return result


def next_step(result: Json) -> str:
    """After a failed call: "retry" runs it again, "report" hands it to the model."""
    if result.get("type") in FINAL:
        # A no stays a no, and an outage lasts until its time: asking again changes neither.
        return "report"
    return "retry" if result.get("retryable") is True else "report"
