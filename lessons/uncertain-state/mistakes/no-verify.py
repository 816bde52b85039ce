"""uncertain-state, stopped half way: uncertain is no longer retryable and next_step asks for a
read, but fail never passes the read on. The harness is told to verify and has nothing to look
at, so it reports the unknown, and the model can only say what is and is not known.

Replay it with `./workshop watch uncertain-state --code no-verify`."""

from kit.api import Json


def fail(category: str, message: str, verify: "Json | None" = None) -> Json:
    if category == "empty":
        return {"refunds": [], "message": message}
    # The missing step: `verify` arrives here and goes no further.
    error = {"errorCategory": category, "isRetryable": category == "transient", "message": message}
    return {"isError": True, "error": error}


def next_step(result: Json) -> str:
    error = result.get("error")
    if result.get("isError") is not True and error is None:
        return "done"
    error = error if isinstance(error, dict) else {}
    if error.get("errorCategory") == "uncertain":
        return "verify"
    if error.get("isRetryable") is True:
        return "retry"
    return "report"
