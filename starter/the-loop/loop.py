"""The host's decisions in Lumen Supply's refund loop. The loop itself is the workshop's: it sends
each request, runs the tools the model calls, and asks these three functions what to do.

The model never sees anything these functions decide: an API error, a wait, a stop and what
the person is told all stay on the host's side.
"""

MAX_TURNS = 6  # model turns in one run, at most
TIME_BUDGET_S = 60  # seconds one run may take, at most
MAX_SENDINGS = 3  # sendings of one request, at most
BASE_WAIT_S = 1  # the first backoff; it doubles with every attempt


def wait_before_retry(status, error_type, attempt, elapsed, retry_after=None):
    """The API answered a request with an error (status None: no answer in time). Return the
    seconds to wait before sending the same request again, or None to stop the run."""
    return None


def keep_going(turn, elapsed):
    """Asked before each model turn after the first: True to ask the model again."""
    return True


def tell_person(reason, detail, text=None):
    """The words shown to the person when the run ends without the model's final answer."""
    return f"Error: {reason} {detail} {text}"
