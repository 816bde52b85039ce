#!/usr/bin/env bash
# The wheel as a learner without Rust gets it: built with maturin (pyproject.toml), installed
# with pip from the file alone (no index, no network) into a fresh virtual environment, then
# run in an empty folder whose PATH has no cargo or rustc: init, start, a failing check, the
# solution copied in and a passing check, a replay. Each step's exit status is checked, and a
# step that goes wrong is named with what it printed.
#
#   tests/wheel.sh            build the wheel, then try it
#   tests/wheel.sh WHEEL      try a wheel built already
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/workshop-wheel.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT

fail() {
  echo "wheel: FAILED: $*" >&2
  exit 1
}

python="${WORKSHOP_PYTHON:-python3}"
command -v "$python" >/dev/null 2>&1 || fail "no $python on PATH: the wheel is installed with Python's venv and pip"

if [[ $# -ge 1 ]]; then
  wheel="$1"
  [[ -f "$wheel" ]] || fail "no wheel at $wheel"
else
  maturin="$(command -v maturin || true)"
  if [[ -z "$maturin" ]]; then
    # Only maturin itself is fetched (pip's index); the crates come from cargo's own cache.
    echo "wheel: maturin is not on PATH: installing it into a throwaway environment" >&2
    "$python" -m venv "$scratch/maturin" || fail "could not make a virtual environment for maturin"
    "$scratch/maturin/bin/pip" install --quiet "maturin>=1,<2" || fail "could not install maturin with pip (it needs pip's index once)"
    maturin="$scratch/maturin/bin/maturin"
  fi
  started=$SECONDS
  (cd "$repo" && "$maturin" build --release --locked --offline --out "$scratch/dist") \
    || fail "maturin build --release --locked --offline did not build the wheel (see above)"
  echo "wheel: built in $((SECONDS - started)) s" >&2
  wheels=("$scratch"/dist/*.whl)
  [[ ${#wheels[@]} -eq 1 && -f "${wheels[0]}" ]] || fail "expected one wheel in $scratch/dist, found: ${wheels[*]}"
  wheel="${wheels[0]}"
fi
started=$SECONDS

# What the wheel holds: the binary and its metadata, nothing of the developer's folders.
"$python" - "$wheel" <<'EOF' || fail "the wheel holds files it should not (listed above)"
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
stray = [n for n in names if not (n.endswith("/scripts/workshop") or ".dist-info/" in n)]
if stray or not any(n.endswith(".data/scripts/workshop") for n in names):
    print("wheel: its files are:\n  " + "\n  ".join(names), file=sys.stderr)
    sys.exit(1)
EOF
echo "wheel: $(basename "$wheel"), $(wc -c <"$wheel") bytes" >&2

"$python" -m venv "$scratch/venv" || fail "could not make a fresh virtual environment"
"$scratch/venv/bin/pip" install --quiet --no-index "$wheel" || fail "pip install --no-index $wheel failed"

# The learner's shell: the environment's bin/ and the system's, no cargo, a home of its own.
course_home="$scratch/home"
mkdir -p "$course_home" "$scratch/empty"
learner=(env -i "PATH=$scratch/venv/bin:/usr/bin:/bin" "HOME=$course_home" "LANG=C.UTF-8" "TERM=dumb")
for tool in cargo rustc; do
  if "${learner[@]}" sh -c "command -v $tool" >/dev/null 2>&1; then
    fail "$tool is on the learner's PATH ($scratch/venv/bin:/usr/bin:/bin), so this run would not show the wheel works without Rust"
  fi
done

# run WHERE STATUS WORDS...: run a command as the learner, in WHERE, and check its exit status.
run() {
  local where="$1" want="$2"
  shift 2
  local got=0
  (cd "$where" && "${learner[@]}" "$@") >"$scratch/out" 2>"$scratch/err" || got=$?
  echo "wheel: \$ $* -> $got" >&2
  if [[ "$got" != "$want" ]]; then
    echo "--- stdout" >&2
    cat "$scratch/out" >&2
    echo "--- stderr" >&2
    cat "$scratch/err" >&2
    fail "'$*' in $where exited with $got, expected $want"
  fi
}

course="$scratch/empty/workshop-course"
run "$scratch/empty" 0 workshop init
[[ -f "$course/lessons/tool-results/lesson.toml" && -f "$course/work/.gitkeep" && -f "$course/README.md" ]] \
  || fail "workshop init did not write lessons/, work/.gitkeep and README.md into $course"
run "$scratch/empty" 1 workshop init
grep -q "course folder already" "$scratch/err" || fail "a second init did not say the folder is a course already"
run "$course" 0 workshop start tool-results
grep -q "workshop check tool-results" "$scratch/out" || fail "start did not name the next command"
! grep -q '\./workshop' "$scratch/out" || fail "start named ./workshop, which is no command in a course folder"
run "$course" 1 workshop check
cp "$course/lessons/tool-results/solution/results.py" "$course/work/tool-results/results.py"
run "$course/work" 0 workshop check
run "$course" 0 workshop watch tool-results --no-anim
grep -q "Customer" "$scratch/out" || fail "watch printed no replay"
echo "wheel: installed and ran in $((SECONDS - started)) s, without Rust on PATH: all steps as expected" >&2
