# The runner, part 3 of 4 (see start.py): the learner's file loaded, and its functions called.

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
    _install_stand_ins()
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
        kit, _, wanted = wanted.rpartition(":")
        function = getattr(module, wanted, None)
        if not callable(function):
            return {"kind": "missing", "message": f"no function named {wanted}", "function": wanted}
        # A kit's function is given what the kit makes (a client, a clock, run_tool) in place of
        # its first argument.
        extra = 2 if kit else 0
        problem = _cannot_take(function, [int(n) + extra for n in counts.split(",") if n])
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
    """The answer to one request, without its id and output; `value` is already JSON text. A
    function named `kit:name` is run through that kit's stand-in module (see
    `_install_stand_ins`), whose `_workshop_call` says what it did."""
    kit, _, name = request["fn"].rpartition(":")
    function = getattr(module, name, None)
    if not callable(function):
        missing = f"the file no longer has a function named {name}"
        return {"ok": False, "kind": "exception", "message": missing}
    stand_in = sys.modules.get(kit) if kit in _STAND_INS else None
    if kit and getattr(stand_in, "_workshop_call", None) is None:
        missing = f"no stand-in module {kit!r} is installed for {name}"
        return {"ok": False, "kind": "exception", "message": missing}
    try:
        if kit:
            value = stand_in._workshop_call(function, request["args"])
        else:
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
