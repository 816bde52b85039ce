#!/usr/bin/env bash
# Benchmark: one `workshop check` of a correct file against a bare `python3 -I` process that
# imports the same file and makes the same calls, as a ratio of medians (the target is <= 1.5).
#
#   tests/bench/check.sh [learner file] [runs]
#
# The calls the bare process makes are recorded from a real `check` run (through a wrapper that
# logs every call), so both sides make exactly the same calls with the same arguments.
# Uses hyperfine when it is installed, else a loop timed with `date +%s%N`.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
file="$(realpath "${1:-$repo/lessons/structured-errors/solution/errors.py}")"
runs="${2:-40}"
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

# 2. The bare process: stub kit.api, import the file, make the recorded calls.
{
  echo "import sys, types"
  echo "kit = types.ModuleType('kit'); kit.__path__ = []"
  echo "api = types.ModuleType('kit.api'); api.Json = dict; kit.api = api"
  echo "sys.modules['kit'] = kit; sys.modules['kit.api'] = api"
  echo "sys.path.insert(0, '$work')"
  echo "import errors"
  echo "CALLS = ["
  sed 's/$/,/' "$log"
  echo "]"
  echo "for name, args in CALLS:"
  echo "    getattr(errors, name)(*args)"
} >"$work/bare.py"

check_cmd="$bin --root $repo check --file $work/errors.py"
bare_cmd="$python -I $work/bare.py"
echo "file:   $file"
echo "python: $python ($("$python" -V 2>&1))"
echo "calls:  $calls ($fails fail, $retries should_retry), the same on both sides"
echo "check:  $check_cmd"
echo "bare:   $bare_cmd"
echo

median_ms() { # command... -> median wall time in ms over $runs runs (after 3 warm-ups)
  local times=() i s e
  for i in 1 2 3; do "$@" >/dev/null 2>&1 || true; done
  for ((i = 0; i < runs; i++)); do
    s=$(date +%s%N)
    "$@" >/dev/null 2>&1 || true
    e=$(date +%s%N)
    times+=($(((e - s) / 1000)))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2; printf "%.2f\n", m / 1000}'
}

if command -v hyperfine >/dev/null 2>&1; then
  hyperfine --warmup 3 --runs "$runs" -N --export-json "$work/h.json" "$check_cmd" "$bare_cmd" >&2
  read -r check_ms bare_ms < <("$python" -c '
import json, sys
r = json.load(open(sys.argv[1]))["results"]
print(" ".join("%.2f" % (x["median"] * 1000) for x in r))' "$work/h.json")
else
  # shellcheck disable=SC2086
  check_ms="$(median_ms $check_cmd)"
  # shellcheck disable=SC2086
  bare_ms="$(median_ms $bare_cmd)"
fi
ratio="$(awk -v a="$check_ms" -v b="$bare_ms" 'BEGIN {printf "%.2f", a / b}')"
echo
echo "median check: ${check_ms} ms"
echo "median bare:  ${bare_ms} ms"
echo "ratio:        ${ratio}x (target <= 1.5x)"
awk -v r="$ratio" 'BEGIN {exit !(r <= 1.5)}' || { echo "over the target" >&2; exit 3; }
