#!/usr/bin/env bash
# The decoders' sandbox against rendering in the worker's own process: a 24 MP JPEG and a real
# 24 MP iPhone HDR HEIC. The CPU is measured job by job, in turns (sandbox-turns.py,
# SANDBOX_BENCH_ROUNDS rounds of one job each way): this machine's speed swings by tens of
# percent between drains minutes apart, and jobs a second apart share it. Then one drain of N
# edits each way (SANDBOX_BENCH_JOBS) by `darkroom worker --drain --concurrency 1`, for the wall
# time and the peak RSS of its largest process, and the child's fixed cost: its peak RSS when it
# starts, confines itself and ends.
#   usage: sandbox-bench.sh DARKROOM_BINARY SERVER_URL WORK_DIR
#   WORK_DIR must hold photo24.jpg (render-bench.sh makes it).
set -euo pipefail
darkroom=$1; server=$2; work=$3
root=$(cd "$(dirname "$0")/../.." && pwd)
count=${SANDBOX_BENCH_JOBS:-6}
cd "$work"
[ -f photo24.jpg ] || { echo "sandbox-bench: $work/photo24.jpg is missing; run render-bench.sh first" >&2; exit 1; }
heic="$root/Tests/Fixtures/corpus/osxphotos/IMG_3582.HEIC"
rm -rf sandbox && mkdir -p sandbox

db=darkroom_sandbox_bench
run() {  # run FILE MODE: one drain of COUNT edits of FILE, timed into a file
  local file=$1 mode=$2
  psql -X -q "$server" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db"
  export DATABASE_URL="${server%/*}/$db" DARKROOM_STORAGE="$work/sandbox/storage"
  rm -rf sandbox/storage
  "$darkroom" migrate --log-level warning >/dev/null
  "$darkroom" import "$file" --log-level warning >/dev/null
  for _ in $(seq 1 "$count"); do
    psql -X -q -v ON_ERROR_STOP=1 "$DATABASE_URL" -c "SELECT darkroom.enqueue_edit(1, 'io.darkroom.pipeline',
        '1.0.0', '{\"operations\":[{\"op\":\"sepia\",\"intensity\":0.6}]}'::jsonb)" >/dev/null
  done
  local drain=("$darkroom" worker --drain --concurrency 1 --decoder-sandbox "$mode" --log-level warning)
  /usr/bin/time -f "%e %U %S %M" -o "sandbox/$(basename "$file")-$mode.txt" "${drain[@]}" >/dev/null
  local done_jobs
  done_jobs=$(psql -X -tA "$DATABASE_URL" -c "SELECT count(*) FROM darkroom.jobs WHERE state = 'succeeded'")
  [ "$done_jobs" = "$count" ] || { echo "sandbox-bench: $done_jobs of $count jobs succeeded ($mode)" >&2; exit 1; }
}
label() {  # label FILE: how the tables name it
  case $(basename "$1") in
    photo24.jpg) echo "24 MP JPEG (6000x4000)" ;;
    IMG_3582.HEIC) echo "24 MP iPhone HDR HEIC (4284x5712)" ;;
    *) basename "$1" ;;
  esac
}
files=(${SANDBOX_BENCH_FILES:-photo24.jpg "$heic"})
labelled=()
for file in "${files[@]}"; do labelled+=("$file" "$(label "$file")"); done
python3 "$root/Tests/Benchmarks/sandbox-turns.py" "$darkroom" "$server" "$work" "${SANDBOX_BENCH_ROUNDS:-100}" \
  "${labelled[@]}"

printf '\n%-40s %19s %19s\n' "a drain of $count edits by one slot" "in the worker" "sandboxed"
printf '%-40s %9s %9s %9s %9s\n' "" "wall s" "peak RSS" "wall s" "peak RSS"
for file in "${files[@]}"; do
  for mode in off on; do run "$file" "$mode"; done
  name=$(basename "$file")
  read -r off_wall _ _ off_rss <"sandbox/$name-off.txt"
  read -r on_wall _ _ on_rss <"sandbox/$name-on.txt"
  printf '%-40s %9s %6d MB %9s %6d MB\n' "$(label "$file")" "$off_wall" $((off_rss / 1024)) "$on_wall" $((on_rss / 1024))
done

fixed=$({ /usr/bin/time -f "%M" "$darkroom" decode-sandbox </dev/null 2>&1 >/dev/null || true; } | tail -1)
echo "the child alone (started, confined, no job): $((fixed / 1024)) MB peak RSS"
psql -X -q "$server" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)"
rm -rf sandbox
