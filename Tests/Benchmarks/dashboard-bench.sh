#!/usr/bin/env bash
# Dashboard benchmark: every page's latency with a million jobs queued (one batch), 20 000
# failed jobs over 20 batches and 20 000 succeeded ones finished within the hour, served by
# `darkroom serve` (no account file: loopback, no sign-in) and fetched with curl, after one
# warm-up request. Each page must answer in under 200 ms; the plans of the views behind them
# are printed and must not scan darkroom.jobs whole.
# usage: dashboard-bench.sh PATH/TO/darkroom SERVER_URL OUTDIR   (SERVER_URL: a database where we may CREATE DATABASE)
set -euo pipefail
darkroom="$1"; server="$2"; out="$3"
queued="${DASHBOARD_BENCH_QUEUED:-1000000}"
mkdir -p "$out"
db=darkroom_dashboard_bench
url="${server%/*}/$db"
psql -X -q "$server" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db"
export DATABASE_URL="$url" DARKROOM_STORAGE="$out/storage"
mkdir -p "$DARKROOM_STORAGE"
"$darkroom" migrate --log-level warning >/dev/null

echo "==> dashboard: $queued jobs queued, 20 000 failed, 20 000 succeeded in the last hour"
psql -X -q -v ON_ERROR_STOP=1 "$url" <<SQL
INSERT INTO darkroom.assets (original_path, content_sha256, byte_size, pixel_width, pixel_height)
SELECT 'originals/' || n || '.jpg', lpad(to_hex(n), 64, '0'), 1, 1, 1 FROM generate_series(1, $queued) AS n;
ALTER TABLE darkroom.jobs DISABLE TRIGGER jobs_notify_workers;
INSERT INTO darkroom.jobs (asset_id, format_identifier, format_version, data, batch)
SELECT n, 'io.darkroom.pipeline', '1.0.0', '\x7b7d', 'backlog' FROM generate_series(1, $queued) AS n;
INSERT INTO darkroom.jobs (asset_id, format_identifier, format_version, data, batch, state, attempts, finished_at, last_error, errors)
SELECT n, 'io.darkroom.pipeline', '1.0.0', '\x7b7d', 'nightly-' || (n % 20), 'failed', 5, now() - n * interval '1 second',
       'jpeg_corrupt: damaged', jsonb_build_array(jsonb_build_object('attempt', 1, 'at', now(), 'code',
       CASE WHEN n % 3 = 0 THEN 'jpeg_corrupt' ELSE 'original_missing' END, 'message', 'damaged', 'worker', 'bench'))
  FROM generate_series(1, 20000) AS n;
ALTER TABLE darkroom.jobs ENABLE TRIGGER jobs_notify_workers;
-- Succeeded jobs need their adjustment (and the asset's history): one per asset.
ALTER TABLE darkroom.adjustments DISABLE TRIGGER USER;
INSERT INTO darkroom.adjustments (asset_id, format_identifier, format_version, data, rendered_path, rendered_width, rendered_height, rendered_bytes)
SELECT n, 'io.darkroom.pipeline', '1.0.0', '\x7b7d', 'renders/' || n || '/0.jpg', 1, 1, 1 FROM generate_series(20001, 40000) AS n;
ALTER TABLE darkroom.adjustments ENABLE TRIGGER USER;
-- Those assets show their layer (a re-render below reaches them).
ALTER TABLE darkroom.assets DISABLE TRIGGER USER;
UPDATE darkroom.assets AS s SET current_adjustment_id = a.id FROM darkroom.adjustments AS a WHERE a.asset_id = s.id;
ALTER TABLE darkroom.assets ENABLE TRIGGER USER;
INSERT INTO darkroom.jobs (asset_id, format_identifier, format_version, data, batch, state, attempts, started_at, finished_at, adjustment_id)
SELECT a.asset_id, 'io.darkroom.pipeline', '1.0.0', '\x7b7d', 'backlog', 'succeeded', 1, now() - interval '30 minutes',
       now() - (a.asset_id % 3000) * interval '1 second', a.id
  FROM darkroom.adjustments AS a;
VACUUM ANALYZE darkroom.assets, darkroom.jobs, darkroom.adjustments, darkroom.job_counts, darkroom.queued_job_formats;
SQL

. "$(dirname "$0")/serve.sh"
start_serve "$darkroom" "$out"

pages=(/ /batches /batches/backlog /batches/nightly-3 /batches/backlog/sample /failures "/failures?code=jpeg_corrupt"
       "/failures?batch=nightly-3" /assets/20001)
slow=0
rows=()
for page in "${pages[@]}"; do
  curl -s -o /dev/null -c "$out/cookies" -b "$out/cookies" "$base$page"
  times=()
  for _ in 1 2 3 4 5; do
    times+=("$(curl -s -o /dev/null -w '%{http_code} %{time_total}' -c "$out/cookies" -b "$out/cookies" "$base$page")")
  done
  status="$(printf '%s\n' "${times[@]}" | cut -d' ' -f1 | sort -u | tr '\n' ' ')"
  ms="$(printf '%s\n' "${times[@]}" | cut -d' ' -f2 | awk '{ printf "%.1f\n", $1 * 1000 }' | sort -n)"
  median="$(sed -n 3p <<<"$ms")"; worst="$(sed -n 5p <<<"$ms")"
  verdict=ok
  if awk -v w="$worst" 'BEGIN { exit !(w >= 200) }' || [ "$status" != "200 " ]; then verdict=SLOW; slow=1; fi
  rows+=("| \`$page\` | $median ms | $worst ms | $verdict |")
  echo "    $page: HTTP $status median $median ms, worst $worst ms ($verdict)"
done

# The overview's "waiting for a newer editor" under three fleets: nobody (the million waits),
# a worker reading 1.0.0 (nothing waits), one reading only up to 0.9.0 (the million waits). The
# 20 000 assets with a 1.0.0 layer get a re-render queued, decided job by job for the 0.9 worker.
psql -X -q -v ON_ERROR_STOP=1 "$url" -c "SELECT darkroom.enqueue_rerender('io.darkroom.pipeline', NULL, -20, 'rerender')" >/dev/null
for fleet in "no worker|" "a worker reading 1.0.0|1.0.0" "a worker reading only 0.9.0|0.9.0"; do
  name="${fleet%%|*}"; max="${fleet#*|}"
  psql -X -q "$url" -c "DELETE FROM darkroom.workers" >/dev/null
  if [ -n "$max" ]; then
    psql -X -q "$url" -c "SELECT count(*) FROM darkroom.heartbeat('bench/0', 'localhost', 1, 3600, '{}', '{}',
      '[{\"identifier\": \"io.darkroom.pipeline\", \"min\": \"0.0.0\", \"max\": \"$max\"}]')" >/dev/null
  fi
  waiting="$(psql -X -tA "$url" -c "SELECT coalesce(sum(jobs), 0) FROM darkroom.waiting_for_editor")"
  sql_ms="$(psql -X -tA "$url" -c "EXPLAIN (ANALYZE, FORMAT JSON) SELECT * FROM darkroom.waiting_for_editor" | python3 -c 'import json,sys; print("%.1f" % json.load(sys.stdin)[0]["Execution Time"])')"
  curl -s -o /dev/null -c "$out/cookies" -b "$out/cookies" "$base/"
  times=()
  for _ in 1 2 3 4 5; do times+=("$(curl -s -o /dev/null -w '%{time_total}' -c "$out/cookies" -b "$out/cookies" "$base/")"); done
  ms="$(printf '%s\n' "${times[@]}" | awk '{ printf "%.1f\n", $1 * 1000 }' | sort -n)"
  median="$(sed -n 3p <<<"$ms")"; worst="$(sed -n 5p <<<"$ms")"
  verdict=ok
  if awk -v w="$worst" 'BEGIN { exit !(w >= 200) }'; then verdict=SLOW; slow=1; fi
  rows+=("| \`/\` with $name ($waiting jobs waiting for an editor; the view alone $sql_ms ms) | $median ms | $worst ms | $verdict |")
  echo "    / with $name: $waiting waiting, view $sql_ms ms, page median $median ms, worst $worst ms ($verdict)"
done
psql -X -q "$url" -c "DELETE FROM darkroom.workers" >/dev/null

echo "==> plans of the views the pages read (no sequential scan of darkroom.jobs)"
for query in "SELECT * FROM darkroom.queue_summary" "SELECT * FROM darkroom.batch_summary WHERE batch = 'backlog'" \
             "SELECT * FROM darkroom.batch_summary" "SELECT * FROM darkroom.throughput" "SELECT * FROM darkroom.worker_status" \
             "SELECT * FROM darkroom.batch_failure_codes WHERE batch = 'nightly-3'" \
             "SELECT * FROM darkroom.failures WHERE code = 'jpeg_corrupt' LIMIT 50" \
             "SELECT * FROM darkroom.failures WHERE batch = 'nightly-3' LIMIT 50" \
             "SELECT id FROM darkroom.jobs WHERE state = 'queued' ORDER BY run_at, id LIMIT 1" \
             "SELECT * FROM darkroom.waiting_for_editor"; do
  plan="$(psql -X -tA "$url" -c "EXPLAIN (COSTS OFF) $query")"
  if grep -q 'Seq Scan on jobs' <<<"$plan"; then echo "    SEQ SCAN: $query"; slow=1; else echo "    index: $query"; fi
done

{
  echo "| dashboard page, $queued jobs queued | median | worst of 5 | < 200 ms |"
  echo "| --- | --- | --- | --- |"
  printf '%s\n' "${rows[@]}"
} | tee "$out/dashboard-bench.md"
[ -n "${DASHBOARD_BENCH_KEEP:-}" ] || psql -X -q "$server" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)"
exit $slow
