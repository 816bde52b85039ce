#!/usr/bin/env bash
# A course that grows keeps `cargo test` green: this copies the checkout (its tracked files, as
# they are in the working tree), adds two lessons to the copy (one numbered before every other,
# with the longest title, and one after every other; each a renamed copy of structured-errors)
# and one world (a copy of Lumen under another name, which the last lesson is set in), and runs
# the whole suite there. Tests about the course build their own course, so none of it changes
# what they see.
#
#   tests/grow.sh                      # the copy builds in its own target folder
#   CARGO_TARGET_DIR=/tmp/t tests/grow.sh
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
copy="$(mktemp -d)"
trap 'rm -rf "$copy"' EXIT
(cd "$repo" && git ls-files -z | xargs -0 cp --parents -t "$copy")
cd "$copy"
for spec in aa-first:1 zz-last:99; do
  id="${spec%%:*}"
  number="${spec##*:}"
  for part in lessons starter recordings; do
    cp -r "$part/structured-errors" "$part/$id"
  done
  sed -i -e "s/^id = \"structured-errors\"/id = \"$id\"/" -e "s/^number = 5/number = $number/" \
    -e "s/^title = .*/title = \"Lesson $id, with a title longer than any other lesson's\"/" \
    "lessons/$id/lesson.toml"
done
cp -r worlds/lumen worlds/harbour
sed -i 's/^setting = "lumen"/setting = "harbour"/' lessons/zz-last/lesson.toml
echo "grow.sh: $copy has worlds: $(ls worlds | tr '\n' ' ')" >&2
echo "grow.sh: $copy has lessons: $(ls lessons | grep -v README | tr '\n' ' ')" >&2
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$copy/target}"
cargo test
