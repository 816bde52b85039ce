"""Where a command's time goes, from stamps its processes write: medians over many runs.

    python3 tests/bench/timeline.py RUNS command...

The command is a build patched to append `<CLOCK_MONOTONIC ns> <pid> <label>` lines to
/tmp/tl.txt (one write per line, so processes do not interleave): in Rust, `libc::clock_gettime`
with `CLOCK_MONOTONIC`; in the runner and the world host, `time.monotonic_ns()` (the same clock),
written with `posix.write` to a descriptor opened with `O_APPEND`. The first Rust stamp must be
`rs:start` and the runner's `main` must stamp `py:main`: the process that stamps `rs:start` is
`rs`, the one that stamps `py:main` (the first interpreter, the world's) is `W`, a process
stamping `mid:...` is `M` (the middle process of the hand-over), any other is `L` (the learner's).
Each run clears the file first. Printed, in order of time: each label's median time after
`rs:start` (the first time it was written in a run, and again marked `#last` for the last), with
how many runs wrote it. docs/benchmarks.md says what such timelines showed.
"""

import collections
import statistics
import subprocess
import sys

STAMPS = "/tmp/tl.txt"


def one_run(command):
    open(STAMPS, "w").close()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    lines = [line.split(" ", 2) for line in open(STAMPS).read().splitlines()]
    lines = [line for line in lines if len(line) == 3]
    start = next((line for line in lines if line[2] == "rs:start"), None)
    if start is None:
        return {}
    roles = {start[1]: "rs"}
    for _, pid, label in lines:
        if label == "py:main":
            roles.setdefault(pid, "W")
        elif label.startswith("mid:"):
            roles.setdefault(pid, "M")
    seen = {}
    for ns, pid, label in lines:
        key = f"{roles.get(pid, 'L')} {label}"
        at = (int(ns) - int(start[0])) / 1e6
        if key in seen:
            seen[key + " #last"] = at
        else:
            seen[key] = at
    return seen


def main():
    if len(sys.argv) < 3 or not sys.argv[1].isdigit():
        sys.exit(__doc__)
    runs, command = int(sys.argv[1]), sys.argv[2:]
    times = collections.defaultdict(list)
    for _ in range(runs):
        for key, at in one_run(command).items():
            times[key].append(at)
    rows = sorted((statistics.median(v), k, len(v)) for k, v in times.items())
    for median, key, count in rows:
        print(f"{median:8.3f} ms  {key:<40} n={count}")


if __name__ == "__main__":
    main()
