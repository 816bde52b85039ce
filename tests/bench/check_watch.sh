#!/usr/bin/env bash
# Benchmark: in `check --watch`, a save to its new verdict (the whole of it: the file event, the
# debounce, loading the file and the calls, the redraw), side by side with a cold `check` of the
# same file, interleaved (save, cold check, save, ...) so drifting load favours neither side.
# The watch's own "checked in T ms" (loading and calls, from a Python process kept ready) is
# shown apart from the file event's share.
#
#   tests/bench/check_watch.sh [learner file] [runs]
#
# WORKSHOP_PYTHON picks the interpreter. See lib.sh.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
file="$(realpath "${1:-$repo/lessons/structured-errors/solution/errors.py}")"
runs="${2:-40}"
source "$repo/tests/bench/lib.sh"

bench_setup "$file"
echo "python: $python ($("$python" -V 2>&1))"
echo "watch:  $bin --root $repo check structured-errors --watch --file $work/errors.py"
echo "cold:   $bin --root $repo check structured-errors --file $work/errors.py"
"$python" -I - "$runs" "$bin" "$repo" "$work/errors.py" <<'PY'
import os, re, statistics, subprocess, sys, time

runs, binary, repo, path = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
source = open(path).read()
env = dict(os.environ, NO_COLOR="1")
watch = subprocess.Popen([binary, "--root", repo, "check", "structured-errors", "--watch", "--file", path],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)

def until_verdict(run):
    """Read the watch's output to the end of run `run`'s report: its "checked in" figure."""
    checked = None
    for line in watch.stdout:
        m = re.match(r"── run (\d+) · .* checked in (\d+) ms", line)
        if m and int(m.group(1)) == run:
            checked = int(m.group(2))
        if line.startswith("Watching ") and checked is not None:
            return checked
    sys.exit("the watch ended early")

until_verdict(1)
total, checked, cold = [], [], []
for n in range(runs + 3):
    time.sleep(0.3)  # the learner edits; the watch gets a process ready meanwhile
    with open(path, "w") as out:
        out.write(source + f"\n# edit {n}\n")
    start = time.perf_counter()
    took = until_verdict(n + 2)
    elapsed = (time.perf_counter() - start) * 1000
    start = time.perf_counter()
    subprocess.run([binary, "--root", repo, "check", "structured-errors", "--file", path], stdout=subprocess.DEVNULL, check=True)
    cold_ms = (time.perf_counter() - start) * 1000
    if n >= 3:  # warm-up rounds are not counted
        total.append(elapsed); checked.append(took); cold.append(cold_ms)
watch.stdin.write("q\n"); watch.stdin.flush(); watch.wait()
med = statistics.median
print(f"\ninterleaved, {runs} runs each:")
print(f"  median cold check:              {med(cold):.1f} ms")
print(f"  median save -> verdict, total:  {med(total):.1f} ms ({med(total) / med(cold):.2f}x a cold check)")
print(f"  median of it, checked in:       {med(checked):.1f} ms ({med(checked) / med(cold):.2f}x a cold check; target < 0.5x)")
print(f"  the rest (file event, debounce, redraw): {med(total) - med(checked):.1f} ms")
PY
