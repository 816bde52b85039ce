"""A named mistake of the-loop: the loop retries, and so does the client it was given
(max_retries left at 2).

One layer of retries, the loop's own: the client is told not to retry (max_retries=0), and a
429, 529, 5xx or timeout is sent again with a bounded backoff that takes the API's retry-after
when it gives one; a 4xx is the request's own fault and is never sent again. The loop stops at
MAX_TURNS turns or TIME_BUDGET_S seconds, and the person is told plainly what happened: the
API's own text is for the logs, never for them. The tool is strict, with a typed, described
parameter, so the model's calls fit it.

Runs unchanged against the real SDK: answer(anthropic.Anthropic(), time, run_tool, question).
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
        "description": "Refund one order of the current customer, in full, to the card it was "
        "paid with. Returns what was refunded, or why not.",
        "strict": True,
        "input_schema": {
            "type": "object",
            "properties": {
                "order_id": {
                    "type": "string",
                    "description": 'The order\'s four digits as a string, such as "0871".',
                }
            },
            "required": ["order_id"],
            "additionalProperties": False,
        },
    }
]

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
        return (
            "Sorry, the assistant could not finish because of a problem on our side. "
            "Nothing was changed on your order; please try again in a few minutes."
        )
    turns = detail.get("turns", 0) if isinstance(detail, dict) else 0
    return (
        f"I stopped after {turns} tries without finishing, so nothing is settled yet. "
        "A colleague will pick up your request and write to you."
    )


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
