#!/usr/bin/env bash
# Benchmark: `workshop check` with python3 found through a version manager's shim (PATH, as a
# learner has it) against `check` with WORKSHOP_PYTHON set to the interpreter behind the shim,
# run alternately so both see the same machine; and, for scale, the shim's own start-up against
# the interpreter's (`-I -S -c pass`). Medians in ms and their ratio (target: <= 1.2x).
#
#   tests/bench/shim.sh [runs]
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
runs="${1:-40}"
bin="${WORKSHOP_BIN:-$repo/target/release/workshop}"
[[ -n "${WORKSHOP_BIN:-}" ]] || cargo build --release --quiet --manifest-path "$repo/Cargo.toml"
unset WORKSHOP_PYTHON
shim="$(command -v python3)"
head -c 2 "$shim" | grep -q '#!' || { echo "python3 on PATH ($shim) is no shim: nothing to measure" >&2; exit 1; }
real="$(python3 -I -c 'import sys; print(sys.executable)')"
file="$repo/lessons/structured-errors/solution/errors.py"
ms() { local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N); echo $(( (e - s) / 1000 )); }
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2 ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2) / 1000}'; }
"$bin" --root "$repo" check structured-errors --file "$file" >/dev/null   # the first run asks the shim
a=(); b=(); c=(); d=()
for _ in $(seq "$runs"); do
  a+=("$(ms "$bin" --root "$repo" check structured-errors --file "$file")")
  b+=("$(WORKSHOP_PYTHON="$real" ms "$bin" --root "$repo" check structured-errors --file "$file")")
  c+=("$(ms "$shim" -I -S -c pass)")
  d+=("$(ms "$real" -I -S -c pass)")
done
ma=$(printf '%s\n' "${a[@]}" | median); mb=$(printf '%s\n' "${b[@]}" | median)
mc=$(printf '%s\n' "${c[@]}" | median); md=$(printf '%s\n' "${d[@]}" | median)
echo "shim:  $shim -> $real ($runs runs each, alternating)"
printf 'check through the shim        %6.1f ms\n' "$ma"
printf 'check, WORKSHOP_PYTHON=real   %6.1f ms\n' "$mb"
printf 'ratio                          %5.2fx (target <= 1.2x)\n' "$(echo "$ma / $mb" | bc -l)"
printf 'the shim alone (-c pass)      %6.1f ms\n' "$mc"
printf 'the interpreter alone         %6.1f ms\n' "$md"
