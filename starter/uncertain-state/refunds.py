"""Your file for the uncertain-state lesson.

Every failure the refund tools report is built by `fail`, and the harness asks
`next_step` what to do with each result: "done", "retry", "verify" or "report".
Grade it with `./workshop check uncertain-state`; once it is green, replay the
tickets with `./workshop watch uncertain-state`.
"""

from kit.api import Json

# Anything that did not answer in time gets another go.
RETRYABLE = {"transient", "uncertain"}


def fail(category: str, message: str, verify: "Json | None" = None) -> Json:
    """Build what a tool returns when a call does not succeed."""
    # TODO(workshop): "uncertain" is not a slow answer, it is a missing one:
    # the payment service may have paid already. Such a failure must never
    # invite a plain retry. When the tool says which read would settle the
    # question (`verify`), hand it on inside the error exactly as it came.
    if category == "empty":
        return {"refunds": [], "message": message}
    return {
        "isError": True,
        "error": {
            "errorCategory": category,
            "isRetryable": category in RETRYABLE,
            "message": message,
        },
    }


def next_step(result: Json) -> str:
    """Tell the harness what to do with one tool result."""
    # TODO(workshop): a result whose outcome is unknown needs its own answer,
    # "verify", so the harness looks before it pays again.
    error = result.get("error")
    if result.get("isError") is not True and error is None:
        return "done"
    if isinstance(error, dict) and error.get("isRetryable") is True:
        return "retry"
    return "report"
