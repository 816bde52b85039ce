# The Python side of the workshop bridge. Run as
#   python -I -S -c <this> <learner file, or - for a spare> <output cap> <answer limit> <function>...
# or imported under the same arguments from a cached copy (see `runner_code` in mod.rs). A spare
# is told its file and functions in its first request. `=` in place of the file is a spare that
# first forks a second one onto three descriptors named after the limits, having read ahead the
# file named after them, if any, and the one the call behind its first request names (the world's
# file: see `_read_ahead`, `_world_asked` and `_fork_a_spare`).
#
# Requests arrive on the original stdin (framed, in `marshal`'s format: see `_request`) and answers
# leave on the original stdout as JSON lines.
# Both are moved to private descriptors before the learner's file loads: fd 0 becomes
# /dev/null and fds 1 and 2 point at the capture pipe the runner was started with (its stderr),
# which the workshop drains and caps, so nothing the learner prints or writes can reach the
# protocol.
#
# Start-up time is most of what `check` costs, so this file imports nothing beyond what the
# interpreter has already loaded and modules built into it (`posix`, the C half of `json`): not
# `os` (it costs more than the rest of this file put together), no `json` itself (it pulls in
# `re` and `enum`, which can double a bare interpreter's start-up), no `types`, no `traceback`.
# The interpreter starts without `site` (-S), which is most of a normal start-up;
# `_without_site` gives the learner's file what `site` would have, when it needs it.
import gc
import marshal
import posix
import sys

# No collections until the file to load runs (see `_load`): this file and what it reads ahead
# make nothing a collection could free, and each one walks every young object (a third of this
# file's own import time).
gc.disable()

DEVNULL = "/dev/null"


def _dirname(path):
    return path.rpartition("/")[0] or "/"


def _absolute(path):
    """The path from the root, with `.` and `..` taken out (as os.path.abspath does)."""
    if not path.startswith("/"):
        path = posix.getcwd() + "/" + path
    parts = []
    for part in path.split("/"):
        if part == "..":
            if parts:
                parts.pop()
        elif part and part != ".":
            parts.append(part)
    return "/" + "/".join(parts)


def _dumpable(flag):
    """Set whether processes of the same user may trace this one or open its /proc files
    (prctl's PR_SET_DUMPABLE, Linux): off in the process the lesson's world takes, so no
    learner's file running as the same user can attach to it or write into its descriptors;
    on again in the learner's spare, which inherits the flag. Elsewhere, nothing."""
    if sys.platform != "linux":
        return
    try:
        import _ctypes

        prctl = _ctypes.dlsym(_ctypes.dlopen(None, 2), "prctl")
        _ctypes.call_function(prctl, (4, 1 if flag else 0, 0, 0, 0))  # PR_SET_DUMPABLE
    except Exception:
        pass


_CACHE = None
if __name__ != "__main__":
    # Imported from the workshop's cache for its bytecode: that folder is no place for the
    # learner's own imports to look, but it can keep the learner's compiled code too.
    _CACHE = _dirname(__file__)
    sys.path[:] = [p for p in sys.path if p != _CACHE]

# "=": a spare that first forks a second spare onto the descriptors named after the limits, and
# reads ahead the file named after them (when there is one) before it does.
_SECOND_CHANNEL = None
_READ_AHEAD = None
if sys.argv[1] == "=":
    _SECOND_CHANNEL = [int(fd) for fd in sys.argv[4:7]]
    _READ_AHEAD = sys.argv[7] if len(sys.argv) > 7 else None
    sys.argv[1:] = ["-"] + sys.argv[2:4]
# The process that handed the second spare to the workshop, until it is reaped (see `_reap_middle`).
_MIDDLE = []

# The lesson's world and every graded file: out of other same-user processes' reach at once.
if posix.environ.get(b"WORKSHOP_OUT_OF_REACH"):
    _dumpable(False)

# Only this process answers: a learner's fork that returns into the runner must never write.
_PID = posix.getpid()
# "-": a spare process, started before the file is known; the first request names it.
LEARNER = None if sys.argv[1] == "-" else _absolute(sys.argv[1])
CAP = int(sys.argv[2])
ANSWER_LIMIT = int(sys.argv[3])
FUNCTIONS = sys.argv[4:]
# Deeper than this, the workshop's JSON reader would refuse the answer.
MAX_DEPTH = 100
# The version of the wire (docs/protocol.md), said in the hello: the workshop takes no runner of
# another. Kept equal to `PROTOCOL` in protocol.rs, which a test of it checks.
PROTOCOL = 1



class _SiteOnDemand:
    """Last on sys.meta_path when the interpreter started without `site`: an import that nothing
    else found (a package from site-packages) first completes the start-up `site` would have
    made (site-packages and .pth files on sys.path, sitecustomize), then is looked for again,
    so the file sees what a normal start gives, and a file that imports only the standard
    library never pays for it."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if path is not None:
            return None  # a submodule: its package was found, so `site` is not what is missing
        _complete_site()
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if find is not None:
                spec = find(name, path, target)
                if spec is not None:
                    return spec
        return None


def _complete_site():
    if _SiteOnDemand in sys.meta_path:
        sys.meta_path.remove(_SiteOnDemand)
        import site

        site.main()


# Builtins `site` adds that a file may name: `exit` and `quit` cost nothing, so they are always
# there; the others come with the rest of `site`, when a file names them.
_SITE_BUILTINS = {"help", "copyright", "credits", "license"}


class _Quitter:
    """`exit` and `quit` as `site` makes them (`_sitebuiltins.Quitter`), without its import."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"Use {self.name}() or Ctrl-D (i.e. EOF) to exit"

    def __call__(self, code=None):
        try:
            sys.stdin.close()
        except BaseException:
            pass
        raise SystemExit(code)


def _without_site():
    import builtins

    builtins.exit = _Quitter("exit")
    builtins.quit = _Quitter("quit")
    sys.meta_path.append(_SiteOnDemand)


def _names(code):
    """Every name a code object and the code nested in it refer to."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, type(code)):
            names |= _names(const)
    return names


if sys.flags.no_site:
    _without_site()

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


# Compiling the learner's file costs more than all the calls together, so when the runner runs
# from the cache the code object is kept there too, as Python keeps a module's bytecode. An entry
# is keyed by the file's path and used only when the source matches byte for byte.
_CODE_ENTRIES = 64
# What an entry holds, (path, source, code, wants_site): a new layout takes the next number.
_CODE_LAYOUT = 2


# The files read ahead of the fork (see `_read_ahead`): (the reading process's pid, path, source,
# code, wants_site). Used only by the process that read them, so the second spare never takes
# one; it keeps them untouched rather than freeing them, which would copy the pages they are on.
_AHEAD = []


def _read_ahead(path):
    """Compile a file this runner will most likely be told to load (or take its code from the
    cache) before it forks the second spare: done then, it delays the second spare, which has
    time in hand, instead of this runner's loading, which the command waits for, and it costs
    less than after the fork, when each page it writes is first copied. Only its code: nothing of
    the file runs before it is asked for, and the code is used only for the same path with the
    same bytes (see `_code_of`)."""
    try:
        with open(path, "rb") as handle:
            source = handle.read()
        _AHEAD.append((_PID, path, source, *_code_of(path, source)))
    except Exception:
        pass


def _world_asked():
    """The file named first by the call waiting on the channel behind the load request, if any:
    the world's file, when the workshop asked this runner to load the world host and the world in
    one write (it has, by the time the interpreter is ready). Whatever waits on the channel is
    read, without waiting for more, into what `_request` takes next; anything else is None."""
    fd = _CHANNEL[0]
    try:
        posix.set_blocking(fd, False)
        try:
            # Read now, and kept for `_request` to take.
            _pending.extend(posix.read(fd, _PIPE_SIZE))
        finally:
            posix.set_blocking(fd, True)
        waiting = bytes(_pending)
        size = int.from_bytes(waiting[:4], "little")
        second = waiting[4 + size :]
        call = marshal.loads(second[4 : 4 + int.from_bytes(second[:4], "little")])
        first = call["args"][0]
        return first if isinstance(first, str) and first.endswith(".py") else None
    except Exception:
        return None


def _code_of(path, source):
    """The file's code, and whether it names a builtin only `site` gives (`help`, `license`...),
    kept with the code so a cached file is not walked again. The world host keeps the world
    file's code with this too (see `_compiled` in host.py)."""
    for i, (reader, ahead, read, code, wants_site) in enumerate(_AHEAD):
        if reader == _PID and ahead == path and read == source:
            del _AHEAD[i]
            return code, wants_site
    if _CACHE is None:
        code = compile(source, path, "exec")
        return code, not _names(code).isdisjoint(_SITE_BUILTINS)

    # The entries' layout is in the folder's name, so another version of the workshop sharing
    # the cache keeps entries of its own rather than rewriting these at every check.
    folder = f"{_CACHE}/code/{sys.implementation.cache_tag or 'python'}-{_CODE_LAYOUT}"
    key = 0xCBF29CE484222325
    for byte in path.encode("utf-8", "surrogateescape"):
        key = ((key ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    entry = f"{folder}/{key:016x}.code"
    try:
        with open(entry, "rb") as handle:
            cached_path, cached, code, wants_site = marshal.loads(handle.read())
        if cached_path == path and cached == source:
            return code, wants_site
    except Exception:
        pass
    code = compile(source, path, "exec")
    wants_site = not _names(code).isdisjoint(_SITE_BUILTINS)
    try:
        for made in (_dirname(folder), folder):
            try:
                posix.mkdir(made, 0o700)
            except FileExistsError:
                pass
        temp = f"{entry}.{posix.getpid()}.tmp"
        with open(temp, "wb") as handle:
            handle.write(marshal.dumps((path, source, code, wants_site)))
        posix.replace(temp, entry)
        _prune(folder)
    except Exception:
        pass
    return code, wants_site


# Where the files this runner loads find it: the world host keeps its world file's code with
# `_code_of`. A name no learner's module would take.
sys.modules["_workshop_runner"] = sys.modules[__name__]


def _prune(folder):
    """Keep the newest entries only: every file checked leaves one."""
    entries = [e for e in posix.scandir(folder) if e.name.endswith(".code")]
    if len(entries) > _CODE_ENTRIES:
        entries.sort(key=lambda e: e.stat().st_mtime)
        for old in entries[: len(entries) - _CODE_ENTRIES]:
            try:
                posix.remove(old.path)
            except OSError:
                pass


def _load():
    gc.enable()
    _install_kit()
    # Last, so the learner's own modules import while a file named like a standard one (os.py,
    # random.py) never stands in for it, for the learner's code or the standard library's.
    sys.path.append(_dirname(LEARNER))
    name = LEARNER.rpartition("/")[2]
    name = name.rpartition(".")[0] or name
    if name in sys.modules or name in getattr(sys, "stdlib_module_names", ()):
        # A file named like a standard module (os.py, json.py) must not replace it.
        name = "learner_" + name
    module = type(sys)(name)
    module.__file__ = LEARNER
    sys.modules[name] = module
    try:
        with open(LEARNER, "rb") as handle:
            source = handle.read()
    except OSError as exc:
        return {"kind": "unreadable", "message": _describe(exc)}
    _SOURCE[:] = [source]
    try:
        code, wants_site = _code_of(LEARNER, source)
        if _SiteOnDemand in sys.meta_path and wants_site:
            _complete_site()
        exec(code, module.__dict__)
    except SyntaxError as exc:
        if exc.filename and exc.filename != LEARNER:
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
        return {"ok": True, "value": encoded}
    except _NotJson as exc:
        why = exc.describe()
    except _TooDeep:
        why = f"result nests lists and dicts more than {MAX_DEPTH} levels deep (or contains itself), too deep to carry"
    except RecursionError:
        why = "result refers to itself or nests too deeply to be JSON"
    except BaseException as exc:
        why = f"result could not be examined: {_describe(exc)}"
    return {"ok": False, "kind": "not_json", "message": why}


def _fork_a_spare(requests, answers, output):
    """Fork a second spare runner once this one is ready and before anything is loaded into
    either: a command then starts one interpreter instead of two (see `warm.rs`, which gives the
    fork the learner's file and this process the lesson's world). The fork speaks on the three
    descriptors, leads a process group of its own, and is handed to the workshop (its child
    subreaper) by a middle process that exits at once, so this process is never a descendant of
    the one the learner's file loads into. This one goes on at once, without waiting for the
    middle process to end (it is reaped later, see `_reap_middle`): its file is the one the
    command waits for. Returns in both runners."""
    global _PID
    # What exists now is left out of collections on both sides of the fork: a collection touches
    # every object it looks at, and each page it touches is then copied for the process that did.
    gc.freeze()
    cores, elsewhere = _cores()
    try:
        middle = posix.fork()
    except OSError:
        middle = -1  # no spare: the workshop reads the end of its channel and starts one instead
    if middle > 0 and elsewhere:
        # A child starts on its parent's core, and waits there while this process loads (the
        # other core idle): moved before it first runs, it starts at once.
        try:
            posix.sched_setaffinity(middle, elsewhere)
        except OSError:
            pass
    if middle == 0:
        try:
            middle = posix.getpid()
            _dumpable(True)
            spare = posix.fork()
            if spare == 0:
                posix.setpgid(0, 0)
                if elsewhere:
                    # Moved away from this runner's core with the middle process, not kept away.
                    try:
                        posix.sched_setaffinity(0, cores)
                    except OSError:
                        pass
                # The first runner's channel, and what it read of it, are not this one's to hold.
                posix.close(_CHANNEL[0])
                posix.close(_CHANNEL[1])
                _pending.clear()
                _CHANNEL[:] = [requests, answers]
                # Not passed on to what the learner's code starts, as the first runner's are not.
                posix.set_inheritable(requests, False)
                posix.set_inheritable(answers, False)
                posix.dup2(output, 1)
                posix.dup2(output, 2)
                posix.close(output)
                _PID = posix.getpid()
                _own_mark()
                # Its hello names it, and the workshop adopts only its own child: wait until the
                # middle process is gone.
                while posix.getppid() == middle:
                    posix.sched_yield()
                return
            # Its own group before this process ends, whichever of the two runs first: ending
            # the first runner's group never takes it.
            posix.setpgid(spare, spare)
        except BaseException:
            pass
        posix._exit(0)
    gc.unfreeze()
    for fd in (requests, answers, output):
        posix.close(fd)
    if middle > 0:
        _MIDDLE.append(middle)


def _cores():
    """The cores the spare may run on (the workshop's and this process's), and those the middle
    process is moved to, off this process's core (empty when there are none, and both None where
    the system does not say). The workshop starts this runner off the core it reads the lesson
    on (`Place::AwayFromThisThread`): that core, kept from this process, is where the middle
    process goes (the workshop waits by now), with no look at where this process runs."""
    try:
        cores = posix.sched_getaffinity(0)
        workshops = posix.sched_getaffinity(posix.getppid())
        kept = workshops - cores
        if kept:
            return cores | workshops, kept
        # The core a process last ran on: field 39 of its stat line, the 37th after the name (a
        # look the workshop's placing saves).
        fd = posix.open("/proc/self/stat", posix.O_RDONLY)
        try:
            on = int(posix.read(fd, 1024).rsplit(b")", 1)[1].split()[36])
        finally:
            posix.close(fd)
        return cores, cores - {on}
    except Exception:
        return None, None


def _own_mark():
    """Mark what this process starts as its own, not the first runner's: the workshop's mark with
    this pid after it, which the workshop registers when it adopts this process (`reap::adopt`),
    so whatever it leaves behind when it is killed is ended as a stray then, while the first
    runner still runs under the mark they shared."""
    mark = posix.environ.get(b"WORKSHOP_BRIDGE")
    if mark:
        mark += b"." + str(_PID).encode()
        posix.environ[b"WORKSHOP_BRIDGE"] = mark  # what `os.environ` will be made from
        posix.putenv(b"WORKSHOP_BRIDGE", mark)  # what a child started without one gets


def _reap_middle():
    """Reap the middle process of `_fork_a_spare` once it has ended (it ends at once; until then
    this looks at every request)."""
    if _MIDDLE:
        try:
            if posix.waitpid(_MIDDLE[0], posix.WNOHANG)[0]:
                _MIDDLE.clear()
        except ChildProcessError:
            _MIDDLE.clear()  # reaped by code of the file this process loaded


def main():
    global LEARNER
    if _SECOND_CHANNEL:
        if _READ_AHEAD:
            _read_ahead(_absolute(_READ_AHEAD))
            world = _world_asked()
            if world:
                _read_ahead(world)
        # This process is the one the world takes: out of reach before the spare exists.
        _dumpable(False)
        _fork_a_spare(*_SECOND_CHANNEL)
    _send({"hello": True, "protocol": PROTOCOL, "pid": _PID})
    if LEARNER is None:
        request = _request()
        if request is None:
            return
        LEARNER = _absolute(request["load"])
        FUNCTIONS[:] = request.get("functions", [])
    loaded = _load()
    _quit_if_forked()
    dropped = _take_dropped()
    if isinstance(loaded, dict):
        _send({"id": 0, "load_error": loaded, "dropped": dropped})
        return
    _send({"id": 0, "ready": True, "dropped": dropped})
    while True:
        request = _request()
        if request is None:
            return
        if "fn" not in request:
            # The workshop asking that the channel be in step: answered at once.
            _send({"id": request["id"], "ok": True, "dropped": _take_dropped()})
            continue
        # A learner's fork returning from the call ends in `_write`, before it could answer.
        answer = _call(loaded, request)
        if answer["ok"]:
            # The answer of nearly every call, put together as it is: walking it as a value to
            # encode took as long as encoding the value itself.
            dropped = _encode(_take_dropped())
            _write(f'{{"ok":true,"value":{answer["value"]},"id":{_encode(request["id"])},"dropped":{dropped}}}')
            continue
        answer["id"] = request["id"]
        answer["dropped"] = _take_dropped()
        _send(answer)


main()
