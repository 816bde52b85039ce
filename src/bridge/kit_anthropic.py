"""The stand-in `anthropic` module a lesson's loop imports in the workshop, with nothing installed.

The same names as the official Python SDK (anthropic 2.x, read from its source: `_exceptions.py`,
`_error_classes.py` and the retry policy of `_base_client.py`), so a loop written against it runs
against the real SDK unchanged:
- the errors: `APIError` > `APIStatusError` (`.status_code`, `.response.headers`, `.body`,
  `.message`) > `BadRequestError` (400), `AuthenticationError` (401), `PermissionDeniedError`
  (403), `NotFoundError` (404), `RequestTimeoutError` (408), `ConflictError` (409),
  `ContentTooLargeError` (413), `UnprocessableEntityError` (422), `RateLimitError` (429),
  `InternalServerError` (any other 5xx) > `ServiceUnavailableError` (503), `OverloadedError`
  (529); `APIConnectionError` > `APITimeoutError` for a request with no answer in time;
- the client's own retries: `max_retries` (2 unless set, `with_options(max_retries=...)` for a
  copy) sends a 408, 409, 429, 5xx or timed-out request again after the wait the answer's
  `retry-after-ms` or `retry-after` header asks for, else 0.5 s doubled each time up to 8 s (the
  SDK takes up to a quarter off at random; the stand-in waits the whole, so a replay is the same
  every time);
- the response: `.stop_reason`, `.content` blocks with `.type`, `.text`, `.id`, `.name`,
  `.input`, and `model_dump()`; a block goes back into `messages` as it is.

Workshop-only: the loop is handed a client, a clock (`monotonic()`, `sleep(seconds)`) and
`run_tool(name, input)`, which give the recorded answers. A bridge call cannot wait on the
workshop mid-call, so the workshop runs the loop from the start again each time it reaches a
request (or tool call) not answered yet: the answers so far are given again, in order, and the
first one missing pauses the loop by raising `_Pause`, a BaseException the loop must let through.
"""

_NOT_GIVEN = object()
_RETRIED_STATUSES = (408, 409, 429)
_INITIAL_RETRY_DELAY = 0.5
_MAX_RETRY_DELAY = 8.0
_CYCLED = 60
# Options of `messages.create` that are the client's, not the request's.
_CLIENT_OPTIONS = ("extra_headers", "extra_query", "extra_body", "timeout")


class AnthropicError(Exception):
    pass


class APIError(AnthropicError):
    def __init__(self, message, request=None, *, body=None):
        super().__init__(message)
        self.message = message
        self.request = request
        self.body = body


class APIConnectionError(APIError):
    def __init__(self, *, message="Connection error.", request=None):
        super().__init__(message, request, body=None)


class APITimeoutError(APIConnectionError):
    def __init__(self, request=None, *, message="Request timed out or interrupted."):
        super().__init__(message=message, request=request)


class _Headers(dict):
    """Response headers: looked up without regard to case, as httpx's are."""

    def get(self, key, default=None):
        return super().get(str(key).lower(), default)

    def __getitem__(self, key):
        return super().__getitem__(str(key).lower())

    def __contains__(self, key):
        return super().__contains__(str(key).lower())


class _Response:
    """What an error carries of the HTTP answer: its status and headers."""

    def __init__(self, status_code, headers):
        self.status_code = status_code
        self.headers = _Headers({k.lower(): v for k, v in headers.items()})


class APIStatusError(APIError):
    """The API answered with a 4xx or 5xx status."""

    def __init__(self, message, *, response, body):
        super().__init__(message, None, body=body)
        self.response = response
        self.status_code = response.status_code
        self.request_id = response.headers.get("request-id")
        error = body.get("error") if isinstance(body, dict) else None
        error = error if isinstance(error, dict) else {}
        self.api_message = error.get("message")
        self.type = error.get("type")


def _status_class(name, status, base=None):
    return type(name, (base or APIStatusError,), {"status_code": status})


BadRequestError = _status_class("BadRequestError", 400)
AuthenticationError = _status_class("AuthenticationError", 401)
PermissionDeniedError = _status_class("PermissionDeniedError", 403)
NotFoundError = _status_class("NotFoundError", 404)
RequestTimeoutError = _status_class("RequestTimeoutError", 408)
ConflictError = _status_class("ConflictError", 409)
ContentTooLargeError = RequestTooLargeError = _status_class("ContentTooLargeError", 413)
UnprocessableEntityError = _status_class("UnprocessableEntityError", 422)
RateLimitError = _status_class("RateLimitError", 429)


class InternalServerError(APIStatusError):
    pass


ServiceUnavailableError = _status_class("ServiceUnavailableError", 503, InternalServerError)
OverloadedError = _status_class("OverloadedError", 529, InternalServerError)

_BY_STATUS = {
    c.status_code: c
    for c in (
        BadRequestError, AuthenticationError, PermissionDeniedError, NotFoundError,
        RequestTimeoutError, ConflictError, ContentTooLargeError, UnprocessableEntityError,
        RateLimitError, ServiceUnavailableError, OverloadedError,
    )
}


class _Pause(BaseException):
    """The loop reached a request (or tool call) the workshop has not answered yet. Not an
    Exception: `except Exception` lets it through, as it must."""

    def __init__(self, step):
        super().__init__("the workshop pauses the loop here to answer this request")
        self.step = step


class _Replay:
    """One run of the loop: the answers given so far, what it did, and the replay's clock."""

    def __init__(self, spec):
        spec = spec if isinstance(spec, dict) else {}
        self.answers = list(spec.get("answers") or [])
        # A check's answers may go on in a cycle (`cycle`: given in turn, over and over), up to
        # CYCLED steps in all, so a loop that never stops still ends.
        cycle = list(spec.get("cycle") or [])
        while cycle and len(self.answers) < _CYCLED:
            self.answers.extend(cycle[: _CYCLED - len(self.answers)])
        self.steps = []
        self.used = 0
        self.now = 0.0
        self.paused = None
        self.diverged = None
        self.swallowed = False

    def ask(self, step):
        """The answer to this step (a sending or a tool call), or a pause for it."""
        self.steps.append(step)
        if self.paused is not None:
            # The loop caught the pause and went on: nothing it does now is answered.
            self.swallowed = True
            raise self.paused
        if self.used >= len(self.answers):
            self.paused = _Pause(step)
            raise self.paused
        answer = self.answers[self.used]
        self.used += 1
        before = answer.get("asked") if isinstance(answer, dict) else None
        if before is not None and before != step:
            self.diverged = {"index": self.used - 1, "before": before, "now": step}
            self.paused = _Pause(step)
            raise self.paused
        self.now += float(answer.get("took_ms") or 0) / 1000.0
        return answer

    def sleep(self, seconds, by):
        seconds = float(seconds)
        if seconds != seconds or seconds < 0:
            raise ValueError("sleep length must be non-negative")
        self.steps.append({"sleep": seconds, "by": by})
        self.now += seconds

    def ended(self):
        """How a paused run ended: on a changed request, with the pause caught, or paused."""
        if self.diverged:
            return "diverged"
        return "swallowed" if self.swallowed else "asked"

    def record(self, state, value=None):
        """What the run did. `steps` in short (the request itself only in `asked`): a sending,
        a tool call, a wait. `sendings`: each request sent, as what answered it (a status, "reply",
        "timeout", or None for the one not answered yet)."""
        steps, sendings, asked = [], [], 0
        for step in self.steps:
            if "sleep" not in step:
                asked += 1
            if "send" in step:
                answer = self.answers[asked - 1] if asked <= self.used else {}
                error = answer.get("error") or {}
                got = "reply" if "response" in answer else error.get("status")
                got = "timeout" if answer.get("timeout") else got
                sendings.append(got)
                steps.append({"send": got})
            elif "tool" in step:
                steps.append({"tool": step["tool"]})
            else:
                steps.append(step)
        return {
            "state": state,
            "value": value,
            "sendings": sendings,
            "clock": self.now,
            "asked": self.paused.step if self.paused is not None else None,
            "diverged": self.diverged,
            "steps": steps,
        }


class _Clock:
    """The replay's clock: it moves by each answer's recorded time and by the loop's sleeps,
    never by the machine's. Pass the `time` module in its place outside the workshop."""

    def __init__(self, replay):
        self._replay = replay

    def monotonic(self):
        return self._replay.now

    time = perf_counter = monotonic

    def sleep(self, seconds):
        self._replay.sleep(seconds, "loop")


def _plain(value):
    """A request's value as JSON: the SDK's blocks (anything with `model_dump`) as dicts."""
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, type):
        value = dump()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items() if v is not _NOT_GIVEN}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


class _Block:
    """A content block of a response: its fields as attributes, and `model_dump()` to send it
    back. Only the fields the API sent are there (`.text` on a text block, `.input` on a
    tool_use)."""

    def __init__(self, fields):
        self._fields = dict(fields)
        for key, value in self._fields.items():
            setattr(self, key, _wrapped(value) if key == "content" else value)

    def model_dump(self, **_options):
        return dict(self._fields)

    to_dict = model_dump

    def __repr__(self):
        shown = ", ".join(f"{k}={v!r}" for k, v in self._fields.items())
        return f"{type(self).__name__}({shown})"


def _wrapped(value):
    if isinstance(value, list):
        return [_Block(v) if isinstance(v, dict) else v for v in value]
    return value


class Message(_Block):
    """A response of the Messages API."""

    def __init__(self, fields):
        super().__init__(fields)
        for key in ("stop_reason", "stop_sequence", "usage"):
            if not hasattr(self, key):
                setattr(self, key, None)
        if not hasattr(self, "content"):
            self.content = []


def _error_of(answer):
    """The SDK's exception for an answer that is an error or a timeout."""
    if answer.get("timeout"):
        return APITimeoutError()
    error = answer.get("error") or {}
    status = int(error.get("status") or 500)
    kind = error.get("type") or "api_error"
    text = error.get("message") or ""
    body = {"type": "error", "error": {"type": kind, "message": text}}
    headers = {}
    if error.get("retry_after") is not None:
        headers["retry-after"] = str(error["retry_after"])
    cls = _BY_STATUS.get(status) or (InternalServerError if status >= 500 else APIStatusError)
    message = f"Error code: {status} - {body}"
    return cls(message, response=_Response(status, headers), body=body)


def _should_retry(error):
    if isinstance(error, APIConnectionError):
        return True
    if not isinstance(error, APIStatusError):
        return False
    should = error.response.headers.get("x-should-retry")
    if should in ("true", "false"):
        return should == "true"
    return error.status_code in _RETRIED_STATUSES or error.status_code >= 500


def _retry_wait(error, retries_taken):
    headers = getattr(getattr(error, "response", None), "headers", None) or _Headers()
    for key, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        try:
            asked = float(headers.get(key)) / scale
        except (TypeError, ValueError):
            continue
        if asked > 0:
            return asked
        break
    return min(_INITIAL_RETRY_DELAY * 2.0**retries_taken, _MAX_RETRY_DELAY)


class _Messages:
    def __init__(self, client):
        self._client = client

    def create(self, **params):
        replay = self._client._replay
        if replay is None:
            # Not an APIError: a loop must not take this for the API's answer and retry it.
            raise RuntimeError(
                "this client was made by the file, and the workshop's stand-in answers only the "
                "client your loop is given: use that one (outside the workshop, pass your own "
                "anthropic.Anthropic())"
            )
        body = _plain({k: v for k, v in params.items() if k not in _CLIENT_OPTIONS})
        retries = self._client.max_retries
        for taken in range(retries + 1):
            answer = replay.ask({"send": body})
            if "response" in answer:
                return Message(answer["response"])
            error = _error_of(answer)
            if taken < retries and _should_retry(error):
                replay.sleep(_retry_wait(error, taken), "client")
                continue
            raise error


class Anthropic:
    """The client: `messages.create(...)` answered from the replay the workshop runs."""

    def __init__(self, *, api_key=None, base_url=None, max_retries=2, timeout=None, **_rest):
        if not isinstance(max_retries, int) or max_retries < 0:
            raise ValueError(f"max_retries must be a whole number, 0 or more: not {max_retries!r}")
        self.api_key = api_key
        self.base_url = base_url
        self.max_retries = max_retries
        self.timeout = timeout
        self._replay = None
        self.messages = _Messages(self)

    def with_options(self, *, max_retries=None, timeout=None, **_rest):
        copy = Anthropic(
            api_key=self.api_key,
            base_url=self.base_url,
            max_retries=self.max_retries if max_retries is None else max_retries,
            timeout=self.timeout if timeout is None else timeout,
        )
        copy._replay = self._replay
        return copy

    copy = with_options


Client = Anthropic
DEFAULT_MAX_RETRIES = 2
NOT_GIVEN = _NOT_GIVEN


def _workshop_call(function, args):
    """Run the loop `function(client, clock, run_tool, *rest)` with the answers of `args[0]`,
    and say what it did: returned, paused at a step not answered yet, caught the pause, or sent
    other requests than it did before."""
    replay = _Replay(args[0] if args else None)
    client = Anthropic(api_key="workshop-replay")
    client._replay = replay

    def run_tool(name, input):
        answer = replay.ask({"tool": name, "input": _plain(input)})
        result = answer.get("result") if isinstance(answer, dict) else None
        result = result if isinstance(result, dict) else {}
        return {"content": result.get("content", ""), "is_error": bool(result.get("is_error"))}

    try:
        value = function(client, _Clock(replay), run_tool, *args[1:])
    except _Pause as pause:
        if pause is not replay.paused:
            raise
        return replay.record(replay.ended())
    except BaseException:
        if replay.paused is None:
            raise
        replay.swallowed = True
        return replay.record(replay.ended())
    if replay.paused is not None:
        replay.swallowed = True
        return replay.record(replay.ended(), value)
    return replay.record("returned", value)
