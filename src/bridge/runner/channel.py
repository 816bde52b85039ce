# The runner, part 2 of 4 (see start.py, which says how the four parts make one program): the
# channel to the workshop, what the learner prints, and JSON out.

# A pipe's whole capacity (Linux's default) at a time: what the workshop wrote at once can be
# looked at whole before the fork (see `_world_asked`).
_PIPE_SIZE = 65536
# The channel, as two descriptors read and written with `posix` alone: a file object costs each
# request and answer a pass through `io`, and the learner's spare (see `_fork_a_spare`) twice as
# long to close the first runner's and open its own as to load a file. [requests, answers]
_CHANNEL = [posix.dup(0), posix.dup(1)]
# Bytes read from the requests descriptor and not taken yet.
_pending = bytearray()
_null = posix.open(DEVNULL, posix.O_RDONLY)
posix.dup2(_null, 0)
posix.close(_null)
posix.dup2(2, 1)

_state = {"written": 0, "dropped": 0, "full": False}
# The learner's file as read (its bytes, then its lines once a frame's line is quoted).
_SOURCE = []


def _source_lines():
    if _SOURCE and isinstance(_SOURCE[0], bytes):
        _SOURCE[:] = _SOURCE[0].decode("utf-8", "replace").splitlines()
    return _SOURCE


class _Captured:
    """A text stream onto the capture pipe that stops writing after CAP bytes a call (the workshop
    caps the pipe too; this saves the system calls)."""

    encoding = "utf-8"
    errors = "backslashreplace"

    def __init__(self, fd):
        self._fd = fd
        self.buffer = _CapturedBytes(self)

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self.write_bytes(text.encode("utf-8", "backslashreplace"))
        return len(text)

    def write_bytes(self, data):
        # Once the cap is reached, only count: no system calls for output nobody will see.
        if not _state["full"]:
            room = CAP - _state["written"]
            if room > 0:
                part = memoryview(data)[:room]
                while part:
                    part = part[posix.write(self._fd, part):]
                _state["written"] += min(room, len(data))
                if len(data) < room:
                    return
                data = data[room:]
            _state["full"] = True
        _state["dropped"] += len(data)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def flush(self):
        pass

    def isatty(self):
        return False

    def fileno(self):
        return self._fd

    def writable(self):
        return True

    def readable(self):
        return False

    def seekable(self):
        return False

    @property
    def closed(self):
        return False


class _CapturedBytes:
    """`sys.stdout.buffer`: bytes onto the same capped capture."""

    def __init__(self, text):
        self._text = text

    def write(self, data):
        data = bytes(data)
        self._text.write_bytes(data)
        return len(data)

    def flush(self):
        pass

    def fileno(self):
        return self._text.fileno()


sys.stdout = sys.__stdout__ = _Captured(1)
sys.stderr = sys.__stderr__ = _Captured(2)
sys.stdin = sys.__stdin__ = open(DEVNULL, "r")

# JSON out, by hand, in one pass that also refuses what JSON cannot carry.
_ESCAPES = {i: f"\\u{i:04x}" for i in range(32)}
_ESCAPES.update({ord('"'): '\\"', ord("\\"): "\\\\", 10: "\\n", 13: "\\r", 9: "\\t"})


class _NotJson(Exception):
    """Why a value cannot travel; `path` is filled in on the way out (`.error`, `[2]`)."""

    def __init__(self, why):
        super().__init__(why)
        self.why = why
        self.path = []

    def describe(self, root="result"):
        return root + "".join(reversed(self.path)) + " " + self.why


def _quote(text):
    # Most strings are plain ASCII with nothing to escape (DEL counts as not printable).
    if text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
        return '"' + text + '"'
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise _NotJson(f"is a string with a lone surrogate, which is not valid text: {_repr(text)}") from None
    return '"' + text.translate(_ESCAPES) + '"'


class _TooDeep(Exception):
    """The value nests deeper than MAX_DEPTH."""


def _encode(value, depth=0):
    # The common exact types first: each answer passes through here once per value in it.
    kind = type(value)
    if kind is str:
        return _quote(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return _quote(value)
    if isinstance(value, int):
        if value.bit_length() > 1000:
            raise _NotJson(f"is an integer with {value.bit_length()} bits, too large to carry")
        return int.__repr__(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise _NotJson(f"is {value!r}, which JSON cannot hold")
        return float.__repr__(value)
    if isinstance(value, (dict, list, tuple)) and depth >= MAX_DEPTH:
        raise _TooDeep()
    if isinstance(value, dict):
        items = []
        for key, item in value.items():
            if not isinstance(key, str):
                raise _NotJson(f"has a key that is not a string: {_repr(key)}")
            try:
                quoted = _quote(key)
            except _NotJson as exc:
                exc.path.append(" key")
                raise
            try:
                items.append(quoted + ":" + _encode(item, depth + 1))
            except _NotJson as exc:
                exc.path.append(f".{_text(key)}")
                raise
        return "{" + ",".join(items) + "}"
    if isinstance(value, (list, tuple)):
        items = []
        for i, item in enumerate(value):
            try:
                items.append(_encode(item, depth + 1))
            except _NotJson as exc:
                exc.path.append(f"[{i}]")
                raise
        return "[" + ",".join(items) + "]"
    raise _NotJson(f"is a {type(value).__name__}, which is not JSON: {_repr(value)}")


# Requests in: the workshop writes each as its length (4 bytes, little-endian) and the value in
# `marshal`'s format, which the interpreter reads with a module built into it (JSON would cost a
# start the loading of `_json`, an extension module). None: the channel closed.
def _request():
    _reap_middle()
    head = _take(4)
    if head is None:
        return None
    body = _take(int.from_bytes(head, "little"))
    return None if body is None else marshal.loads(body)


def _take(size):
    """The next `size` bytes of the requests, waiting for them; None when the channel closes first."""
    while len(_pending) < size:
        more = posix.read(_CHANNEL[0], _PIPE_SIZE)
        if not more:
            return None
        _pending.extend(more)
    taken = bytes(_pending[:size])
    del _pending[:size]
    return taken


def _send(message):
    _write(_encode(message))


def _write(encoded):
    _quit_if_forked()
    data = memoryview(encoded.encode("utf-8", "replace") + b"\n")
    while data:
        data = data[posix.write(_CHANNEL[1], data) :]


def _quit_if_forked():
    """A process the learner forked, returning into the runner, ends here, quietly: no answer,
    no exit handlers, no flushing of buffers it shares with its parent."""
    if posix.getpid() != _PID:
        posix._exit(0)


def _take_dropped():
    """Bytes this call's output had past the cap; the next call starts afresh."""
    dropped = _state["dropped"]
    _state["written"] = 0
    _state["dropped"] = 0
    _state["full"] = False
    return dropped


def _text(text):
    """Text that can travel: lone surrogates become escapes."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _repr(value, limit=400):
    try:
        text = repr(value)
    except BaseException as exc:
        text = f"<a {type(value).__name__} whose repr() raised {type(exc).__name__}>"
    text = _text(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _learner_frames(tb):
    """The frames of a traceback that are in the learner's file, innermost last. Walked by hand:
    the `traceback` module costs start-up time, and a learner's file could be named like it."""
    frames = []
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename == LEARNER:
            line = tb.tb_lineno or 0
            lines = _source_lines()
            text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
            frames.append({"line": line, "function": _text(code.co_name), "code": _text(text)})
        tb = tb.tb_next
    return frames


def _describe(exc):
    name = type(exc).__name__
    try:
        text = repr(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
    except BaseException:
        text = ""
    text = _text(text)
    return f"{name}: {text}" if text else name


def _exit_message(exc):
    code = exc.code
    if code is None:
        code = 0
    return f"called sys.exit({_repr(code, 200)})"


def _install_kit():
    """`from kit.api import Json` works with nothing installed."""
    module = type(sys)
    kit = module("kit")
    kit.__path__ = []
    api = module("kit.api")
    api.Json = dict
    kit.api = api
    sys.modules["kit"] = kit
    sys.modules["kit.api"] = api
    # kit.mcp (kit_mcp.py, put before the runner as _KIT_MCP) runs at its first use only.
    mcp = kit.mcp = sys.modules["kit.mcp"] = module("kit.mcp")

    def __getattr__(name):
        mcp.__dict__.pop("__getattr__", None)
        exec(compile(_KIT_MCP, "kit/mcp.py", "exec"), mcp.__dict__)
        return getattr(mcp, name)

    mcp.__getattr__ = __getattr__


# The stand-in modules a function spec may name as `kit:function` (see `_call`): the module's
# name, and its source (put before the runner by runner.rs).
_STAND_INS = {"anthropic": "_KIT_ANTHROPIC"}


def _install_stand_ins():
    """Put the stand-in of each kit the lesson's functions name (`anthropic:answer`) in
    sys.modules under its real name, so the learner's `import anthropic` finds it. Only for such
    a lesson: elsewhere an installed SDK of that name is imported as usual."""
    for spec in FUNCTIONS:
        kit = spec.partition("=")[0].partition(":")[0] if ":" in spec else None
        if kit in _STAND_INS and kit not in sys.modules:
            module = type(sys)(kit)
            module.__file__ = f"kit/{kit}.py"
            sys.modules[kit] = module
            exec(compile(globals()[_STAND_INS[kit]], module.__file__, "exec"), module.__dict__)
