"""Reference solution: a refund whose outcome is unknown is checked, never sent twice blindly."""

from kit.api import Json

# Only a fault that surely left nothing behind is worth repeating as it was.
RETRYABLE_CATEGORIES = frozenset({"transient"})


def fail(category: str, message: str, verify: "Json | None" = None) -> Json:
    """Build what a tool returns when a call does not succeed."""
    if category == "empty":
        # The lookup worked and found no refund: that is an answer, not a failure.
        return {"refunds": [], "message": message}
    error = {
        "errorCategory": category,
        "isRetryable": category in RETRYABLE_CATEGORIES,
        "message": message,
    }
    if verify is not None:
        # The read that settles the question, exactly as the tool named it.
        error["verify"] = verify
    return {"isError": True, "error": error}


def next_step(result: Json) -> str:
    """Tell the harness what to do with one tool result."""
    error = result.get("error")
    if result.get("isError") is not True and error is None:
        return "done"
    error = error if isinstance(error, dict) else {}
    if error.get("errorCategory") == "uncertain":
        # The money may already have moved: look before acting, whatever a flag claims.
        return "verify"
    if error.get("isRetryable") is True:
        return "retry"
    return "report"
