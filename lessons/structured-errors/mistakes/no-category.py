"""structured-errors, stopped half way: every failure is flagged, says whether a retry can help
and keeps the tool's message, but names no category. The harness retries well; the model has
to guess the kind of failure from the words, and a subagent has no category to report by.

Replay it with `./workshop watch structured-errors --code no-category`."""

from kit.api import Json


def fail(category: str, message: str) -> Json:
    if category == "empty":
        return {"orders": [], "message": message}
    # The missing step: the category fail was given is dropped.
    return {"isError": True, "error": {"isRetryable": category == "transient", "message": message}}


def should_retry(error: Json) -> bool:
    return error.get("isRetryable") is True
