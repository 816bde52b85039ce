#!/usr/bin/env bash
# Benchmark: the sandbox's own cost per file, for one build or several side by side: `grade
# --jobs 1` over the class of grade.sh (57 files) with `--sandbox bwrap` and with `--sandbox none`,
# every build and both sides interleaved round by round (the side that goes first alternates), so
# load that drifts favours none. Prints, per build, the medians per file and bubblewrap's share.
# The same figure as grade.sh's middle lines, with more rounds and builds beside each other.
#
#   tests/bench/sandbox_cost.sh [rounds] [build...]
#
# A build is a workshop binary (default: this checkout's release build, rebuilt when stale).
# CPU is the whole machine's (from /proc/stat): read it on a quiet machine. WORKSHOP_PYTHON picks
# the interpreter. See lib.sh.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
rounds="${1:-10}"
shift || true
source "$repo/tests/bench/lib.sh"

bench_tools
builds=("$@")
if ((${#builds[@]} == 0)); then
  builds=("$bin")
fi
bench_class
echo "python: $python ($("$python" -V 2>&1))"
echo "cores:  $(nproc), load now: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "grade:  <build> --root $repo grade structured-errors $work/class --jobs 1 --sandbox bwrap|none"

"$python" -I - "$rounds" "$repo" "$work/class" "${builds[@]}" <<'PY'
import os, statistics, subprocess, sys, time

rounds, repo, klass, builds = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]

def cpu():
    # Busy time of every core, in seconds: all but idle and iowait.
    with open("/proc/stat") as stat:
        ticks = [int(t) for t in stat.readline().split()[1:]]
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")

def grade(build, mode):
    argv = [build, "--root", repo, "grade", "structured-errors", klass, "--jobs", "1", "--sandbox", mode]
    status = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    if status != 0:
        sys.exit(f"{' '.join(argv)} exited {status}")

sides = [(build, mode) for build in builds for mode in ("bwrap", "none")]
wall = {side: [] for side in sides}
used = {side: [] for side in sides}
loads = []
for side in sides:
    grade(*side)  # warm-up: caches, page cache
for n in range(rounds):
    for side in sides if n % 2 == 0 else reversed(sides):
        start, before = time.perf_counter(), cpu()
        grade(*side)
        wall[side].append(time.perf_counter() - start)
        used[side].append(cpu() - before)
    loads.append(float(open("/proc/loadavg").read().split()[0]))
print()
print(f"interleaved, {rounds} rounds each (medians, per file of 57):")
for build in builds:
    b, z = statistics.median(wall[(build, "bwrap")]) * 1000 / 57, statistics.median(wall[(build, "none")]) * 1000 / 57
    cb, cz = statistics.median(used[(build, "bwrap")]) * 1000 / 57, statistics.median(used[(build, "none")]) * 1000 / 57
    print(f"  {build}")
    print(f"    wall: bwrap {b:.1f} ms, none {z:.1f} ms: bubblewrap adds {b - z:.1f} ms a file ({b / z:.2f}x)")
    print(f"    CPU (the machine's): bwrap {cb:.1f} ms, none {cz:.1f} ms: {cb - cz:+.1f} ms a file")
print(f"  load average during: {min(loads):.2f} to {max(loads):.2f} (on {os.cpu_count()} cores)")
PY
