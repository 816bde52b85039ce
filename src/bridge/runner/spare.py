# The runner, part 4 of 4 (see start.py): the spare forked ahead of its file, the cores it
# starts on, and the loop that answers requests.

def _fork_a_spare(requests, answers, output):
    """Fork a second spare runner once this one is ready and before anything is loaded into
    either: a command then starts one interpreter instead of two (see `warm.rs`, which gives the
    fork the learner's file and this process the lesson's world). The fork speaks on the three
    descriptors, leads a process group of its own, and is handed to the workshop (its child
    subreaper) by a middle process, so this process is never a descendant of the one the
    learner's file loads into. The middle process ends once this one has closed its copies of
    the three descriptors (this one holds the write end of `gate` until then), and the spare
    waits for it to be gone: the learner's file never runs while the world's process still
    holds a pipe of its. This one goes on at once, without waiting for the middle process to end
    (it is reaped later, see `_reap_middle`): its file is the one the command waits for. Returns
    in both runners."""
    global _PID
    # What exists now is left out of collections on both sides of the fork: a collection touches
    # every object it looks at, and each page it touches is then copied for the process that did.
    gc.freeze()
    cores, elsewhere = _cores()
    gate = None
    try:
        gate = posix.pipe()
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
            posix.close(gate[1])
            spare = posix.fork()
            if spare == 0:
                posix.close(gate[0])
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
            # Until this runner has let go of the spare's descriptors (or has ended).
            posix.read(gate[0], 1)
        except BaseException:
            pass
        posix._exit(0)
    for fd in (requests, answers, output):
        posix.close(fd)
    for fd in gate or ():
        posix.close(fd)
    gc.unfreeze()
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
