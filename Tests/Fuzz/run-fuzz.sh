#!/usr/bin/env bash
# The libFuzzer targets of Tests/Fuzz, run the way `make fuzz` and `make test` do
# (docs/hostile-input.md).
#
#   run-fuzz.sh run   SECONDS BUILD_DIR [TARGET…]   fuzz each target for SECONDS, print a table
#   run-fuzz.sh smoke SECONDS BUILD_DIR [TARGET…]   replay the regressions, then fuzz each briefly
#
# `run` keeps going after a crash (libFuzzer's fork mode), grows the corpus in
# BUILD_DIR/corpus/TARGET (never committed) and copies every crash, timeout or out-of-memory
# input into regressions/TARGET/, which `smoke` (CI runs it after `make test`) replays; fix the bug and
# commit the input. `smoke` starts from the committed seeds only and fails on the first finding.
set -euo pipefail

mode=${1:?run or smoke}
seconds=${2:?seconds per target}
build=${3:?build folder}
shift 3
here=$(cd "$(dirname "$0")" && pwd)
bin=$build/debug
if [ $# -gt 0 ]; then
  targets=("$@")
else
  mapfile -t targets < <(sed -n 's/^ *"\(fuzz-[a-z0-9-]*\)",.*/\1/p' "$here/Package.swift")
fi
# What a worker can afford per input (the issue's numbers): 256 MB and 2 s.
limits=(-rss_limit_mb=256 -timeout=2)
# libFuzzer prints the stack of a crash; the Swift runtime's own backtracer only adds minutes.
export SWIFT_BACKTRACE=enable=no
# ASan keeps freed memory in quarantine (256 MB by default), which libFuzzer would count against
# the RSS limit; a small quarantine leaves the limit to measure what an input really holds.
export ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=16}
# Leaks inside the system's codecs that darkroom cannot fix are listed, with why, in one file.
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$here/../Sanitizers/lsan-suppressions.txt:print_suppressions=0}

dictionary() {
  if [ -e "$here/dictionaries/$1.dict" ]; then echo "-dict=$here/dictionaries/$1.dict"; fi
}

replay() {
  local target=$1 folder=$here/regressions/$1
  compgen -G "$folder/*" >/dev/null || return 0
  echo "==> $target: replaying $(ls "$folder" | wc -l) regression input(s)"
  "$bin/$target" "${limits[@]}" "$folder"/* >"$build/logs/$target.replay.log" 2>&1 \
    || { tail -40 "$build/logs/$target.replay.log" >&2; echo "error: $target fails on a regression input; see $build/logs/$target.replay.log" >&2; return 1; }
}

mkdir -p "$build/logs"
case $mode in
smoke)
  for target in "${targets[@]}"; do
    replay "$target"
    scratch=$(mktemp -d "$build/smoke.XXXXXX")
    "$bin/$target" "${limits[@]}" $(dictionary "$target") -max_total_time="$seconds" -seed="${FUZZ_SMOKE_SEED:-1}" -print_final_stats=1 \
      -artifact_prefix="$scratch/" "$scratch" "$here/corpus/$target" >"$build/logs/$target.smoke.log" 2>&1 \
      || { tail -40 "$build/logs/$target.smoke.log" >&2
           for found in "$scratch"/crash-* "$scratch"/timeout-* "$scratch"/oom-* "$scratch"/leak-*; do
             [ -e "$found" ] && mkdir -p "$here/regressions/$target" && cp "$found" "$here/regressions/$target/"
           done
           echo "error: $target failed its smoke run; the input is now in Tests/Fuzz/regressions/$target" >&2
           rm -rf "$scratch"; exit 1; }
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$build/logs/$target.smoke.log")
    echo "==> $target: $runs runs in ${seconds}s, no findings"
    rm -rf "$scratch"
  done
  ;;
run)
  rows=()
  for target in "${targets[@]}"; do
    corpus=$build/corpus/$target artifacts=$build/artifacts/$target
    mkdir -p "$corpus" "$artifacts"
    before=$(ls "$artifacts" | wc -l)
    echo "==> $target: fuzzing for ${seconds}s (corpus $corpus)"
    "$bin/$target" "${limits[@]}" $(dictionary "$target") -max_total_time="$seconds" \
      -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 -artifact_prefix="$artifacts/" \
      "$corpus" "$here/corpus/$target" >"$build/logs/$target.log" 2>&1 || true
    # The last status line: "#EXECS: cov: C ft: F corp: N exec/s: R oom/timeout/crash: O/T/C time: …"
    status=$(grep -E '^#[0-9]+: cov:' "$build/logs/$target.log" | tail -1)
    execs=$(sed -E 's/^#([0-9]+):.*/\1/' <<<"$status")
    cov=$(sed -E 's/.* cov: ([0-9]+).*/\1/' <<<"$status")
    ft=$(sed -E 's/.* ft: ([0-9]+).*/\1/' <<<"$status")
    found=$(sed -E 's#.*oom/timeout/crash: ([0-9/]+).*#\1#' <<<"$status")
    new=$(( $(ls "$artifacts" | wc -l) - before ))
    if [ "$new" -gt 0 ]; then
      mkdir -p "$here/regressions/$target"
      cp -n "$artifacts"/* "$here/regressions/$target/"
    fi
    rows+=("$(printf '| %-20s | %6ss | %12s | %6s | %7s | %17s | %11s |' "$target" "$seconds" "${execs:-0}" "${cov:-?}" "${ft:-?}" "${found:-?}" "$new")")
  done
  echo
  printf '| %-20s | %7s | %12s | %6s | %7s | %17s | %11s |\n' target time executions cov ft oom/timeout/crash 'new inputs'
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
  printf '%s\n' "${rows[@]}"
  if compgen -G "$here/regressions/*/*" >/dev/null && [ -n "$(git -C "$here" status --porcelain -- regressions)" ]; then
    echo
    echo "New regression inputs in Tests/Fuzz/regressions (replayed by make test): fix each bug, then commit them."
  fi
  ;;
*)
  echo "usage: $0 run|smoke SECONDS BUILD_DIR [TARGET…]" >&2
  exit 2
  ;;
esac
