#!/usr/bin/env bash
# Exercism's test-runner interface, so a track can use the workshop as its test runner unchanged:
#
#   bin/run.sh SLUG INPUT_DIR/ OUTPUT_DIR/
#
# grades INPUT_DIR/<the lesson's work file> (the lesson is SLUG) and writes OUTPUT_DIR/results.json,
# the interface's results object, version 3, naming the file <solution-dir>/errors.py. It exits 0
# whenever it graded, whatever the tests' status (pass, fail, or error for a solution that does
# not load or is missing); it exits 2 when it could not grade at all (no such lesson, no Python,
# WORKSHOP_SANDBOX=bwrap without a working bubblewrap), and still writes an error object saying why.
# results.json is always written to a temp file and renamed into place; one that is a link (or
# not a regular file) is refused (exit 2, nothing written), since a solution folder may be the
# output folder too.
#
# WORKSHOP_BIN: the workshop binary (default: the launcher beside bin/, which builds it once).
# WORKSHOP_ROOT: the folder holding lessons/ (default: this repository).
# WORKSHOP_SANDBOX: auto (default), bwrap or none, as `grade --sandbox`.
set -uo pipefail

if [[ $# -ne 3 ]]; then
  echo "usage: bin/run.sh SLUG INPUT_DIR/ OUTPUT_DIR/ (Exercism's test-runner interface)" >&2
  exit 2
fi
slug="$1"
input="$2"
output="${3%/}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${WORKSHOP_BIN:-$here/workshop}"
root="${WORKSHOP_ROOT:-$here}"

if ! mkdir -p "$output"; then
  echo "bin/run.sh: cannot make the output folder $output" >&2
  exit 2
fi
results="$output/results.json"
# A solution folder is often the output folder too: a link there must not lead our write elsewhere.
if [[ -L "$results" ]]; then
  echo "bin/run.sh: $results is a link, not a file: remove it and run again" >&2
  exit 2
fi
if [[ -e "$results" && ! -f "$results" ]]; then
  echo "bin/run.sh: $results is not a regular file: remove it and run again" >&2
  exit 2
fi
# Both paths write a fresh temp file (mktemp never opens an existing name) and rename it into
# place: rename(2) replaces a link rather than writing through it.
if ! partial="$(mktemp "$output/.results.json.XXXXXX")"; then
  echo "bin/run.sh: cannot write in the output folder $output" >&2
  exit 2
fi
# mktemp makes it 0600: give it the mode a plain write would have, as results.json always had.
chmod "$(printf '%o' $((0666 & ~$(umask))))" "$partial"
errors="$(mktemp)"
trap 'rm -f "$partial" "$errors"' EXIT
# GNU mv -T never moves into a folder that a link planted meanwhile leads to (BSD mv has no -T).
place() {
  if mv --version >/dev/null 2>&1; then
    mv -f -T "$partial" "$results"
  else
    mv -f "$partial" "$results"
  fi
}

# A JSON string of stdin: backslashes, quotes and line breaks escaped, other controls dropped.
json_string() {
  local text
  text="$(tr -d '\000-\010\013\014\016-\037')"
  text="${text//\\/\\\\}"
  text="${text//\"/\\\"}"
  text="${text//$'\t'/\\t}"
  text="${text//$'\r'/\\r}"
  text="${text//$'\n'/\\n}"
  printf '"%s"' "$text"
}

"$bin" --root "$root" grade --lesson "$slug" "$input" --format exercism --sandbox "${WORKSHOP_SANDBOX:-auto}" \
  >"$partial" 2>"$errors"
status=$?
cat "$errors" >&2
if [[ $status -eq 0 && "$(wc -l <"$partial")" -eq 1 ]]; then
  place
  exit 0
fi
# No verdict: say why in the object too, from the workshop's own message.
why="$(grep -m1 '^error: ' "$errors" | sed 's/^error: //')"
[[ -n "$why" ]] || why="the workshop exited with status $status without a result"
printf '{"version": 3, "status": "error", "message": %s, "tests": []}\n' "$(printf '%s' "$why" | json_string)" >"$partial"
place
exit 2
