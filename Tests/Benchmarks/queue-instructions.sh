#!/usr/bin/env bash
# The queue's server work per job in instructions, counted by callgrind, so that it does not
# depend on what else the machine runs (throughput does: queue-bench.sh). A private cluster of
# its own runs under valgrind; one pgbench client claims and completes N jobs one at a time
# (darkroom.claim_jobs then darkroom.complete_job, as a worker does), then the raw
# FOR UPDATE SKIP LOCKED loop of queue-bench.sh does the same on a copy of the table without
# darkroom's constraints and triggers. Each is run with 200 and 600 jobs and the difference
# divided by 400, so connecting and warming up cancel out. See docs/queue-performance.md.
# usage: queue-instructions.sh PATH/TO/darkroom OUTDIR   (as root: the cluster runs as postgres)
set -euo pipefail
darkroom="$1"; out="$(mkdir -p "$2" && cd "$2" && pwd)"
bin="$(pg_config --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin)"
port="${QUEUE_INSTRUCTIONS_PORT:-55471}"
data="$out/pg"; traces="$out/callgrind"
as_owner=(); [ "$(id -u)" = 0 ] && as_owner=(runuser -u postgres --)
rm -rf "$data" "$traces"; mkdir -p "$data" "$traces"
[ "$(id -u)" = 0 ] && chown postgres "$out" "$data" "$traces"
"${as_owner[@]}" "$bin/initdb" -D "$data/cluster" -U darkroom -A trust -E UTF8 --locale=C.UTF-8 >"$out/initdb.log"
"${as_owner[@]}" valgrind --tool=callgrind --callgrind-out-file="$traces/cg.%p" \
    "$bin/postgres" -D "$data/cluster" -p "$port" -k "$data" -c listen_addresses=127.0.0.1 -c fsync=off -c autovacuum=off \
    >"$out/server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true' EXIT
for _ in $(seq 120); do pg_isready -q -h 127.0.0.1 -p "$port" && break; sleep 1; done
url="postgresql://darkroom@127.0.0.1:$port/postgres"
DATABASE_URL="$url" "$darkroom" migrate --log-level warning >/dev/null

fill() {  # N queued no-op edits, one per asset, and the raw loop's table with N rows
  psql -X -q -v ON_ERROR_STOP=1 "$url" <<SQL 2>&1 | { grep -v NOTICE || true; }
TRUNCATE darkroom.jobs, darkroom.adjustments, darkroom.assets RESTART IDENTITY CASCADE;
INSERT INTO darkroom.assets (original_path, content_sha256, byte_size, pixel_width, pixel_height)
SELECT 'originals/' || n || '.jpg', lpad(to_hex(n), 64, '0'), 1, 1, 1 FROM generate_series(1, $1) AS n;
INSERT INTO darkroom.jobs (asset_id, format_identifier, format_version, data)
SELECT n, 'io.darkroom.pipeline', '1.0.0', '\x7b7d' FROM generate_series(1, $1) AS n;
DROP TABLE IF EXISTS public.raw_jobs;
CREATE TABLE public.raw_jobs (LIKE darkroom.jobs INCLUDING DEFAULTS INCLUDING INDEXES INCLUDING GENERATED);
INSERT INTO public.raw_jobs (id, asset_id, format_identifier, format_version, data)
SELECT i, i, 'io.darkroom.pipeline', '1.0.0', '\x7b7d' FROM generate_series(1, $1) AS i;
VACUUM ANALYZE darkroom.assets, darkroom.jobs, public.raw_jobs;
SQL
}
cat >"$out/darkroom.sql" <<'SQL'
SELECT id AS job_id, lease_token AS token, asset_id FROM darkroom.claim_jobs('bench', 1, 60, NULL) \gset
SELECT status FROM darkroom.complete_job(:job_id, :token::uuid, false, NULL, 'layers', NULL, NULL,
    ARRAY['io.darkroom.pipeline'], ARRAY['1.0.0'], ARRAY['\x7b7d'::bytea], ARRAY['renders/' || :asset_id::text || '/' || :job_id::text || '.jpg'],
    ARRAY[1], ARRAY[1], ARRAY[0::bigint], ARRAY[NULL::bigint], '[[]]');
SQL

instructions() {  # SCRIPT MODE N: instructions of the one backend that ran N transactions of SCRIPT
  fill "$3"
  local before; before="$(ls "$traces")"
  pgbench -n -M "$2" -c 1 -t "$3" -f "$1" "$url" >"$out/pgbench.log" 2>&1 || { cat "$out/pgbench.log" >&2; exit 1; }
  sleep 3   # the backend writes its trace as it exits
  local most=0 file total
  for file in $(comm -13 <(echo "$before") <(ls "$traces")); do
    total="$(sed -n 's/^\(summary\|totals\): *\([0-9]*\).*/\2/p' "$traces/$file" | head -1)"
    [ "${total:-0}" -gt "$most" ] && most="$total"
  done
  echo "$most"
}
per_job() {  # SCRIPT MODE: instructions per job, from 200 and 600 jobs
  local small large; small="$(instructions "$1" "$2" 200)"; large="$(instructions "$1" "$2" 600)"
  echo $(( (large - small) / 400 ))
}
ours="$(per_job "$out/darkroom.sql" extended)"
raw="$(per_job "$(dirname "$0")/raw-claim.sql" simple)"
{
  echo "| server instructions per job (callgrind) | per job |"
  echo "| --- | --- |"
  echo "| darkroom claim_jobs + complete_job (one job at a time) | $(awk -v n="$ours" 'BEGIN { printf "%.2f M", n / 1e6 }') ($(awk -v a="$ours" -v b="$raw" 'BEGIN { printf "%.2f", a / b }') × raw) |"
  echo "| raw FOR UPDATE SKIP LOCKED claim, then complete | $(awk -v n="$raw" 'BEGIN { printf "%.2f M", n / 1e6 }') |"
} | tee "$out/queue-instructions.md"
