#!/usr/bin/env bash
# Benchmark: one `workshop watch --no-anim` replay of a ticket with the reference code, against the
# Python floor: a bare `python3 -I -c` that stubs kit.api, imports the same errors.py and makes the
# same fail/should_retry calls. Prints the ratio of medians (the target is <= 1.5).
#
#   tests/bench/watch.sh [ticket] [runs] [runtime]
#
# The calls the bare process makes are recorded from a real replay (through a wrapper that logs
# every call), so both sides make exactly the same calls with the same arguments.
# The ratio comes from interleaved runs timed in Python (os.wait4: wall and CPU time of each child);
# hyperfine, when installed, also prints its statistics to stderr (BENCH_HYPERFINE=0 skips it).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
ticket="${1:-old-order}"
runs="${2:-40}"
runtime="${3:-harness}"
solution="$repo/lessons/structured-errors/solution/errors.py"
bin="${WORKSHOP_BIN:-${CARGO_TARGET_DIR:-$repo/target}/release/workshop}"
# The interpreter itself, not a launcher such as a pyenv shim, so neither side pays for one.
python="$("${WORKSHOP_PYTHON:-python3}" -I -c 'import sys; print(sys.executable)')"
export WORKSHOP_PYTHON="$python"

if [[ ! -x "$bin" ]]; then
  echo "building the release binary..." >&2
  cargo build --release --quiet --manifest-path "$repo/Cargo.toml"
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# A private copy, so the bare side writes no __pycache__ beside the original.
cp "$solution" "$work/errors.py"
log="$work/calls.log"

# 1. Record the calls the replay makes, through a wrapper that logs them and then delegates.
cat >"$work/recorder.py" <<PY
import importlib.util
_spec = importlib.util.spec_from_file_location("bench_target", "$work/errors.py")
_target = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_target)

def _log(name, args):
    with open("$log", "a", encoding="utf-8") as out:
        out.write(repr((name, args)) + "\n")

def fail(*args):
    _log("fail", args)
    return _target.fail(*args)

def should_retry(*args):
    _log("should_retry", args)
    return _target.should_retry(*args)
PY
replay="$("$bin" --root "$repo" watch --ticket "$ticket" --runtime "$runtime" --code "$work/recorder.py" --no-anim --format json)" || {
  echo "the replay of $ticket did not run" >&2
  exit 1
}
"$python" -I -c '
import json, sys
events = json.loads(sys.argv[1])["events"]
if events[-1]["kind"] != "reply":
    sys.exit("the recorded replay of the reference code did not end in a reply: " + events[-1]["kind"])
' "$replay"
calls="$(wc -l <"$log")"
fails="$(grep -c "^('fail'" "$log" || true)"
retries="$(grep -c "^('should_retry'" "$log" || true)"

# 2. The bare process, on one line for `python3 -I -c`: stub kit.api, import the file, make the calls.
program="import sys; kit = type(sys)('kit'); kit.__path__ = []; api = type(sys)('kit.api'); api.Json = dict"
program+="; kit.api = api; sys.modules['kit'] = kit; sys.modules['kit.api'] = api"
program+="; sys.path.insert(0, '$work'); import errors"
while IFS= read -r call; do
  program+="; (lambda name, args: getattr(errors, name)(*args))(*$call)"
done <"$log"
"$python" -I -c "$program" || {
  echo "the bare program does not run:" >&2
  echo "$program" >&2
  exit 1
}
# hyperfine -N splits its command line like a POSIX shell: quote the program for that.
quoted="'${program//\'/\'\\\'\'}'"

watch_cmd="$bin --root $repo watch --ticket $ticket --runtime $runtime --code structured --no-anim"
bare_cmd="$python -I -c $quoted"
echo "ticket:  $ticket ($runtime)"
echo "python:  $python ($("$python" -V 2>&1))"
echo "calls:   $calls ($fails fail, $retries should_retry), the same on both sides"
echo "watch:   $watch_cmd"
echo "bare:    $python -I -c \"$program\""
echo

# Interleaved: watch, bare, watch, bare... so load from other processes that comes and goes
# falls on both sides alike (hyperfine runs all of one command, then all of the other). Wall time
# is the figure; CPU time (user + system of the child) is shown too, as it is steadier on a busy
# machine.
"$python" - "$runs" "$work/times.txt" "$bin" --root "$repo" watch --ticket "$ticket" --runtime "$runtime" \
  --code structured --no-anim -- "$python" -I -c "$program" <<'PY'
import os, statistics, subprocess, sys, time
runs, out = int(sys.argv[1]), sys.argv[2]
cut = sys.argv.index("--")
sides = {"watch": sys.argv[3:cut], "bare": sys.argv[cut + 1:]}
wall = {name: [] for name in sides}
cpu = {name: [] for name in sides}
def once(cmd):
    start = time.perf_counter()
    child = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        sys.exit(f"{cmd[0]} exited with {child.returncode}")
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime
for cmd in sides.values():
    for _ in range(3):
        once(cmd)
for _ in range(runs):
    for name, cmd in sides.items():
        w, c = once(cmd)
        wall[name].append(w * 1000)
        cpu[name].append(c * 1000)
with open(out, "w") as f:
    for name in sides:
        f.write("%.2f %.2f %.2f %.2f\n" % (statistics.median(wall[name]), min(wall[name]), max(wall[name]), statistics.median(cpu[name])))
PY
{ read -r watch_ms watch_min watch_max watch_cpu; read -r bare_ms bare_min bare_max bare_cpu; } <"$work/times.txt"

if command -v hyperfine >/dev/null 2>&1 && [[ "${BENCH_HYPERFINE:-1}" != 0 ]]; then
  # For the detail (mean, spread, outliers); the ratio below comes from the interleaved runs.
  hyperfine --warmup 3 --runs "$runs" -N "$watch_cmd" "$bare_cmd" >&2
fi
ratio="$(awk -v a="$watch_ms" -v b="$bare_ms" 'BEGIN {printf "%.2f", a / b}')"
echo
cpu_ratio="$(awk -v a="$watch_cpu" -v b="$bare_cpu" 'BEGIN {printf "%.2f", a / b}')"
echo "runs:         $runs each, interleaved"
echo "median watch: ${watch_ms} ms wall (min ${watch_min}, max ${watch_max}), ${watch_cpu} ms CPU"
echo "median bare:  ${bare_ms} ms wall (min ${bare_min}, max ${bare_max}), ${bare_cpu} ms CPU"
echo "ratio:        ${ratio}x wall (target <= 1.5x), ${cpu_ratio}x CPU"
awk -v r="$ratio" 'BEGIN {exit !(r <= 1.5)}' || { echo "over the target" >&2; exit 3; }
