# The Python side of the workshop bridge. Run as `python -I -c <this> <learner file> <cap>`.
#
# Requests arrive as JSON lines on the original stdin and answers leave on the original stdout.
# Both are moved to private descriptors before the learner's file loads: fd 0 becomes
# /dev/null and fds 1 and 2 point at the capture file the runner was started with (its stderr),
# so nothing the learner prints or writes can reach the protocol.
import json
import os
import sys
import types

LEARNER = os.path.abspath(sys.argv[1])
CAP = int(sys.argv[2])

_requests = os.fdopen(os.dup(0), "rb")
_answers = os.fdopen(os.dup(1), "wb")
_null = os.open(os.devnull, os.O_RDONLY)
os.dup2(_null, 0)
os.close(_null)
os.dup2(2, 1)


class _Captured:
    """A text stream onto the capture file that stops storing after CAP bytes a call."""

    encoding = "utf-8"
    errors = "backslashreplace"

    def __init__(self, fd):
        self._fd = fd

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        data = text.encode("utf-8", "backslashreplace")
        room = CAP - os.lseek(self._fd, 0, os.SEEK_CUR)
        if room > 0:
            os.write(self._fd, data[:room])
        _state["dropped"] += max(0, len(data) - max(room, 0))
        return len(text)

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

    @property
    def closed(self):
        return False


_state = {"dropped": 0}
sys.stdout = sys.__stdout__ = _Captured(1)
sys.stderr = sys.__stderr__ = _Captured(2)
sys.stdin = sys.__stdin__ = open(os.devnull, "r")


def _send(message):
    _answers.write(json.dumps(message, ensure_ascii=True).encode("ascii") + b"\n")
    _answers.flush()


def _take_output():
    end = os.lseek(1, 0, os.SEEK_CUR)
    data = os.pread(1, min(end, CAP), 0) if end > 0 else b""
    dropped = max(0, end - CAP) + _state["dropped"]
    os.lseek(1, 0, os.SEEK_SET)
    os.ftruncate(1, 0)
    _state["dropped"] = 0
    return data.decode("utf-8", "backslashreplace"), dropped


def _learner_frames(tb):
    """The frames of a traceback that are in the learner's file, innermost last."""
    import traceback

    frames = [f for f in traceback.extract_tb(tb) if os.path.abspath(f.filename) == LEARNER]
    return [
        {"line": f.lineno, "function": f.name, "code": (f.line or "").strip()} for f in frames
    ]


def _describe(exc):
    text = str(exc)
    name = type(exc).__name__
    if isinstance(exc, KeyError) and exc.args:
        text = repr(exc.args[0])
    return f"{name}: {text}" if text else name


def _exit_message(exc):
    code = exc.code
    if code is None:
        code = 0
    return f"called sys.exit({code!r})"


def _not_json(value, path="result"):
    """Why `value` cannot travel as JSON, or None when it can."""
    if value is None or isinstance(value, (bool, int)):
        return None
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return f"{path} is {value!r}, which JSON cannot hold"
        return None
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return f"{path} is a string with a lone surrogate, which is not valid text: {value!r}"
        return None
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            why = _not_json(item, f"{path}[{i}]")
            if why:
                return why
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"{path} has a key that is not a string: {key!r}"
            why = _not_json(key, f"{path} key")
            if why:
                return why
            why = _not_json(item, f"{path}.{key}")
            if why:
                return why
        return None
    return f"{path} is a {type(value).__name__}, which is not JSON: {value!r}"[:600]


def _install_kit():
    """`from kit.api import Json` works with nothing installed."""
    kit = types.ModuleType("kit")
    kit.__path__ = []
    api = types.ModuleType("kit.api")
    api.Json = dict
    kit.api = api
    sys.modules["kit"] = kit
    sys.modules["kit.api"] = api


def _load(functions):
    _install_kit()
    sys.path.insert(0, os.path.dirname(LEARNER))
    name = os.path.splitext(os.path.basename(LEARNER))[0]
    module = types.ModuleType(name)
    module.__file__ = LEARNER
    sys.modules[name] = module
    try:
        with open(LEARNER, "rb") as handle:
            source = handle.read()
        code = compile(source, LEARNER, "exec")
        exec(code, module.__dict__)
    except SyntaxError as exc:
        return {
            "kind": "syntax",
            "message": f"{type(exc).__name__}: {exc.msg}",
            "line": exc.lineno,
            "code": (exc.text or "").strip(),
        }
    except SystemExit as exc:
        return {"kind": "exit", "message": _exit_message(exc), "frames": _learner_frames(exc.__traceback__)}
    except OSError as exc:
        return {"kind": "unreadable", "message": _describe(exc)}
    except BaseException as exc:
        kind = "import" if isinstance(exc, ImportError) else "exception"
        return {"kind": kind, "message": _describe(exc), "frames": _learner_frames(exc.__traceback__)}
    for wanted in functions:
        if not callable(getattr(module, wanted, None)):
            return {"kind": "missing", "message": f"no function named {wanted}", "function": wanted}
    return module


def _call(module, request):
    function = getattr(module, request["fn"])
    try:
        value = function(*request["args"])
    except SystemExit as exc:
        return {"ok": False, "kind": "exit", "message": _exit_message(exc), "frames": _learner_frames(exc.__traceback__)}
    except BaseException as exc:
        return {"ok": False, "kind": "exception", "message": _describe(exc), "frames": _learner_frames(exc.__traceback__)}
    try:
        why = _not_json(value)
    except RecursionError:
        why = "result refers to itself or nests too deeply to be JSON"
    if why:
        return {"ok": False, "kind": "not_json", "message": why}
    return {"ok": True, "value": value}


def main():
    functions = json.loads(_requests.readline() or "[]")
    loaded = _load(functions)
    output, dropped = _take_output()
    if isinstance(loaded, dict):
        _send({"load_error": loaded, "output": output, "dropped": dropped})
        return
    _send({"ready": True, "output": output, "dropped": dropped})
    while True:
        line = _requests.readline()
        if not line:
            return
        request = json.loads(line)
        answer = _call(loaded, request)
        answer["id"] = request["id"]
        answer["output"], answer["dropped"] = _take_output()
        _send(answer)


main()
