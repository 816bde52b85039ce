"""The runner's own pieces (src/bridge/runner/), run in this interpreter: its JSON out, the
answers a call comes to, a function that cannot take the lesson's arguments, and its version of
the wire against the workshop's. The parts are joined as the workshop joins them, without the
last (which starts answering requests).

Run: python3 -m unittest discover -s tests/python"""

import gc
import json
import math
import os
import posix
import re
import sys
import time
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PARTS = os.path.join(REPO, "src", "bridge", "runner")


def read(name):
    with open(os.path.join(PARTS, name), encoding="utf-8") as f:
        return f.read()


def load_runner(limit=8 * 1024 * 1024):
    """The runner's definitions, as a module would hold them, for a file that needs `build=1`:
    every part, the last without the call that starts answering requests. The runner takes this
    process's fds 0 and 1 and its sys.std* as it starts (they become its channel): all are given
    back once its parts have run."""
    last = read("spare.py")
    assert last.endswith("\nmain()\n"), "spare.py ends by starting the runner"
    parts = [read(name) for name in ("start.py", "channel.py", "load.py")]
    source = "\n\n".join(parts + [last[: -len("main()\n")]])
    saved = (sys.argv, sys.stdin, sys.stdout, sys.stderr, sys.__stdin__, sys.__stdout__, sys.__stderr__)
    fds = [os.dup(0), os.dup(1)]
    sys.argv = ["runner", "-", "65536", str(limit), "build=1"]
    names = {"__name__": "__main__"}
    try:
        exec(compile(source, "runner", "exec"), names)
    finally:
        sys.stdin.close()
        sys.argv, sys.stdin, sys.stdout, sys.stderr, sys.__stdin__, sys.__stdout__, sys.__stderr__ = saved
        for fd, held in zip((0, 1), fds):
            os.dup2(held, fd)
            os.close(held)
        sys.modules.pop("_workshop_runner", None)
        gc.enable()  # the runner turns collections off until a file loads
        for fd in names.get("_CHANNEL", []):
            os.close(fd)
    return names


class Module:
    """A learner's file, as the runner finds its functions."""

    def __init__(self, **functions):
        self.__dict__.update(functions)


class JsonOut(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.runner = load_runner()

    def encode(self, value):
        return self.runner["_encode"](value)

    def test_what_json_holds_reads_back_as_it_was(self):
        for value in [None, True, 0, -7, 2**70, 1.5, "", "plain", 'quo"te\\', "tab\tnew\nline\x7f", "é ✓ 🙂",
                      [], {}, {"a": [1, {"b": None}], "c": "d"}]:
            self.assertEqual(json.loads(self.encode(value)), value, value)
        self.assertEqual(json.loads(self.encode((1, "two"))), [1, "two"])

    def test_what_json_cannot_hold_is_refused_with_where_it_is(self):
        not_json = self.runner["_NotJson"]
        for value, said in [
            ({"a": [1, {2, 3}]}, "result.a[1]"),
            ({1: "one"}, "key that is not a string"),
            (math.nan, "nan"),
            ("\ud800", "lone surrogate"),
            (2**1001, "too large to carry"),
        ]:
            with self.assertRaises(not_json) as caught:
                self.encode(value)
            self.assertIn(said, caught.exception.describe() + str(caught.exception), value)

    def test_a_value_nested_past_the_limit_is_too_deep(self):
        deep = []
        for _ in range(self.runner["MAX_DEPTH"] + 1):
            deep = [deep]
        with self.assertRaises(self.runner["_TooDeep"]):
            self.encode(deep)


class Calls(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.runner = load_runner(limit=64)

    def call(self, function, *args):
        return self.runner["_call"](Module(build=function), {"fn": "build", "args": list(args)})

    def test_each_way_a_call_ends_is_its_own_kind(self):
        self.assertEqual(self.call(lambda x: {"ok": x}, 1), {"ok": True, "value": '{"ok":1}'})
        raised = self.call(lambda x: {}["missing"], 1)
        self.assertEqual((raised["ok"], raised["kind"], raised["message"]), (False, "exception", "KeyError: 'missing'"))
        exited = self.call(lambda x: sys.exit(3), 1)
        self.assertEqual((exited["kind"], exited["message"]), ("exit", "called sys.exit(3)"))
        self.assertEqual(self.call(lambda x: "x" * 100, 1), {"ok": False, "kind": "too_big", "size": 102})
        self.assertEqual(self.call(lambda x: {1, 2}, 1)["kind"], "not_json")

    def test_a_function_that_cannot_take_the_lessons_arguments_is_named_with_its_parameters(self):
        cannot = self.runner["_cannot_take"]

        def two(failure, extra):
            return failure

        def optional(failure, extra=None):
            return failure

        problem = cannot(two, [1])
        self.assertEqual(problem["kind"], "signature")
        self.assertIn("two(failure, extra) cannot be called with 1 argument", problem["message"])
        self.assertIsNone(cannot(optional, [1]))
        self.assertIsNone(cannot(lambda *args: None, [1, 5]))


class PosixWithASlowClose:
    """`posix` for the runner, but the process `slow` names starts closing `fds` only after
    `delay` seconds (as a first runner the system does not run again at once after it forks
    would), and says on `said` when it has closed them all (on the monotonic clock, which every
    process shares)."""

    def __init__(self, slow, fds, delay, said):
        self.slow, self.fds, self.delay, self.said = slow, set(fds), delay, said

    def __getattr__(self, name):
        return getattr(posix, name)

    def close(self, fd):
        if os.getpid() == self.slow and fd in self.fds:
            time.sleep(self.delay)
            self.delay = 0
            self.fds.discard(fd)
            os.close(fd)
            if not self.fds:
                os.write(self.said, b"closed %r\n" % time.monotonic())
            return
        os.close(fd)


class Spare(unittest.TestCase):
    def test_the_spare_runs_only_once_the_first_runner_has_let_go_of_its_descriptors(self):
        """The first runner holds the spare's three descriptors until it closes them after the
        fork; the spare (where the learner's file loads) goes on only once it has, even when the
        first runner is slow to run again, so no pipe of the learner's stays with the world."""
        runner = load_runner()
        first = os.getpid()
        said_r, said_w = os.pipe()
        requests, to_spare = os.pipe()
        from_spare, answers = os.pipe()
        output = os.open(os.devnull, os.O_WRONLY)
        runner["_CHANNEL"][:] = [os.open(os.devnull, os.O_RDONLY), os.open(os.devnull, os.O_WRONLY)]
        runner["posix"] = PosixWithASlowClose(first, (requests, answers, output), 0.3, said_w)
        runner["_fork_a_spare"](requests, answers, output)
        if os.getpid() != first:
            try:  # the spare: say when it went on, and end without returning to the tests
                os.write(said_w, b"spare %r\n" % time.monotonic())
            finally:
                os._exit(0)
        for fd in runner["_CHANNEL"] + [to_spare, from_spare, said_w]:
            os.close(fd)
        for middle in runner["_MIDDLE"]:
            os.waitpid(middle, 0)
        with os.fdopen(said_r) as said:
            times = dict(line.split() for line in said)
        self.assertEqual(set(times), {"closed", "spare"}, times)
        self.assertGreater(float(times["spare"]), float(times["closed"]), times)


class Version(unittest.TestCase):
    def test_the_runner_and_the_host_speak_the_workshops_version(self):
        with open(os.path.join(REPO, "src", "bridge", "protocol.rs"), encoding="utf-8") as f:
            rust = int(re.search(r"pub\(crate\) const PROTOCOL: u64 = (\d+);", f.read()).group(1))
        self.assertEqual(load_runner()["PROTOCOL"], rust)
        with open(os.path.join(REPO, "src", "world", "host.py"), encoding="utf-8") as f:
            self.assertEqual(int(re.search(r"^PROTOCOL = (\d+)$", f.read(), re.M).group(1)), rust)


if __name__ == "__main__":
    unittest.main()
