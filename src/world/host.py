# The world host: the Python side of a world, loaded by the workshop runner (src/bridge/runner/)
# as the file whose functions it serves, in a process of its own that never loads the learner's
# code.
# It imports the author's world file (worlds/<name>/world.py), gives it `kit.world`, and keeps
# the runs in progress by number. Every answer is a dict: {"value": ...} when the world answered,
# {"failure": {...}} when a tool failed as the world means it to, {"problems": [...]} for data the
# world refuses, and {"error": {...}} when the author's code raised or returned what cannot be
# used, with the world file's line.
import sys

_MODULE = type(sys)
# The version of the wire (docs/protocol.md): the workshop gives its own with every load, and a
# host of another refuses to load. Kept equal to `PROTOCOL` in protocol.rs, which a test checks.
PROTOCOL = 1
# Runs are numbered by the workshop, which never gives a number twice: a run of a process that
# ended is never taken for a run of the next one, which does not know it.
_state = {"world": None, "file": None, "source": [], "runs": {}}


class Failure(Exception):
    """A tool's failure, as the world means it: a category, the message, the read that settles an
    uncertain outcome (`verify`, as {"tool": ..., "input": {...}}) and any fields of its own,
    which reach the learner's build hook by name when the lesson declares them."""

    def __init__(
        self, category: str, message: str, verify: "dict[str, object] | None" = None, **fields: object
    ) -> None:
        super().__init__(message)
        self.category = category
        self.message = message
        self.verify = verify
        self.fields = fields


class Problems:
    """What is wrong with a lesson's world data: each near some text of the manifest (for the
    line), and why."""

    def __init__(self) -> None:
        self.found: "list[list[str]]" = []

    def add(self, near: object, why: object) -> None:
        self.found.append([str(near), str(why)])


def tool(name: str):  # -> a decorator giving the method back as it was
    """Marks a method of a World as the behaviour `name` that a lesson's tool can name in `does`."""

    def mark(method):
        method.__world_tool__ = name
        return method

    return mark


def _fresh(world):
    """A run's world: a new instance holding what `load` made (shared by every run, so a run
    must not change it) and nothing a run made. Not a deep copy: that would cost each run more
    than its tools do."""
    run = object.__new__(type(world))
    run.__dict__.update(world.__dict__)
    return run


class World:
    """The base of every world. A subclass is loaded once per lesson (`load`); each run starts
    from a fresh instance holding what `load` made (`start` sets up the run's own state there).
    Its `@tool` methods are the behaviours a lesson's tools can do."""

    #: The categories a retry can really fix: the truth a replay's cards are coloured by.
    retry_helps: "tuple[str, ...]" = ()
    #: Categories whose message carries the service's internals, which must never reach the model.
    internal: "tuple[str, ...]" = ()

    def load(
        self,
        data: "dict[str, object]",
        tools: "list[dict[str, object]]",
        tickets: "dict[str, dict[str, object]]",
        problems: Problems,
    ) -> None:
        """Check the lesson's [world] table (`data`), its tools and each ticket's keys; report
        what is wrong with `problems.add(near, why)`."""

    def start(self, ticket: str) -> None:
        """Set up one run of `ticket` (its id) on a fresh instance that shares what `load` made:
        give the run its own state here (new lists and dicts), and never change the loaded data."""

    def say(self, text: object) -> None:
        """A line of the world's own on the card of the current call: what it did that the
        result does not show ("Dana was asked to approve scaling to 4 replicas: declined")."""
        self.__dict__.setdefault("_said", []).append(str(text))

    def no_such_tool(self, name: str, names: "list[str]") -> object:
        """A call of a tool the lesson does not have: a validation failure, as a server says it."""
        raise Failure("validation", f"There is no tool named {name}. The tools are {', '.join(names)}.")

    def message(self, key: str, **fields: object) -> str:
        """One of the lesson's messages ([world.messages]) with `{name}` fields filled in."""
        text = self.messages().get(key, key)
        for name, value in fields.items():
            text = text.replace("{" + name + "}", str(value))
        return text

    def messages(self) -> "dict[str, str]":
        """The lesson's message templates, by key."""
        return {}

    def found(self, read: object) -> bool:
        """Whether a read's result found what it looked for."""
        return False

    def counts(self) -> "dict[str, int]":
        """What the run counts, for checks and notes: {"bells_rung": 1}."""
        return {}

    def detail(self) -> "dict[str, object]":
        """The counts in detail, for `watch --format json`."""
        return {}

    def harms(self) -> "list[str]":
        """Sentences naming harm the run did; empty when it did none."""
        return []

    def card(self, output: object) -> "str | None":
        """A successful result without a message, in words on its card; None to show it raw."""
        return None

    def sample_fields(self, draw) -> "dict[str, object]":  # draw(n: int) -> int, in 0..n
        """Fields for the lesson's sample messages: `draw(n)` gives a number in 0..n."""
        return {}

    def report(
        self, seen: "dict[str, object]", attempts: int, input: "dict[str, object]"
    ) -> "object | None":
        """What a subagent whose task failed passes up; None when the failure said nothing."""
        return None


def _install():
    kit = sys.modules.get("kit")
    if kit is None:
        kit = _MODULE("kit")
        kit.__path__ = []
        sys.modules["kit"] = kit
    api = _MODULE("kit.world")
    for name, value in (("World", World), ("Failure", Failure), ("tool", tool)):
        setattr(api, name, value)
    kit.world = api
    sys.modules["kit.world"] = api


def _frames(tb):
    """The world file's frames of a traceback, innermost last."""
    frames = []
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename == _state["file"]:
            line = tb.tb_lineno or 0
            source = _source_lines()
            text = source[line - 1].strip() if 0 < line <= len(source) else ""
            frames.append({"line": line, "function": code.co_name, "code": text})
        tb = tb.tb_next
    return frames


def _source_lines():
    """The world file by line: split only once a line is quoted (most loads never quote one)."""
    if isinstance(_state["source"], bytes):
        _state["source"] = _state["source"].decode("utf-8", "replace").splitlines()
    return _state["source"]


def _error(exc, doing):
    name = type(exc).__name__
    try:
        text = str(exc)
    except BaseException:
        text = ""
    frames = _frames(exc.__traceback__)
    at = frames[-1] if frames else {}
    return {"error": {"message": f"{name}: {text}" if text else name, "doing": doing, **at}}


def _garbage(why, doing, function=None):
    line = getattr(getattr(function, "__code__", None), "co_firstlineno", None)
    source = _source_lines()
    # The line of the `def`, past any decorators.
    while line is not None and 0 < line <= len(source) and source[line - 1].lstrip().startswith("@"):
        line += 1
    return {"error": {"message": why, "doing": doing, "line": line, "function": getattr(function, "__name__", None)}}


def _plain(value, depth=0):
    """Whether a value is plain JSON (dicts with string keys, lists, strings, numbers, booleans,
    None), so an answer never fails in the runner with a message about the learner."""
    if value is None or isinstance(value, (bool, str)):
        return True
    if isinstance(value, (int, float)):
        return value == value and value not in (float("inf"), float("-inf"))
    if depth > 50:
        return False
    if isinstance(value, (list, tuple)):
        return all(_plain(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v, depth + 1) for k, v in value.items())
    return False


def _checked(value, doing, method, want=None):
    if want is not None and not isinstance(value, want):
        return _garbage(f"returned {value!r:.200}, not {want.__name__ if isinstance(want, type) else 'the expected type'}", doing, method)
    if not _plain(value):
        return _garbage(f"returned {value!r:.200}, which is not plain JSON (dicts, lists, strings, numbers, True, False, None)", doing, method)
    return {"value": value}


def _compiled(path, source):
    """The world file's code, kept by the runner that loaded this host as it keeps a learner's
    file (one entry by path in the workshop's cache folder, used only while the bytes are the
    same) rather than beside the author's file. One `marshal.loads`: importlib's own bytecode
    cache, run as Python, took a third of a world's loading, most of it copying pages the
    process shares with the learner's since the fork. The world's own imports keep their
    bytecode under `pycache` in that folder."""
    here = __file__.rpartition("/")[0]
    if not here.startswith("/proc/"):
        sys.pycache_prefix = here + "/pycache"
    runner = sys.modules.get("_workshop_runner")
    if runner is None:
        return compile(source, path, "exec", dont_inherit=True)
    return runner._code_of(path, source)[0]


def load_world(path, data, tools, tickets, protocol):
    """Load the world file and check the lesson's data with it; returns what the runner keeps of
    the loaded world. `protocol`: the workshop's version of the wire, which must be this host's."""
    if protocol != PROTOCOL:
        message = f"the world host speaks version {PROTOCOL} of the workshop's protocol, and the workshop version {protocol}"
        return {"error": {"message": message, "doing": "loading"}}
    _install()
    _state["file"] = path
    try:
        with open(path, "rb") as f:
            source = f.read()
    except OSError as exc:
        return {"error": {"message": f"cannot be read: {exc}", "doing": "loading"}}
    _state["source"] = source
    module = _MODULE("world_" + str(abs(hash(path))))
    module.__file__ = path
    sys.modules[module.__name__] = module
    try:
        exec(_compiled(path, source), module.__dict__)
    except SyntaxError as exc:
        return {"error": {"message": f"SyntaxError: {exc.msg}", "doing": "loading", "line": exc.lineno, "code": (exc.text or "").strip()}}
    except BaseException as exc:
        return _error(exc, "loading")
    worlds = [v for v in vars(module).values() if isinstance(v, type) and issubclass(v, World) and v is not World]
    if len(worlds) != 1:
        return {"error": {"message": f"defines {len(worlds)} subclasses of kit.world.World; a world file defines exactly one", "doing": "loading"}}
    kind = worlds[0]
    behaviours = {}
    # The names `dir(kind)` gives, less object's (never a tool), without dir's own walk: a
    # third of this loop's time in a process that has just started.
    names = set()
    for klass in kind.__mro__[:-1]:
        names.update(vars(klass))
    for name in sorted(names):
        does = getattr(getattr(kind, name, None), "__world_tool__", None)
        if does is not None:
            behaviours[does] = name
    problems = Problems()
    try:
        world = kind()
        world.load(data, tools, tickets, problems)
    except BaseException as exc:
        return _error(exc, "checking the lesson's [world] table")
    if problems.found:
        return {"problems": problems.found}
    _state["behaviours"] = behaviours
    _state["tools"] = {t["name"]: t["does"] for t in tools}
    _state["world"] = world
    try:
        messages = world.messages()
        fields = world.sample_fields(lambda n: 0)
        counts = {}
        for ticket in tickets:
            run = _fresh(world)
            run.start(ticket)
            counts[ticket] = sorted(run.counts())
        retry_helps = sorted(world.retry_helps)
        internal = sorted(world.internal)
    except BaseException as exc:
        return _error(exc, "describing the loaded world")
    return _checked(
        {
            "behaviours": sorted(behaviours),
            "messages": messages,
            "fields": sorted(fields),
            "counts": counts,
            "retry_helps": retry_helps,
            "internal": internal,
        },
        "describing the loaded world",
        None,
    )


def _open(number, ticket):
    """A fresh run of a ticket, kept as `number`; an error answer, or None."""
    run = _fresh(_state["world"])
    try:
        run.start(ticket)
    except BaseException as exc:
        return _error(exc, f"starting a run of ticket {ticket}")
    _state["runs"][number] = run
    return None


def _run(number):
    return _state["runs"].get(number)


def _call(number, name, input):
    run = _run(number)
    if run is None:
        return {"lost": True}
    does = _state["tools"].get(name)
    if does is None:
        method = run.no_such_tool
        args = [name, list(_state["tools"])]
        doing = f"answering a call of {name}, a tool the lesson does not have"
    else:
        method = getattr(run, _state["behaviours"].get(does, ""), None)
        args = [input]
        doing = f"running the tool {name} (@tool(\"{does}\"))"
    if method is None:
        return {"error": {"message": f"has no @tool(\"{does}\")", "doing": doing}}
    try:
        value = method(*args)
    except Failure as failure:
        out = {"category": failure.category, "message": failure.message, "verify": failure.verify, "fields": failure.fields}
        if not isinstance(failure.category, str) or not isinstance(failure.message, str):
            return _garbage("raised a Failure whose category or message is not a string", doing, method)
        checked = _checked(out, doing, method)
        if "value" not in checked:
            return checked
        checked = {"failure": out}
    except BaseException as exc:
        return _error(exc, doing)
    else:
        checked = _checked(value, doing, method)
    checked["said"] = run.__dict__.pop("_said", [])
    if "error" not in checked:
        # What the run has done so far, so the run's end asks no question of its own when a call
        # was its last (left out when the world cannot say it: that question then says why).
        effects = _effects(run)
        if "value" in effects:
            checked["effects"] = effects["value"]
    return checked


_LOADED = "loaded"


def _ask(number, name, args, doing, want=None):
    """Ask a run (by number, or the run itself) or, with `_LOADED`, the loaded world."""
    if isinstance(number, World):
        run = number
    else:
        run = _state["world"] if number == _LOADED else _run(number)
    if run is None:
        return {"lost": True}
    method = getattr(run, name)
    try:
        value = method(*args)
    except BaseException as exc:
        return _error(exc, doing)
    return _checked(value, doing, method, want)


def _found(number, read):
    return _ask(number, "found", [read], "deciding whether a read found something", bool)


def _effects(number):
    """A run's counts, detail and harms (the run by its number, or itself)."""
    out = {}
    for name, want in (("counts", dict), ("detail", dict), ("harms", list)):
        answer = _ask(number, name, [], f"reporting its {name}", want)
        if "value" not in answer:
            return answer
        out[name] = answer["value"]
    return {"value": out}


def _report(number, seen, attempts, input):
    return _ask(number, "report", [seen, attempts, input], "building a subagent's report")


def _card(output):
    return _ask(_LOADED, "card", [output], "saying a result in words on its card")


def _draw(units):
    """The sample fields, with `draw(n)` taking the next of the workshop's seeded numbers."""
    left = list(units)

    def pick(n):
        unit = left.pop(0) if left else 0.0
        return int(unit * n) % max(n, 1)

    answer = _ask(_LOADED, "sample_fields", [pick], "drawing the sample fields", dict)
    if "value" in answer:
        answer["value"] = {k: str(v) for k, v in answer["value"].items()}
    return answer


_ASKED = {"call": _call, "found": _found, "effects": _effects, "report": _report, "card": _card, "draw": _draw}


def ask(done, opening, function, args):
    """The one question the workshop asks a loaded world, with what a separate request would
    have cost a round trip for: the runs it is `done` with are forgotten first, and `opening`
    ([number, ticket], or None) starts the run this question is the first of."""
    runs = _state["runs"]
    for number in done:
        runs.pop(number, None)
    if opening is not None:
        failed = _open(*opening)
        if failed is not None:
            return failed
    return _ASKED[function](*args)
