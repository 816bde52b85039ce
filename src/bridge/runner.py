# The Python side of the workshop bridge. Run as
#   python -I -c <this> <learner file, or - for a spare> <output cap> <answer limit> <function>...
# or imported under the same arguments from a cached copy (see `runner_code` in mod.rs).
#
# Requests arrive as JSON lines on the original stdin and answers leave on the original stdout.
# Both are moved to private descriptors before the learner's file loads: fd 0 becomes
# /dev/null and fds 1 and 2 point at the capture pipe the runner was started with (its stderr),
# which the workshop drains and caps, so nothing the learner prints or writes can reach the
# protocol.
#
# Start-up time is most of what `check` costs, so this file imports nothing beyond what the
# interpreter has already loaded (and the C half of `json`): no `json` itself (it pulls in `re`
# and `enum`, which can double a bare interpreter's start-up), no `types`, no `traceback`.
import os
import sys

_CACHE = None
if __name__ != "__main__":
    # Imported from the workshop's cache for its bytecode: that folder is no place for the
    # learner's own imports to look, but it can keep the learner's compiled code too.
    _CACHE = os.path.dirname(__file__)
    sys.path[:] = [p for p in sys.path if p != _CACHE]

# Only this process answers: a learner's fork that returns into the runner must never write.
_PID = os.getpid()
# "-": a spare process, started before the file is known; the first request names it.
LEARNER = None if sys.argv[1] == "-" else os.path.abspath(sys.argv[1])
CAP = int(sys.argv[2])
ANSWER_LIMIT = int(sys.argv[3])
FUNCTIONS = sys.argv[4:]
# Deeper than this, the workshop's JSON reader would refuse the answer.
MAX_DEPTH = 100

_requests = os.fdopen(os.dup(0), "rb")
_answers = os.fdopen(os.dup(1), "wb")
_null = os.open(os.devnull, os.O_RDONLY)
os.dup2(_null, 0)
os.close(_null)
os.dup2(2, 1)

_state = {"written": 0, "dropped": 0, "full": False}
# The learner's file, by line, for quoting the line a frame is on.
_SOURCE = []


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
                    part = part[os.write(self._fd, part):]
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
sys.stdin = sys.__stdin__ = open(os.devnull, "r")

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
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise _NotJson(f"is a string with a lone surrogate, which is not valid text: {_repr(text)}") from None
    return '"' + text.translate(_ESCAPES) + '"'


class _TooDeep(Exception):
    """The value nests deeper than MAX_DEPTH."""


def _encode(value, depth=0):
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if type(value) is _Raw:
        return value
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


# JSON in: the requests are written by the workshop itself with serde_json. CPython's C scanner
# reads them in microseconds without importing `json` (and `re`); elsewhere, serde_json's output
# is a valid Python literal once true, false and null are named, and nothing else reaches this.
try:
    from _json import make_scanner as _make_scanner

    class _Context:
        strict = True
        object_hook = None
        object_pairs_hook = None
        parse_float = float
        parse_int = int
        memo = {}

        @staticmethod
        def parse_constant(name):
            raise ValueError(f"unexpected {name} in a request")

    _scan = _make_scanner(_Context())

    def _decode(line):
        return _scan(line.decode("utf-8"), 0)[0]

except ImportError:
    _LITERALS = {"__builtins__": {}, "true": True, "false": False, "null": None}

    def _decode(line):
        return eval(line.decode("utf-8"), _LITERALS)


def _send(message):
    _write(_encode(message))


def _write(encoded):
    _quit_if_forked()
    _answers.write(encoded.encode("utf-8", "replace") + b"\n")
    _answers.flush()


def _quit_if_forked():
    """A process the learner forked, returning into the runner, ends here, quietly: no answer,
    no exit handlers, no flushing of buffers it shares with its parent."""
    if os.getpid() != _PID:
        os._exit(0)


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
            text = _SOURCE[line - 1].strip() if 0 < line <= len(_SOURCE) else ""
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


# Compiling the learner's file costs more than all the calls together, so when the runner runs
# from the cache the code object is kept there too, as Python keeps a module's bytecode. An entry
# is keyed by the file's path and used only when the source matches byte for byte.
_CODE_ENTRIES = 64


def _compile_learner(source):
    if _CACHE is None:
        return compile(source, LEARNER, "exec")
    import marshal

    folder = os.path.join(_CACHE, "code", sys.implementation.cache_tag or "python")
    key = 0xCBF29CE484222325
    for byte in LEARNER.encode("utf-8", "surrogateescape"):
        key = ((key ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    entry = os.path.join(folder, f"{key:016x}.code")
    try:
        with open(entry, "rb") as handle:
            path, cached, code = marshal.loads(handle.read())
        if path == LEARNER and cached == source:
            return code
    except Exception:
        pass
    code = compile(source, LEARNER, "exec")
    try:
        os.makedirs(folder, exist_ok=True)
        temp = f"{entry}.{os.getpid()}.tmp"
        with open(temp, "wb") as handle:
            handle.write(marshal.dumps((LEARNER, source, code)))
        os.replace(temp, entry)
        _prune(folder)
    except Exception:
        pass
    return code


def _prune(folder):
    """Keep the newest entries only: every file checked leaves one."""
    entries = [e for e in os.scandir(folder) if e.name.endswith(".code")]
    if len(entries) > _CODE_ENTRIES:
        entries.sort(key=lambda e: e.stat().st_mtime)
        for old in entries[: len(entries) - _CODE_ENTRIES]:
            try:
                os.remove(old.path)
            except OSError:
                pass


def _load():
    _install_kit()
    sys.path.insert(0, os.path.dirname(LEARNER))
    name = os.path.splitext(os.path.basename(LEARNER))[0]
    if name in sys.modules:
        # A file named like a module already loaded (os.py, json.py) must not replace it.
        name = "learner_" + name
    module = type(sys)(name)
    module.__file__ = LEARNER
    sys.modules[name] = module
    try:
        with open(LEARNER, "rb") as handle:
            source = handle.read()
    except OSError as exc:
        return {"kind": "unreadable", "message": _describe(exc)}
    _SOURCE[:] = source.decode("utf-8", "replace").splitlines()
    try:
        code = _compile_learner(source)
        exec(code, module.__dict__)
    except SyntaxError as exc:
        if exc.filename and os.path.abspath(exc.filename) != LEARNER:
            # A module the learner imports does not parse: name it, and the learner's import line.
            return {"kind": "import", "message": _describe(exc), "frames": _learner_frames(exc.__traceback__)}
        return {
            "kind": "syntax",
            "message": _text(f"{type(exc).__name__}: {exc.msg}"),
            "line": exc.lineno,
            "code": _text((exc.text or "").strip()),
        }
    except SystemExit as exc:
        return {"kind": "exit", "message": _exit_message(exc), "frames": _learner_frames(exc.__traceback__)}
    except BaseException as exc:
        kind = "import" if isinstance(exc, ImportError) else "exception"
        return {"kind": kind, "message": _describe(exc), "frames": _learner_frames(exc.__traceback__)}
    for spec in FUNCTIONS:
        wanted, _, counts = spec.partition("=")
        function = getattr(module, wanted, None)
        if not callable(function):
            return {"kind": "missing", "message": f"no function named {wanted}", "function": wanted}
        problem = _cannot_take(function, [int(n) for n in counts.split(",") if n])
        if problem:
            return problem
    return module


def _cannot_take(function, counts):
    """Why `function` cannot be called with each of these numbers of positional arguments, the
    way the lesson calls it; None when it can (or when it is not a plain function)."""
    code = getattr(function, "__code__", None)
    if code is None or not counts:
        return None
    names = code.co_varnames[: code.co_argcount]
    optional = len(getattr(function, "__defaults__", None) or ())
    takes_more = bool(code.co_flags & 0x04)
    kwonly = code.co_varnames[code.co_argcount : code.co_argcount + code.co_kwonlyargcount]
    required_kwonly = [k for k in kwonly if k not in (getattr(function, "__kwdefaults__", None) or {})]
    for n in counts:
        if n < len(names) - optional or (n > len(names) and not takes_more) or required_kwonly:
            params = ", ".join(names)
            return {
                "kind": "signature",
                "message": f"{function.__name__}({params}) cannot be called with {n} argument{'s' if n != 1 else ''}, "
                f"as the lesson calls it",
                "line": code.co_firstlineno,
            }
    return None


def _call(module, request):
    """The answer to one request, without its id and output; `value` is already JSON text."""
    function = getattr(module, request["fn"], None)
    if not callable(function):
        return {"ok": False, "kind": "exception", "message": f"the file no longer has a function named {request['fn']}"}
    try:
        value = function(*request["args"])
    except SystemExit as exc:
        return {"ok": False, "kind": "exit", "message": _exit_message(exc), "frames": _learner_frames(exc.__traceback__)}
    except BaseException as exc:
        return {"ok": False, "kind": "exception", "message": _describe(exc), "frames": _learner_frames(exc.__traceback__)}
    try:
        encoded = _encode(value)
        if len(encoded) * 4 > ANSWER_LIMIT:
            size = len(encoded.encode("utf-8", "replace"))
            if size > ANSWER_LIMIT:
                return {"ok": False, "kind": "too_big", "size": size}
        return {"ok": True, "value": _Raw(encoded)}
    except _NotJson as exc:
        why = exc.describe()
    except _TooDeep:
        why = f"result nests lists and dicts more than {MAX_DEPTH} levels deep (or contains itself), too deep to carry"
    except RecursionError:
        why = "result refers to itself or nests too deeply to be JSON"
    except BaseException as exc:
        why = f"result could not be examined: {_describe(exc)}"
    return {"ok": False, "kind": "not_json", "message": why}


class _Raw(str):
    """JSON text already encoded, placed as it is."""


def main():
    global LEARNER
    _send({"hello": True})
    if LEARNER is None:
        line = _requests.readline()
        if not line:
            return
        LEARNER = os.path.abspath(_decode(line)["load"])
    loaded = _load()
    _quit_if_forked()
    dropped = _take_dropped()
    if isinstance(loaded, dict):
        _send({"id": 0, "load_error": loaded, "dropped": dropped})
        return
    _send({"id": 0, "ready": True, "dropped": dropped})
    while True:
        line = _requests.readline()
        if not line:
            return
        request = _decode(line)
        answer = _call(loaded, request)
        _quit_if_forked()
        answer["id"] = request["id"]
        answer["dropped"] = _take_dropped()
        _send(answer)


main()
