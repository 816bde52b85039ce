#!/usr/bin/env bash
# Benchmarks for the player and `check --watch` (figures, not pass/fail):
#   - key press -> redraw on the player's render path (update + draw through the crossterm
#     backend into a sink), at 60x20 and 140x45; the target is one frame, 16 ms;
#   - save -> new verdict of `check --watch`, less the time the check itself took (the redraw
#     says how long), for in-place and rename saves, with events and with --poll; the target is
#     at most 100 ms beyond the check, median.
#
#   tests/bench/player.sh            # release build (as learners run it)
#   PROFILE=dev tests/bench/player.sh
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
profile="${PROFILE:-release}"
flags=()
[[ "$profile" == release ]] && flags+=(--release)

cd "$repo"
cargo test "${flags[@]}" --quiet --test suite -- --ignored --nocapture --test-threads 1 bench_ 2>&1 |
  grep -E '^(start-up|key -> redraw|save -> verdict)'
