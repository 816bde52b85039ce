#!/usr/bin/env bash
# Benchmark: one `workshop check` of a correct file against a bare `python3 -I` process that
# imports the same file and makes the same calls, as a ratio of medians (the target is <= 1.5).
#
#   tests/bench/check.sh [learner file] [runs]
#
# The calls the bare process makes are recorded from a real `check` run (through a wrapper that
# logs every call), so both sides make exactly the same calls with the same arguments.
# The ratio that counts comes from interleaved runs (check, bare, check, bare...) timed by the
# benchmarked interpreter itself, so load that drifts during the run favours neither side;
# hyperfine's figures (side after side) are shown too when it is installed.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
file="$(realpath "${1:-$repo/lessons/structured-errors/solution/errors.py}")"
runs="${2:-100}"
bin="${WORKSHOP_BIN:-${CARGO_TARGET_DIR:-$repo/target}/release/workshop}"
# The interpreter itself, not a launcher such as a pyenv shim, so neither side pays for one.
python="$("${WORKSHOP_PYTHON:-python3}" -I -c 'import sys; print(sys.executable)')"
export WORKSHOP_PYTHON="$python"

if [[ -z "${WORKSHOP_BIN:-}" ]]; then
  # A no-op when the binary is fresh; never benchmark a stale one.
  cargo build --release --quiet --manifest-path "$repo/Cargo.toml"
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# A private copy, so neither side writes __pycache__ beside the original.
cp "$file" "$work/errors.py"
log="$work/calls.log"

# 1. Record the calls `check` makes, through a wrapper that logs them and then delegates.
cat >"$work/recorder.py" <<PY
import importlib.util, sys
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
"$bin" --root "$repo" check --file "$work/recorder.py" --format json >/dev/null || {
  echo "check did not pass on $file: benchmark a correct file" >&2
  exit 1
}
calls="$(wc -l <"$log")"
fails="$(grep -c "^('fail'" "$log" || true)"
retries="$(grep -c "^('should_retry'" "$log" || true)"

# 2. The bare process: stub kit.api, import the file, make the recorded calls. The calls live in
#    a module of their own, so Python caches their bytecode as it does the file's: the bare side
#    pays for no compiling that a real bare run would not.
{
  echo "CALLS = ["
  sed 's/$/,/' "$log"
  echo "]"
} >"$work/bench_calls.py"
cat >"$work/bare.py" <<PY
import sys
kit = type(sys)("kit"); kit.__path__ = []
api = type(sys)("kit.api"); api.Json = dict; kit.api = api
sys.modules["kit"] = kit; sys.modules["kit.api"] = api
sys.path.insert(0, "$work")
import errors, bench_calls
for name, args in bench_calls.CALLS:
    getattr(errors, name)(*args)
PY

check_cmd="$bin --root $repo check --file $work/errors.py"
bare_cmd="$python -I $work/bare.py"
echo "file:   $file"
echo "python: $python ($("$python" -V 2>&1))"
echo "calls:  $calls ($fails fail, $retries should_retry), the same on both sides"
echo "check:  $check_cmd"
echo "bare:   $bare_cmd"
echo

# Interleaved runs (check, bare, check, bare...), so a machine whose load drifts during the
# benchmark biases neither side. Wall time and CPU time (user + sys, from wait4) per run.
interleaved() {
  "$python" -I - "$runs" "$check_cmd" "$bare_cmd" <<'PY'
import os, shlex, statistics, subprocess, sys, time

runs, commands = int(sys.argv[1]), [shlex.split(c) for c in sys.argv[2:]]
wall, cpu = ([[] for _ in commands] for _ in range(2))
for n in range(runs + 3):
    for i, argv in enumerate(commands):
        start = time.perf_counter()
        child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, _, usage = os.wait4(child.pid, 0)
        if n >= 3:  # warm-up rounds are not counted
            wall[i].append((time.perf_counter() - start) * 1000)
            cpu[i].append((usage.ru_utime + usage.ru_stime) * 1000)
print(" ".join("%.2f" % statistics.median(x) for x in (wall[0], wall[1], cpu[0], cpu[1])))
PY
}

if command -v hyperfine >/dev/null 2>&1; then
  hyperfine --warmup 3 --runs "$runs" -N --export-json "$work/h.json" "$check_cmd" "$bare_cmd" >&2
  read -r h_check h_bare < <("$python" -I -c '
import json, sys
r = json.load(open(sys.argv[1]))["results"]
print(" ".join("%.2f" % (x["median"] * 1000) for x in r))' "$work/h.json")
  echo
  echo "hyperfine (all check runs, then all bare runs):"
  echo "  median check: ${h_check} ms, median bare: ${h_bare} ms, ratio $(awk -v a="$h_check" -v b="$h_bare" 'BEGIN {printf "%.2f", a / b}')x"
fi

read -r check_ms bare_ms check_cpu bare_cpu < <(interleaved)
ratio="$(awk -v a="$check_ms" -v b="$bare_ms" 'BEGIN {printf "%.2f", a / b}')"
cpu_ratio="$(awk -v a="$check_cpu" -v b="$bare_cpu" 'BEGIN {printf "%.2f", a / b}')"
echo
echo "interleaved, $runs runs each (this is the figure that counts):"
echo "  median check: ${check_ms} ms wall, ${check_cpu} ms CPU"
echo "  median bare:  ${bare_ms} ms wall, ${bare_cpu} ms CPU"
echo "  ratio:        ${ratio}x wall, ${cpu_ratio}x CPU (target <= 1.5x)"
awk -v r="$ratio" 'BEGIN {exit !(r <= 1.5)}' || { echo "over the target" >&2; exit 3; }
