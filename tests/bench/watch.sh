#!/usr/bin/env bash
# Benchmark: one `workshop watch --no-anim` replay of a ticket with the reference code, against
# the Python floor: a bare `python3 -I` that imports the same errors.py and makes the same
# fail/should_retry calls. Prints the ratio of medians (the target is <= 1.5).
#
#   tests/bench/watch.sh [ticket] [runs] [runtime]
#
# WORKSHOP_PYTHON picks the interpreter; BENCH_HYPERFINE=0 skips hyperfine. See lib.sh.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
ticket="${1:-old-order}"
runs="${2:-40}"
runtime="${3:-harness}"
source "$repo/tests/bench/lib.sh"

bench_setup "$repo/lessons/structured-errors/solution/errors.py"
replay="$("$bin" --root "$repo" watch structured-errors --ticket "$ticket" --runtime "$runtime" --code "$work/recorder.py" --no-anim --format json)" || {
  echo "the replay of $ticket did not run" >&2
  exit 1
}
"$python" -I -c '
import json, sys
events = json.loads(sys.argv[1])["events"]
if events[-1]["kind"] != "reply":
    sys.exit("the recorded replay of the reference code did not end in a reply: " + events[-1]["kind"])
' "$replay"
bench_bare
echo "ticket: $ticket ($runtime)"
bench_compare watch "$bin --root $repo watch structured-errors --ticket $ticket --runtime $runtime --code structured --no-anim" "$runs"
