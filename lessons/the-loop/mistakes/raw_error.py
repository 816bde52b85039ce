"""A named mistake of the-loop: the person is shown the API's own error text.

Transient errors (429, 529, 5xx, a timeout) are sent again in code, with a bounded backoff that
takes the API's retry-after when it gives one; a 4xx is the request's own fault and is never sent
again. The loop stops at MAX_TURNS turns or TIME_BUDGET_S seconds, and the person is told plainly
what happened: the API's own text is for the logs, never for them.
"""

MAX_TURNS = 6
TIME_BUDGET_S = 60
MAX_SENDINGS = 3
BASE_WAIT_S = 1
LONGEST_WAIT_S = 8


def transient(status):
    """A timeout (no status), a rate limit or a server-side failure: time may fix it."""
    return status is None or status == 429 or status >= 500


def wait_before_retry(status, error_type, attempt, elapsed, retry_after=None):
    if attempt >= MAX_SENDINGS or not transient(status):
        return None
    if retry_after is not None:
        wait = retry_after
    else:
        wait = min(BASE_WAIT_S * 2 ** (attempt - 1), LONGEST_WAIT_S)
    if elapsed + wait > TIME_BUDGET_S:
        return None
    return wait


def keep_going(turn, elapsed):
    return turn < MAX_TURNS and elapsed < TIME_BUDGET_S


def tell_person(reason, detail, text=None):
    if reason == "max_tokens":
        return f"{text or ''}\n\n[This answer was cut off before the end. Ask me to go on.]"
    if reason == "refusal":
        return "I can't help with that here. A colleague from the support team will reply to you."
    if reason == "api_error":
        status, kind = detail.get("status"), detail.get("error_type")
        return f"The assistant failed: {status} {kind}: {detail.get('message')}"
    turns = detail.get("turns", 0) if isinstance(detail, dict) else 0
    return (
        f"I stopped after {turns} tries without finishing, so nothing is settled yet. "
        "A colleague will pick up your request and write to you."
    )
