#!/usr/bin/env bash
# Benchmark: one `workshop check` of a correct file, side by side with a bare `python3 -I` process
# that imports the same file and makes the same calls, and with the floor of any Python program,
# `python3 -I -S -c pass`: ratios of medians (the target is check <= 1.5x the floor).
#
#   tests/bench/check.sh [learner file] [runs]
#
# WORKSHOP_PYTHON picks the interpreter; BENCH_HYPERFINE=0 skips hyperfine. See lib.sh.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
file="$(realpath "${1:-$repo/lessons/structured-errors/solution/errors.py}")"
runs="${2:-100}"
source "$repo/tests/bench/lib.sh"

bench_setup "$file"
"$bin" --root "$repo" check structured-errors --file "$work/recorder.py" --format json >/dev/null || {
  echo "check did not pass on $file: benchmark a correct file" >&2
  exit 1
}
bench_bare
echo "file:   $file"
bench_compare check "$bin --root $repo check structured-errors --file $work/errors.py" "$runs" \
  "floor=$python -I -S -c pass"
