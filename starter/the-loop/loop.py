"""Lumen Supply's refund loop, as it stands: it works on a good day.

`answer` is the whole loop: it sends the conversation with `client.messages.create(...)`, runs
the tools the model calls with `run_tool`, and returns the words the person is shown. In the
workshop the client, the clock and run_tool are the replay's (the clock never waits for real);
against the real SDK, the same file runs as answer(anthropic.Anthropic(), time, run_tool, text).

What is missing is everything a bad day needs: when to send a request again, when to stop asking
the model, what the person is told, and a tool the model cannot call wrong.
"""

import anthropic

MODEL = "claude-haiku-4-5"
MAX_TOKENS = 512
SYSTEM = (
    "You are the refund assistant of Lumen Supply, an online electronics shop. Refund what the "
    "customer asks for with the tools you are given, and tell them plainly what happened."
)
TOOLS = [
    {
        "name": "process_refund",
        "description": "Refund an order.",
        "input_schema": {
            "type": "object",
            "properties": {"order_id": {"description": "The order."}},
        },
    }
]

MAX_TURNS = 6  # model turns in one run, at most
TIME_BUDGET_S = 60  # seconds one run may take, at most
MAX_SENDINGS = 3  # sendings of one request, at most
BASE_WAIT_S = 1  # the first backoff; it doubles with every attempt
LONGEST_WAIT_S = 8  # no backoff longer than this


def wait_before_retry(status, error_type, attempt, elapsed, retry_after=None):
    """The API answered a request with an error (status None: no answer in time). Return the
    seconds to wait before sending the same request again, or None to give up."""
    return None


def keep_going(turn, elapsed):
    """Asked before each model turn after the first: True to ask the model again."""
    return True


def tell_person(reason, detail, text=None):
    """The words shown to the person when the run ends without the model's final answer."""
    return f"Error: {reason} {detail} {text}"


def what_failed(error):
    """The status, type, message and retry-after of an API error, as the decisions take them."""
    status = getattr(error, "status_code", None)
    body = getattr(error, "body", None)
    details = body.get("error") if isinstance(body, dict) else None
    details = details if isinstance(details, dict) else {}
    headers = getattr(getattr(error, "response", None), "headers", None) or {}
    try:
        retry_after = float(headers.get("retry-after"))
    except (TypeError, ValueError):
        retry_after = None
    return {
        "status": status,
        "error_type": details.get("type") or ("timeout" if status is None else "api_error"),
        "message": details.get("message") or str(error),
        "retry_after": retry_after,
    }


def send(client, clock, started, messages):
    """One request, sent again after a wait while wait_before_retry says so."""
    attempt = 0
    while True:
        attempt += 1
        try:
            return client.messages.create(
                model=MODEL, max_tokens=MAX_TOKENS, system=SYSTEM, tools=TOOLS, messages=messages
            )
        except (anthropic.APIStatusError, anthropic.APIConnectionError) as error:
            failed = what_failed(error)
            elapsed = clock.monotonic() - started
            wait = wait_before_retry(
                failed["status"], failed["error_type"], attempt, elapsed, failed["retry_after"]
            )
            if wait is None:
                raise
            clock.sleep(wait)


def answer(client, clock, run_tool, question):
    """Ask the model about the customer's message, run the tools it calls, and return the words
    the person is shown."""
    started = clock.monotonic()
    messages = [{"role": "user", "content": question}]
    turns = 0
    while True:
        elapsed = clock.monotonic() - started
        if turns and not keep_going(turns, elapsed):
            return tell_person("code", {"turns": turns, "elapsed": elapsed})
        try:
            response = send(client, clock, started, messages)
        except (anthropic.APIStatusError, anthropic.APIConnectionError) as error:
            return tell_person("api_error", what_failed(error))
        turns += 1
        text = "".join(block.text for block in response.content if block.type == "text")
        if response.stop_reason in ("max_tokens", "refusal"):
            elapsed = clock.monotonic() - started
            return tell_person(response.stop_reason, {"turns": turns, "elapsed": elapsed}, text)
        if response.stop_reason != "tool_use":
            return text
        messages.append({"role": "assistant", "content": response.content})
        results = []
        for block in response.content:
            if block.type == "tool_use":
                outcome = run_tool(block.name, block.input)
                results.append({"type": "tool_result", "tool_use_id": block.id, **outcome})
        messages.append({"role": "user", "content": results})
