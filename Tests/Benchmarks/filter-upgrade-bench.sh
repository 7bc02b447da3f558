#!/usr/bin/env bash
# Library figures benchmark: a library of 1 000 000, then 10 000 000 assets, each showing one
# layer with filter dusk 1.0.0 (built with generate_series in a fresh database), dusk 2.0.0
# added. For each size: the one-time rebuild of the kept counts (what `darkroom migrate` does
# for a library from before them), one walk of every chain (current_chains: what each figure
# cost before, when each walked them all),
# then what an operator and the dashboard read: the filter dry run, `filter list`, the stale
# count and the overview page; at sizes up to FILTER_BENCH_ROLLOUT_MAX, the roll-outs too.
# usage: filter-upgrade-bench.sh PATH/TO/darkroom SERVER_URL OUTDIR   (SERVER_URL: a database where we may CREATE DATABASE)
set -euo pipefail
darkroom="$1"; server="$2"; out="$3"
sizes="${FILTER_BENCH_SIZES:-1000000 10000000}"
rollout_max="${FILTER_BENCH_ROLLOUT_MAX:-1000000}"
mkdir -p "$out"
db=darkroom_filter_bench
url="${server%/*}/$db"
psql -X -q "$server" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db" 2>/dev/null
export DATABASE_URL="$url" DARKROOM_STORAGE="$out/storage"
mkdir -p "$DARKROOM_STORAGE"
"$darkroom" migrate --log-level warning >/dev/null

old=$(printf '1%.0s' $(seq 64)); new=$(printf '2%.0s' $(seq 64))
build='{"math":{"filter":1},"output":{"quality":92,"chroma":"4:4:4","colour_profile":"source"}}'
psql -X -q -v ON_ERROR_STOP=1 "$url" -o /dev/null \
  -c "SELECT darkroom.add_filter('dusk', '1.0.0', '$old', 1000), darkroom.add_filter('dusk', '2.0.0', '$new', 1000)"

timed() {  # timed LABEL COMMAND...: runs it, prints its wall time in seconds and its first line
  local label="$1"; shift
  local start end
  start=$(date +%s.%N)
  "$@" >"$out/last.out"
  end=$(date +%s.%N)
  printf '    %-62s %8.3f s   %s\n' "$label" "$(echo "$end - $start" | bc)" "$(head -1 "$out/last.out")"
}
sql() { psql -X -q -t -A -v ON_ERROR_STOP=1 "$url" -c "$1"; }
reset() { psql -X -q -v ON_ERROR_STOP=1 "$url" -c "DELETE FROM darkroom.jobs" -c "VACUUM ANALYZE darkroom.jobs"; }

# The overview page, from a `darkroom serve` on loopback (no account file: no sign-in).
. "$(dirname "$0")/serve.sh"
start_serve "$darkroom" "$out"
overview() { curl -s -o /dev/null -w '%{http_code}\n' -c "$out/cookies" -b "$out/cookies" "$base/"; }

have=0
for size in $sizes; do
  echo "==> $size assets showing dusk 1.0.0, dusk 2.0.0 added"
  start=$(date +%s)
  # The layers as a worker records them (adjustment_filters written here, as its trigger
  # would); the kept counts are then built by the rebuild timed below.
  psql -X -q -v ON_ERROR_STOP=1 "$url" <<SQL
INSERT INTO darkroom.assets (original_path, content_sha256, byte_size, pixel_width, pixel_height)
SELECT 'originals/' || n || '.jpg', lpad(to_hex(n), 64, '0'), 1, 1, 1 FROM generate_series($have + 1, $size) AS n;
ALTER TABLE darkroom.adjustments DISABLE TRIGGER USER;
INSERT INTO darkroom.adjustments (asset_id, format_identifier, format_version, data, rendered_path, rendered_width,
                                  rendered_height, rendered_bytes, rendered_with)
SELECT s.id, 'io.darkroom.pipeline', '1.0.0',
       convert_to('{"operations":[{"op":"filter","name":"dusk","version":"1.0.0","sha256":"$old"}]}', 'UTF8'),
       'renders/' || s.id || '/0.jpg', 1, 1, 1,
       '{"darkroom":"0.24.0","math":{"filter":1},"filters":[],"output":{"quality":92,"chroma":"4:4:4",
         "colour_profile":"source","display_longest_side":2048}}'
  FROM darkroom.assets AS s WHERE s.current_adjustment_id IS NULL;
ALTER TABLE darkroom.adjustments ENABLE TRIGGER USER;
INSERT INTO darkroom.adjustment_filters (adjustment_id, name, version, sha256)
SELECT a.id, 'dusk', '1.0.0', '$old' FROM darkroom.adjustments AS a
  JOIN darkroom.assets AS s ON s.id = a.asset_id WHERE s.current_adjustment_id IS NULL;
ALTER TABLE darkroom.assets DISABLE TRIGGER USER;
UPDATE darkroom.assets AS s SET current_adjustment_id = a.id
  FROM darkroom.adjustments AS a WHERE a.asset_id = s.id AND s.current_adjustment_id IS NULL;
ALTER TABLE darkroom.assets ENABLE TRIGGER USER;
VACUUM ANALYZE darkroom.assets, darkroom.adjustments, darkroom.adjustment_filters, darkroom.jobs;
SQL
  have=$size
  echo "    (built in $(( $(date +%s) - start )) s)"
  timed "rebuild of the kept counts (migrate, once)" sql "SELECT darkroom.rebuild_library_counts()"
  sql "VACUUM ANALYZE darkroom.asset_render_states, darkroom.asset_filter_versions, darkroom.library_counts" >/dev/null
  timed "one walk of every chain (what each figure cost before)" \
    sql "SELECT count(DISTINCT asset_id) FROM darkroom.current_chains(ARRAY(SELECT id FROM darkroom.assets))"
  timed "rerender --filter dusk --below-version 2.0.0 --dry-run" \
    "$darkroom" rerender --filter dusk --below-version 2.0.0 --dry-run --log-level warning
  timed "filter list" "$darkroom" filter list --log-level warning
  timed "darkroom.stale_count (the overview's)" sql "SELECT darkroom.stale_count('$build')"
  timed "rerender --stale --dry-run" "$darkroom" rerender --stale --dry-run --log-level warning
  overview >/dev/null
  timed "the overview page (GET /)" overview
  timed "canary, --sample 100" "$darkroom" rerender --filter dusk --below-version 2.0.0 --sample 100 --log-level warning
  reset
  if [ "$size" -le "$rollout_max" ]; then
    timed "roll-out, one call" "$darkroom" rerender --filter dusk --below-version 2.0.0 --log-level warning
    timed "again: nothing more to queue" "$darkroom" rerender --filter dusk --below-version 2.0.0 --log-level warning
    reset
    timed "roll-out, --chunk 100000" "$darkroom" rerender --filter dusk --below-version 2.0.0 --chunk 100000 \
      --log-level warning
    reset
  fi
  echo "    (database size $(sql "SELECT pg_size_pretty(pg_database_size(current_database()))"))"
done
kill $serve 2>/dev/null || true
[ -n "${FILTER_BENCH_KEEP:-}" ] || psql -X -q "$server" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)"
