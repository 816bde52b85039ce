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
partial="$output/.results.json.$$"
errors="$(mktemp)"
trap 'rm -f "$partial" "$errors"' EXIT

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
  mv "$partial" "$results"
  exit 0
fi
# No verdict: say why in the object too, from the workshop's own message.
why="$(grep -m1 '^error: ' "$errors" | sed 's/^error: //')"
[[ -n "$why" ]] || why="the workshop exited with status $status without a result"
printf '{"version": 3, "status": "error", "message": %s, "tests": []}\n' "$(printf '%s' "$why" | json_string)" >"$results"
exit 2
