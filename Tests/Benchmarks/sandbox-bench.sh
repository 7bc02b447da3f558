#!/usr/bin/env bash
# The decoders' sandbox against rendering in the worker's own process: a 24 MP JPEG and a real
# 24 MP iPhone HDR HEIC, each edited N times by one `darkroom worker --drain --concurrency 1`
# (each edit replaces the last, so every job decodes the original again), with
# --decoder-sandbox on and off in turns (each first in every other pair), 5 runs each
# (SANDBOX_BENCH_RUNS), the medians compared (this machine's runs differ by up to 10% from one
# to the next; alternating keeps drift out of the ratio), and a 95% interval of the ratio: the median of each sandboxed run over the run
# beside it, resampled. CPU is the worker's and its children's (GNU time), so the children's
# start-up is counted; peak RSS is the largest process's. Then, where perf can record, what the
# sandbox adds apart from the machine's speed (below), and the child's fixed cost: its peak RSS
# when it starts, confines itself and ends.
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
run() {  # run FILE MODE RUN [profile]: one drain of COUNT edits of FILE, timed (or profiled) into a file
  local file=$1 mode=$2 attempt=$3 profile=${4:-}
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
  if [ -n "$profile" ]; then
    perf record -q -F 1999 -o "sandbox/$(basename "$file")-$mode-$attempt.perf" -- "${drain[@]}" >/dev/null 2>&1
  else
    /usr/bin/time -f "%e %U %S %M" -o "sandbox/$(basename "$file")-$mode-$attempt.txt" "${drain[@]}" >/dev/null
  fi
  local done_jobs
  done_jobs=$(psql -X -tA "$DATABASE_URL" -c "SELECT count(*) FROM darkroom.jobs WHERE state = 'succeeded'")
  [ "$done_jobs" = "$count" ] || { echo "sandbox-bench: $done_jobs of $count jobs succeeded ($mode)" >&2; exit 1; }
}
runs=${SANDBOX_BENCH_RUNS:-5}

if [ "$runs" -gt 0 ]; then
printf '\n%-40s %9s %9s %9s %9s %7s %15s %9s\n' "$count edits by one slot, median of $runs" "wall s" "cpu s/job" "wall s" "cpu s/job" "cpu" "95% interval" "peak RSS"
printf '%-40s %19s %19s %7s %15s %9s\n' "" "in the worker" "sandboxed" "ratio" "of the ratio" "sandboxed"
for file in ${SANDBOX_BENCH_FILES:-photo24.jpg "$heic"}; do
  # In turns, each mode first in every other pair (off on, on off, …): a run that follows
  # another of the other mode every time would carry what that one leaves behind.
  for attempt in $(seq 1 "$runs"); do
    if [ $((attempt % 2)) = 1 ]; then order="off on"; else order="on off"; fi
    for mode in $order; do run "$file" "$mode" "$attempt"; done
  done
  name=$(basename "$file")
  python3 - "$name" "$count" sandbox "$runs" <<'PY'
import random, statistics, sys
name, count, folder, runs_count = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
def runs(mode):  # (wall, cpu per job, peak RSS KB) of each run, in the order they ran
    rows = [list(map(float, open(f"{folder}/{name}-{mode}-{n}.txt").read().split()[-4:])) for n in range(1, runs_count + 1)]
    return [(wall, (user + sys_) / count, rss) for wall, user, sys_, rss in rows]
off, on = runs("off"), runs("on")
owall, ocpu = statistics.median(r[0] for r in off), statistics.median(r[1] for r in off)
swall, scpu = statistics.median(r[0] for r in on), statistics.median(r[1] for r in on)
rss = max(r[2] for r in on)
# Each sandboxed run against the run beside it; the median of those ratios, resampled, says how
# far this machine's noise leaves the ratio open.
pairs = [b[1] / a[1] for a, b in zip(off, on)]
random.seed(1)
medians = sorted(statistics.median(random.choices(pairs, k=len(pairs))) for _ in range(2000))
low, high = medians[int(0.025 * len(medians))], medians[int(0.975 * len(medians)) - 1]
label = {"photo24.jpg": "24 MP JPEG (6000x4000)", "IMG_3582.HEIC": "24 MP iPhone HDR HEIC (4284x5712)"}[name]
print(f"{label:<40} {owall:9.2f} {ocpu:9.3f} {swall:9.2f} {scpu:9.3f} {scpu / ocpu:6.3f}x {low:6.3f}..{high:5.3f}x {int(rss / 1024):6d} MB")
PY
done
fi

# What the sandbox adds, whatever the machine's speed: perf samples over one drain each way,
# SANDBOX_PROFILE_RUNS pairs in turns. The render's own code (the codecs' and darkroom's) does
# the same work either way and slows or speeds with the machine; the samples outside it, per
# sample inside it, are what the sandbox adds (the zygote's start, a fresh address space per
# render, the channel, fork and exit) apart from that noise. Kernel samples need root (or
# perf_event_paranoid 1 or less); without them, what the kernel does for the sandbox is missed.
profiles=${SANDBOX_PROFILE_RUNS:-3}
if [ "$profiles" -gt 0 ] && perf record -q -o /dev/null -- true >/dev/null 2>&1; then
  printf '\n%-40s %14s %14s %9s %13s\n' "perf samples, $profiles drains each way" "outside / own" "outside / own" "added" "added, range"
  printf '%-40s %14s %14s\n' "" "in the worker" "sandboxed"
  for file in ${SANDBOX_BENCH_FILES:-photo24.jpg "$heic"}; do
    for attempt in $(seq 1 "$profiles"); do
      if [ $((attempt % 2)) = 1 ]; then order="off on"; else order="on off"; fi
      for mode in $order; do run "$file" "$mode" "p$attempt" profile; done
    done
    python3 - "$(basename "$file")" sandbox "$profiles" <<'PY'
import statistics, subprocess, sys
name, folder, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
own = ("libjpeg", "libde265", "libheif", "libaom", "libdav1d", "libwebp", "libsharpyuv")
def outside_per_own(mode, attempt):  # samples outside the render's own code per sample inside it
    report = subprocess.run(
        ["perf", "report", "-i", f"{folder}/{name}-{mode}-p{attempt}.perf", "--sort", "dso", "-n", "--stdio", "-q"],
        capture_output=True, text=True, check=True).stdout
    total = inside = 0
    for line in report.splitlines():
        parts = line.split()
        if len(parts) < 3 or not parts[0].endswith("%"):
            continue
        total += int(parts[1])
        inside += int(parts[1]) if parts[2] == "darkroom" or parts[2].startswith(own) else 0
    return (total - inside) / inside
pairs = [(outside_per_own("off", n), outside_per_own("on", n)) for n in range(1, runs + 1)]
added = [(1 + on) / (1 + off) - 1 for off, on in pairs]
label = {"photo24.jpg": "24 MP JPEG (6000x4000)", "IMG_3582.HEIC": "24 MP iPhone HDR HEIC (4284x5712)"}[name]
print(f"{label:<40} {statistics.median(p[0] for p in pairs):13.1%} {statistics.median(p[1] for p in pairs):14.1%}"
      f" {statistics.median(added):8.1%} {min(added):6.1%}..{max(added):4.1%}")
PY
  done
fi

fixed=$({ /usr/bin/time -f "%M" "$darkroom" decode-sandbox </dev/null 2>&1 >/dev/null || true; } | tail -1)
echo "the child alone (started, confined, no job): $((fixed / 1024)) MB peak RSS"
psql -X -q "$server" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)"
rm -rf sandbox
