#!/usr/bin/env bash
# Benchmark: `workshop grade --jobs 2` over a class of 57 files against the same 57 files graded
# one `workshop check` after another, side by side in one run. Prints the ratio of medians (the
# target is <= 0.6 on 2 cores). Then the sandbox's own cost: `grade --jobs 1` with bubblewrap
# against `--sandbox none`, interleaved, per file.
#
#   tests/bench/grade.sh [rounds] [jobs] [sandbox]
#
# sandbox: what the grade side runs with, bwrap (the default, which fails where bubblewrap cannot
# sandbox), auto or none.
#
# The class cycles through the reference solution and the correct and buggy learner fixtures (no
# loops or sleeps: a deadline costs the same on both sides and would only hide the difference).
# WORKSHOP_PYTHON picks the interpreter. See lib.sh.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
rounds="${1:-5}"
jobs="${2:-2}"
sandbox="${3:-bwrap}"
source "$repo/tests/bench/lib.sh"

bench_tools
sources=("$repo/lessons/structured-errors/solution/errors.py" "$repo"/tests/fixtures/learners/good_*.py "$repo"/tests/fixtures/learners/bug_*.py)
for n in $(seq 1 57); do
  mkdir -p "$work/class/s$(printf %02d "$n")"
  cp "${sources[$(((n - 1) % ${#sources[@]}))]}" "$work/class/s$(printf %02d "$n")/errors.py"
done
echo "python: $python ($("$python" -V 2>&1))"
echo "cores:  $(nproc), load now: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "class:  57 files from ${#sources[@]} sources in $work/class"
echo "grade:  $bin --root $repo grade structured-errors $work/class --jobs $jobs --sandbox $sandbox"
echo "checks: $bin --root $repo check structured-errors --file <each file> --format json, one after another"

"$python" -I - "$rounds" "$bin" "$repo" "$work/class" "$jobs" "$sandbox" <<'PY'
import os, resource, statistics, subprocess, sys, time

rounds, bin, repo, klass, jobs, sandbox = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]
files = sorted(os.path.join(root, f) for root, _, names in os.walk(klass) for f in names if f == "errors.py")
assert len(files) == 57, len(files)

def run(argv, ok=(0,)):
    status = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    if status not in ok:
        sys.exit(f"{' '.join(argv)} exited {status}")

def grade(jobs=jobs, sandbox=sandbox):
    run([bin, "--root", repo, "grade", "structured-errors", klass, "--jobs", jobs, "--sandbox", sandbox])

def checks():
    for f in files:
        run([bin, "--root", repo, "check", "structured-errors", "--file", f, "--format", "json"], ok=(0, 1))

# The verdicts agree before anything is timed.
import json
verdicts = {}
for mode in ["bwrap", "none"] if sandbox == "bwrap" else [sandbox]:
    out = subprocess.run([bin, "--root", repo, "grade", "structured-errors", klass, "--jobs", jobs, "--sandbox", mode], capture_output=True, text=True)
    graded = [json.loads(l)["status"] for l in out.stdout.splitlines()]
    if out.returncode != 0 or len(graded) != 57 or "error" in graded:
        sys.exit(f"grade --sandbox {mode} did not give 57 verdicts without errors: {graded}\n{out.stderr}")
    verdicts[mode] = graded
    print("        " + next(l for l in out.stderr.splitlines() if l.startswith("sandbox: ")))
if len(set(map(tuple, verdicts.values()))) != 1:
    sys.exit("the verdicts differ with and without the sandbox")

def cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime

times = {"grade": [], "checks": []}
cpus = {"grade": [], "checks": []}
grade(); checks()  # warm-up: caches, page cache
for n in range(rounds):
    # Alternate which side goes first, so load that drifts favours neither.
    for name, side in ([("grade", grade), ("checks", checks)] if n % 2 == 0 else [("checks", checks), ("grade", grade)]):
        start, used = time.perf_counter(), cpu()
        side()
        times[name].append(time.perf_counter() - start)
        cpus[name].append(cpu() - used)
g, c = statistics.median(times["grade"]), statistics.median(times["checks"])
gc, cc = statistics.median(cpus["grade"]), statistics.median(cpus["checks"])
print()
print(f"interleaved, {rounds} rounds each (medians):")
print(f"  grade --jobs {jobs}:   {g * 1000:.0f} ms wall for 57 files ({g * 1000 / 57:.1f} ms a file), {gc * 1000:.0f} ms CPU")
print(f"  57 checks in a row: {c * 1000:.0f} ms wall ({c * 1000 / 57:.1f} ms a file), {cc * 1000:.0f} ms CPU")
print(f"  ratio:              {g / c:.2f}x wall (target <= 0.6x), {gc / cc:.2f}x CPU")
print(f"  load average after: {open('/proc/loadavg').read().split()[0]} (on {os.cpu_count()} cores; over the core count, the wall ratio tends to the CPU ratio)")
print(f"  all rounds, grade:  {', '.join(f'{t * 1000:.0f}' for t in times['grade'])} ms")
print(f"  all rounds, checks: {', '.join(f'{t * 1000:.0f}' for t in times['checks'])} ms")
if sandbox == "bwrap":
    # The sandbox's own cost: one file at a time, so the difference is per file, not hidden by
    # the second core.
    cost = {"bwrap": [], "none": []}
    for n in range(rounds):
        for mode in (["bwrap", "none"] if n % 2 == 0 else ["none", "bwrap"]):
            start = time.perf_counter()
            grade(jobs="1", sandbox=mode)
            cost[mode].append(time.perf_counter() - start)
    b, z = statistics.median(cost["bwrap"]), statistics.median(cost["none"])
    print(f"sandbox cost, grade --jobs 1, {rounds} rounds each (medians):")
    print(f"  --sandbox bwrap: {b * 1000:.0f} ms for 57 files ({b * 1000 / 57:.1f} ms a file)")
    print(f"  --sandbox none:  {z * 1000:.0f} ms for 57 files ({z * 1000 / 57:.1f} ms a file)")
    print(f"  bubblewrap adds {(b - z) * 1000 / 57:.1f} ms a file ({b / z:.2f}x)")
sys.exit(0 if g / c <= 0.6 else 3)
PY
