#!/usr/bin/env bash
# Benchmark: `workshop grade --jobs 2` over a class of 57 files against the same 57 files graded
# one `workshop check` after another, side by side in one run. Prints the ratio of medians (the
# targets on 2 cores: <= 0.75 with bubblewrap, <= 0.55 with --sandbox none). Then the sandbox's own cost: `grade --jobs 1` with bubblewrap
# against `--sandbox none`, interleaved, per file. Then the floor of any grading that gives each
# file a fresh sandbox and interpreter: grade's own bwrap command line (read from a running
# grade), starting the interpreter on `pass` 57 times, two at a time and one at a time (the
# floor of the per-file cost above, which grades one at a time).
#
# CPU is the whole machine's (from /proc/stat, so it counts the processes the kernel ends inside a
# PID namespace, which no wait of ours reports): read it on a quiet machine.
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
bench_class
echo "python: $python ($("$python" -V 2>&1))"
echo "cores:  $(nproc), load now: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "class:  57 files from ${#sources[@]} sources in $work/class"
echo "grade:  $bin --root $repo grade structured-errors $work/class --jobs $jobs --sandbox $sandbox"
echo "checks: $bin --root $repo check structured-errors --file <each file> --format json, one after another"

"$python" -I - "$rounds" "$bin" "$repo" "$work/class" "$jobs" "$sandbox" <<'PY'
import os, statistics, subprocess, sys, time

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
    # Busy time of every core, in seconds: all but idle and iowait.
    with open("/proc/stat") as stat:
        ticks = [int(t) for t in stat.readline().split()[1:]]
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")

def bwrap_argv():
    """The bwrap command line grade runs a file with, read from /proc while a file that sleeps
    at import is graded, the private folder it names (gone once grade ends), and a copy of the
    read-only root it shows every sandbox (grade's own goes with it; the command line names the
    copy), to remove after."""
    import shutil, tempfile, signal
    slow = tempfile.mkdtemp()
    os.makedirs(f"{slow}/s1")
    with open(f"{slow}/s1/errors.py", "w") as f:
        f.write("import time\ntime.sleep(30)\n")
    grade = subprocess.Popen([bin, "--root", repo, "grade", "structured-errors", slow, "--sandbox", "bwrap", "--timeout", "30"],
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        until = time.time() + 20
        while time.time() < until:
            for pid in filter(str.isdigit, os.listdir("/proc")):
                try:
                    with open(f"/proc/{pid}/stat") as f:
                        ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                    with open(f"/proc/{pid}/cmdline", "rb") as f:
                        argv = [a.decode() for a in f.read().split(b"\0")[:-1]]
                except (OSError, ValueError, IndexError):
                    continue
                # The file's own sandbox, not the probe grade starts first.
                if ppid == grade.pid and argv and os.path.basename(argv[0]) == "bwrap" and any(a.endswith("/errors.py") for a in argv):
                    argv = argv[:argv.index("--") + 1]
                    if "--block-fd" in argv:  # a sandbox made ahead of its turn: this one goes at once
                        at = argv.index("--block-fd")
                        del argv[at:at + 2]
                    view = None
                    for i in range(len(argv) - 2):
                        if argv[i] == "--ro-bind" and argv[i + 2] == "/":
                            view = tempfile.mkdtemp()
                            os.chmod(view, 0o755)
                            shutil.copytree(argv[i + 1], view, symlinks=True, dirs_exist_ok=True)
                            argv[i + 1] = view
                    return argv, argv[argv.index("--chdir") + 1], view
            time.sleep(0.01)
        sys.exit("no bwrap of grade's was seen within 20 s")
    finally:
        grade.send_signal(signal.SIGTERM)
        grade.wait()
        shutil.rmtree(slow)

def floor(checks_times):
    """57 fresh sandboxes, each starting the interpreter on `pass`, two at a time: what any
    grading that gives every file its own sandbox and interpreter costs before it runs a check."""
    import concurrent.futures, shutil
    argv, folder, view = bwrap_argv()
    python = os.environ["WORKSHOP_PYTHON"]
    def one(command):
        run(command)
    def both(command):
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            list(pool.map(lambda _: one(command), range(57)))
    def in_turn(command):
        for _ in range(57):
            one(command)
    os.makedirs(folder, mode=0o700)
    try:
        for name in os.listdir(klass + "/s01"):
            open(f"{folder}/{name}", "w").close()
        sides = {"bwrap + python": argv + [python, "-I", "-S", "-c", "pass"], "python alone": [python, "-I", "-S", "-c", "pass"]}
        took = {(name, way): [] for name in sides for way in ("two at a time", "one at a time")}
        both(sides["bwrap + python"])  # warm-up
        for n in range(rounds):
            for name, command in sides.items():
                for way, starts in (("two at a time", both), ("one at a time", in_turn)):
                    start = time.perf_counter()
                    starts(command)
                    took[(name, way)].append(time.perf_counter() - start)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        if view:
            shutil.rmtree(view, ignore_errors=True)
    c = statistics.median(checks_times)
    print(f"the floor of a fresh sandbox and interpreter per file, 57 starts of `pass`, {rounds} rounds (medians):")
    for way in ("two at a time", "one at a time"):
        print(f"  {way}:")
        for name in sides:
            t = statistics.median(took[(name, way)])
            print(f"    {name + ':':16s}{t * 1000:.0f} ms ({t / c:.2f}x the checks above)")
        extra = statistics.median(took[("bwrap + python", way)]) - statistics.median(took[("python alone", way)])
        print(f"    bubblewrap's own start: {extra * 1000 / 57:.1f} ms a file")

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
target = 0.55 if sandbox == "none" else 0.75
print(f"  ratio:              {g / c:.2f}x wall (target <= {target}x), {gc / cc:.2f}x CPU (the machine's)")
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
    floor(times["checks"])
sys.exit(0 if g / c <= target else 3)
PY
