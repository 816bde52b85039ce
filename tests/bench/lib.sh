# Shared by check.sh and watch.sh: both time one workshop command against a bare `python3 -I`
# that imports the same errors.py and makes exactly the calls the command made, recorded through
# a logging wrapper. Source it after setting `repo`, then call the functions in order. grade.sh
# uses bench_tools only.

# The interpreter itself, not a launcher such as a pyenv shim, so neither side pays for one; the
# release binary, rebuilt when stale (a no-op when fresh) so a stale one is never benchmarked; and
# a private work folder, so neither side writes __pycache__ beside the original files.
bench_tools() {
  bin="${WORKSHOP_BIN:-${CARGO_TARGET_DIR:-$repo/target}/release/workshop}"
  python="$("${WORKSHOP_PYTHON:-python3}" -I -c 'import sys; print(sys.executable)')"
  export WORKSHOP_PYTHON="$python"
  if [[ -z "${WORKSHOP_BIN:-}" ]]; then
    cargo build --release --quiet --manifest-path "$repo/Cargo.toml"
  fi
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
}

# The interpreter, binary and folder above, with the learner file copied into the folder.
bench_setup() {
  local file="$1"
  bench_tools
  cp "$file" "$work/errors.py"
  log="$work/calls.log"
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
}

# After the command ran on $work/recorder.py: the bare side. The calls live in a module of their
# own, so Python caches their bytecode as it does the file's, and the bare side pays for no
# compiling that a real bare run would not.
bench_bare() {
  calls="$(wc -l <"$log")"
  fails="$(grep -c "^('fail'" "$log" || true)"
  retries="$(grep -c "^('should_retry'" "$log" || true)"
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
  bare_cmd="$python -I $work/bare.py"
  "$python" -I "$work/bare.py" || { echo "the bare side does not run" >&2; exit 1; }
}

# Time `$1` (a name) with command `$2` against the bare side, and against each further
# "name=command" given (a floor such as a bare interpreter start): hyperfine's figures when it is
# installed (side after side), then the figures that count, from interleaved runs (tool, bare,
# floor, tool, bare, floor...) so load that drifts during the run favours none. Exits 3 when the
# tool is over 1.5x the last side named (the bare side, when no other is given).
bench_compare() {
  local name="$1" cmd="$2" runs="$3"
  shift 3
  local names=("$name" bare) cmds=("$cmd" "$bare_cmd") side
  for side in "$@"; do
    names+=("${side%%=*}")
    cmds+=("${side#*=}")
  done
  echo "python: $python ($("$python" -V 2>&1))"
  echo "calls:  $calls ($fails fail, $retries should_retry), the same on both sides"
  for i in "${!names[@]}"; do
    printf '%-7s %s\n' "${names[$i]}:" "${cmds[$i]}"
  done
  echo
  if command -v hyperfine >/dev/null 2>&1 && [[ "${BENCH_HYPERFINE:-1}" != 0 ]]; then
    hyperfine --warmup 3 --runs "$runs" -N "${cmds[@]}" >&2
  fi
  local figures
  figures="$("$python" -I - "$runs" "${cmds[@]}" <<'PY'
import ctypes, os, resource, shlex, statistics, subprocess, sys, time

# A child subreaper: what a command leaves to die after it exits (the workshop does not wait for
# a Python it killed that had no children) comes back here, so its CPU time is counted too.
ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER

def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (usage.ru_utime + usage.ru_stime) * 1000

runs, commands = int(sys.argv[1]), [shlex.split(c) for c in sys.argv[2:]]
wall, cpu = ([[] for _ in commands] for _ in range(2))
for n in range(runs + 3):
    for i, argv in enumerate(commands):
        before = children_cpu()
        start = time.perf_counter()
        child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, _ = os.wait4(child.pid, 0)
        took = (time.perf_counter() - start) * 1000
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"{argv[0]} failed")
        while True:  # what it left behind, reaped (its time is then in RUSAGE_CHILDREN)
            try:
                os.waitpid(-1, 0)
            except ChildProcessError:
                break
        if n >= 3:  # warm-up rounds are not counted
            wall[i].append(took)
            cpu[i].append(children_cpu() - before)
for w, c in zip(wall, cpu):
    print("%.2f %.2f" % (statistics.median(w), statistics.median(c)))
PY
)"
  local tool_ms tool_cpu ms cpu ratio
  read -r tool_ms tool_cpu <<<"$(sed -n 1p <<<"$figures")"
  echo
  echo "interleaved, $runs runs each (these are the figures that count):"
  for i in "${!names[@]}"; do
    read -r ms cpu <<<"$(sed -n "$((i + 1))p" <<<"$figures")"
    printf '  median %-6s %7s ms wall, %7s ms CPU' "${names[$i]}:" "$ms" "$cpu"
    if ((i > 0)); then
      ratio="$(awk -v a="$tool_ms" -v b="$ms" 'BEGIN {printf "%.2f", a / b}')"
      printf '   %s is %sx wall, %sx CPU' "$name" "$ratio" "$(awk -v a="$tool_cpu" -v b="$cpu" 'BEGIN {printf "%.2f", a / b}')"
    fi
    echo
  done
  echo "  target: $name <= 1.5x ${names[-1]} (wall)"
  awk -v r="$ratio" 'BEGIN {exit !(r <= 1.5)}' || { echo "over the target" >&2; exit 3; }
}

# A class of 57 submissions in $work/class/sNN/errors.py, from the lesson's solution and the
# learner fixtures over and over (some pass, some fail); $sources lists them.
bench_class() {
  sources=("$repo/lessons/structured-errors/solution/errors.py" "$repo"/tests/fixtures/learners/good_*.py "$repo"/tests/fixtures/learners/bug_*.py)
  for n in $(seq 1 57); do
    mkdir -p "$work/class/s$(printf %02d "$n")"
    cp "${sources[$(((n - 1) % ${#sources[@]}))]}" "$work/class/s$(printf %02d "$n")/errors.py"
  done
}
