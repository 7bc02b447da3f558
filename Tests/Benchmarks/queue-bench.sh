#!/usr/bin/env bash
# Queue benchmark, measured in one run on one server:
#   1. darkroom's own claim + complete of no-op jobs, one job at a time as a worker takes them,
#      2 threads: each job is claim_jobs (lease, rescue sweep, per-asset order, format rule) then
#      complete_job (lease check, adjustment record, asset move, history), one call each;
#   2. the same number of jobs through a raw `FOR UPDATE SKIP LOCKED` loop run by pgbench (2
#      clients) on a copy of the table: claim one job (state running), then complete it, two
#      statements per job as any worker that renders between them must;
#   3. the latency of single claims with one million jobs queued.
# usage: queue-bench.sh PATH/TO/darkroom SERVER_URL OUTDIR   (SERVER_URL: a database where we may CREATE DATABASE)
set -euo pipefail
darkroom="$1"; server="$2"; out="$3"
jobs="${QUEUE_BENCH_JOBS:-20000}"
million="${QUEUE_BENCH_BACKLOG:-1000000}"
mkdir -p "$out"
db=darkroom_queue_bench
url="${server%/*}/$db"
psql -X -q "$server" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db"
export DATABASE_URL="$url"
"$darkroom" migrate --log-level warning >/dev/null

fill() {  # fill N: N queued no-op jobs, one per asset (a re-render batch), then fresh statistics
  psql -X -q -v ON_ERROR_STOP=1 "$url" <<SQL
TRUNCATE darkroom.jobs, darkroom.adjustments, darkroom.assets RESTART IDENTITY CASCADE;
INSERT INTO darkroom.assets (original_path, content_sha256, byte_size, pixel_width, pixel_height)
SELECT 'originals/' || n || '.jpg', lpad(to_hex(n), 64, '0'), 1, 1, 1 FROM generate_series(1, $1) AS n;
ALTER TABLE darkroom.jobs DISABLE TRIGGER jobs_notify_workers;
INSERT INTO darkroom.jobs (asset_id, format_identifier, format_version, data)
SELECT n, 'io.darkroom.pipeline', '1.0.0', '\x7b7d' FROM generate_series(1, $1) AS n;
ALTER TABLE darkroom.jobs ENABLE TRIGGER jobs_notify_workers;
VACUUM ANALYZE darkroom.assets, darkroom.jobs;
SQL
}

echo "==> queue: $jobs no-op jobs claimed and completed"
fill "$jobs"
ours="$("$darkroom" queue-bench --workers 2 --batch 1 --log-level warning)"
echo "    $ours"

# The raw loop's table: darkroom.jobs' columns, defaults and indexes (the same partial claim
# index), without its constraints and triggers, so it measures the bare SKIP LOCKED pattern.
psql -X -q -v ON_ERROR_STOP=1 "$url" <<SQL
CREATE TABLE public.raw_jobs (LIKE darkroom.jobs INCLUDING DEFAULTS INCLUDING INDEXES INCLUDING GENERATED);
INSERT INTO public.raw_jobs (id, asset_id, format_identifier, format_version, data)
SELECT i, i, 'io.darkroom.pipeline', '1.0.0', '\x7b7d' FROM generate_series(1, $jobs) AS i;
VACUUM ANALYZE public.raw_jobs;
SQL
per_client=$(( jobs / 2 ))
raw="$(pgbench -n -c 2 -j 2 -t "$per_client" -f "$(dirname "$0")/raw-claim.sql" "$url" 2>&1)" || { echo "$raw" >&2; exit 1; }
tps="$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' <<<"$raw" | head -1)"
left="$(psql -X -tA "$url" -c "SELECT count(*) FROM public.raw_jobs WHERE state = 'queued'")"
raw_rate="$(awk -v t="$tps" 'BEGIN { printf "%.0f", t }')"
echo "    raw FOR UPDATE SKIP LOCKED claim, then complete, one job at a time (pgbench, 2 clients): $raw_rate jobs/s ($left left queued)"
ours_rate="$(sed 's/.*= \([0-9]*\) jobs\/s.*/\1/' <<<"$ours")"
ratio="$(awk -v a="$ours_rate" -v b="$raw_rate" 'BEGIN { printf "%.2f", a / b }')"
echo "    darkroom / raw: $ratio"

echo "==> claim latency with $million jobs queued"
fill "$million"
latency="$("$darkroom" queue-bench --claim-latency 1000 --log-level warning)"
echo "    $latency"
plan="$(psql -X -tA "$url" -c "EXPLAIN (COSTS OFF) SELECT id FROM darkroom.jobs WHERE state = 'queued' AND run_at <= now() ORDER BY priority DESC, run_at, id LIMIT 1 FOR UPDATE SKIP LOCKED" | tr '\n' ' ')"
echo "    plan: $plan"

{
  echo "| queue benchmark | result |"
  echo "| --- | --- |"
  echo "| darkroom claim + complete, one job at a time, 2 threads | $ours_rate jobs/s ($ratio × raw) |"
  echo "| raw FOR UPDATE SKIP LOCKED claim, then complete, one job at a time, 2 clients (pgbench) | $raw_rate jobs/s |"
  echo "| single claim with $million queued | $(sed 's/claim latency over [0-9]* claims: //' <<<"$latency") |"
} | tee "$out/queue-bench.md"
psql -X -q "$server" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)"
