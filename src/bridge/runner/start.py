# The Python side of the workshop bridge. Run as
#   python -I -S -c <this> <learner file, or - for a spare> <output cap> <answer limit> <function>...
# or imported under the same arguments from a cached copy (see `runner_code` in mod.rs). A spare
# is told its file and functions in its first request. `=` in place of the file is a spare that
# first forks a second one onto three descriptors named after the limits, having read ahead the
# file named after them, if any, and the one the call behind its first request names (the world's
# file: see `_read_ahead`, `_world_asked` and `_fork_a_spare`).
#
# The runner is one program in four parts, joined in this order where the workshop is built
# (`RUNNER` in runner.rs): start.py (this: arguments, start-up, `site` on demand), channel.py,
# load.py and spare.py. Each part uses what the parts before it define.
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
