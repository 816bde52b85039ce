"""Reference solution: each failure says its category, whether to retry, and why."""

from kit.api import Json

# Only a fault that can clear by itself is worth another attempt.
RETRYABLE_CATEGORIES = frozenset({"transient"})


def fail(category: str, message: str) -> Json:
    """Build what a tool returns when a call does not succeed."""
    if category == "empty":
        # Nothing found is a valid answer: no error, just an empty list.
        return {"orders": [], "message": message}
    return {
        "isError": True,
        "error": {
            "errorCategory": category,
            "isRetryable": category in RETRYABLE_CATEGORIES,
            "message": message,
        },
    }


def should_retry(error: Json) -> bool:
    """Decide whether the harness tries the same call again."""
    # Only when the error itself says a retry can help.
    return error.get("isRetryable") is True
