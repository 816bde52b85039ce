"""Your file for the structured-errors lesson.

Every failure the refund tools report is built by `fail`, and the harness asks
`should_retry` whether to try a failed call again. Grade it with
`./workshop check structured-errors`; once it is green, replay the tickets with
`./workshop watch structured-errors`.
"""

from kit.api import Json


def fail(category: str, message: str) -> Json:
    """Build what a tool returns when a call does not succeed."""
    # TODO(workshop): a failure should carry a flag the harness can read
    # ("isError"), and an "error" object with its category, whether a retry
    # could help, and the tool's own message. The category "empty" means the
    # search found nothing: that is an answer, so it is no failure at all.
    return {"error": {"message": "Error"}}


def should_retry(error: Json) -> bool:
    """Decide whether the harness tries the same call again."""
    # TODO(workshop): a failure earns another attempt only when its error
    # object says one could succeed. Everything else is reported, not repeated.
    return True
