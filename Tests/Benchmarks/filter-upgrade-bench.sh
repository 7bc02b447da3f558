#!/usr/bin/env bash
# Filter upgrade benchmark: the time to queue `darkroom rerender --filter` over a library of
# 200 000 assets, each showing one layer with filter dusk 1.0.0 (built with generate_series in
# a fresh database), after dusk 2.0.0 is added: the dry run, the whole roll-out in one call, the
# same in transactions of 20 000 (--chunk), and the overview's stale count over the library.
# usage: filter-upgrade-bench.sh PATH/TO/darkroom SERVER_URL OUTDIR   (SERVER_URL: a database where we may CREATE DATABASE)
set -euo pipefail
darkroom="$1"; server="$2"; out="$3"
assets="${FILTER_BENCH_ASSETS:-200000}"
mkdir -p "$out"
db=darkroom_filter_bench
url="${server%/*}/$db"
psql -X -q "$server" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db"
export DATABASE_URL="$url"
"$darkroom" migrate --log-level warning >/dev/null

old=$(printf '1%.0s' $(seq 64)); new=$(printf '2%.0s' $(seq 64))
echo "==> filter upgrade: $assets assets showing dusk 1.0.0, dusk 2.0.0 added"
psql -X -q -v ON_ERROR_STOP=1 "$url" <<SQL
SELECT darkroom.add_filter('dusk', '1.0.0', '$old', 1000), darkroom.add_filter('dusk', '2.0.0', '$new', 1000);
INSERT INTO darkroom.assets (original_path, content_sha256, byte_size, pixel_width, pixel_height)
SELECT 'originals/' || n || '.jpg', lpad(to_hex(n), 64, '0'), 1, 1, 1 FROM generate_series(1, $assets) AS n;
-- The layers as a worker records them; adjustment_filters written here, as its trigger would.
ALTER TABLE darkroom.adjustments DISABLE TRIGGER USER;
INSERT INTO darkroom.adjustments (asset_id, format_identifier, format_version, data, rendered_path, rendered_width,
                                  rendered_height, rendered_bytes, rendered_with)
SELECT n, 'io.darkroom.pipeline', '1.0.0',
       convert_to('{"operations":[{"op":"filter","name":"dusk","version":"1.0.0","sha256":"$old"}]}', 'UTF8'),
       'renders/' || n || '/0.jpg', 1, 1, 1,
       '{"darkroom":"0.24.0","math":{"filter":1},"filters":[],"output":{"quality":92,"chroma":"4:4:4",
         "colour_profile":"source","display_longest_side":2048}}'
  FROM generate_series(1, $assets) AS n;
ALTER TABLE darkroom.adjustments ENABLE TRIGGER USER;
INSERT INTO darkroom.adjustment_filters (adjustment_id, name, version, sha256)
SELECT id, 'dusk', '1.0.0', '$old' FROM darkroom.adjustments;
ALTER TABLE darkroom.assets DISABLE TRIGGER USER;
UPDATE darkroom.assets AS s SET current_adjustment_id = a.id FROM darkroom.adjustments AS a WHERE a.asset_id = s.id;
ALTER TABLE darkroom.assets ENABLE TRIGGER USER;
VACUUM ANALYZE darkroom.assets, darkroom.adjustments, darkroom.adjustment_filters, darkroom.jobs;
SQL

timed() {  # timed LABEL COMMAND...: runs it, prints its wall time in seconds
  local label="$1"; shift
  local start end
  start=$(date +%s.%N)
  "$@" >"$out/last.out"
  end=$(date +%s.%N)
  printf '    %-52s %6.2f s   %s\n' "$label" "$(echo "$end - $start" | bc)" "$(head -1 "$out/last.out")"
}
reset() { psql -X -q -v ON_ERROR_STOP=1 "$url" -c "DELETE FROM darkroom.jobs" -c "VACUUM ANALYZE darkroom.jobs"; }

timed "dry run" "$darkroom" rerender --filter dusk --below-version 2.0.0 --dry-run --log-level warning
timed "roll-out, one call" "$darkroom" rerender --filter dusk --below-version 2.0.0 --log-level warning
timed "again: nothing more to queue" "$darkroom" rerender --filter dusk --below-version 2.0.0 --log-level warning
reset
timed "roll-out, --chunk 20000" "$darkroom" rerender --filter dusk --below-version 2.0.0 --chunk 20000 \
  --log-level warning
reset
timed "canary, --sample 100" "$darkroom" rerender --filter dusk --below-version 2.0.0 --sample 100 --log-level warning
timed "overview's stale count (darkroom.stale_count)" psql -X -q -t -A "$url" -c \
  "SELECT darkroom.stale_count('{\"math\":{\"filter\":1},\"output\":{\"quality\":92,\"chroma\":\"4:4:4\",\"colour_profile\":\"source\",\"display_longest_side\":2048}}')"
