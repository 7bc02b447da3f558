#!/usr/bin/env bash
# Drain benchmark: a default-flags `darkroom worker --drain` of N photos of 24 MP (sepia +
# vignette, each job also writes its display-size copy) against the libjpeg-turbo floor, each
# photo through `djpeg | cjpeg` with as many processes at once as the machine has cores, all
# measured in this run. Both read the same files and write quality-92 4:4:4 JPEGs.
#   usage: drain-bench.sh DARKROOM_BINARY SERVER_URL WORK_DIR
#   WORK_DIR must hold photo24.jpg (render-bench.sh makes it).
set -euo pipefail
darkroom=$1; server=$2; work=$3
count=${DRAIN_BENCH_PHOTOS:-24}
cores=$(nproc)
cd "$work"
[ -f photo24.jpg ] || { echo "drain-bench: $work/photo24.jpg is missing; run render-bench.sh first" >&2; exit 1; }

# N different files with the same pixels (a COM marker each), so the importer keeps N assets.
rm -rf drain && mkdir -p drain/photos drain/floor drain/storage
for n in $(seq 1 "$count"); do wrjpgcom -comment "drain $n" photo24.jpg > "drain/photos/$n.jpg"; done

db=darkroom_drain_bench
psql -X -q "$server" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db"
export DATABASE_URL="${server%/*}/$db" DARKROOM_STORAGE="$work/drain/storage"
"$darkroom" migrate --log-level warning >/dev/null
"$darkroom" import drain/photos/*.jpg --log-level warning >/dev/null
# Best of 3 for each: a fresh batch of edits per darkroom run (each replaces the last edit, so
# it renders from the original again), the same files per floor run.
best() {  # best FILE...: the line with the lowest wall time
  sort -n "$@" | head -1
}
for run in 1 2 3; do
  psql -X -q -v ON_ERROR_STOP=1 "$DATABASE_URL" -c "SELECT count(*) FROM darkroom.enqueue_edits(
      ARRAY(SELECT id FROM darkroom.assets ORDER BY id), 'io.darkroom.pipeline', '1.0.0',
      '{\"operations\":[{\"op\":\"sepia\"},{\"op\":\"vignette\",\"intensity\":1.2}]}'::jsonb)" >/dev/null
  /usr/bin/time -f "%e %U %S %M" -o "drain/ours-$run.txt" "$darkroom" worker --drain --log-level warning >/dev/null
done
read -r wall user sys rss < <(best drain/ours-*.txt)
done_jobs=$(psql -X -tA "$DATABASE_URL" -c "SELECT count(*) FROM darkroom.jobs WHERE state = 'succeeded'")
[ "$done_jobs" = "$((count * 3))" ] || { echo "drain-bench: only $done_jobs of $((count * 3)) jobs succeeded" >&2; exit 1; }

floor() { djpeg -rgb "drain/photos/$1.jpg" | cjpeg -quality 92 -sample 1x1 > "drain/floor/$1.jpg"; }
export -f floor
for run in 1 2 3; do
  /usr/bin/time -f "%e %U %S %M" -o "drain/floor-$run.txt" \
    bash -c "seq 1 $count | xargs -P $cores -I{} bash -c 'floor {}'"
done
read -r fwall fuser fsys frss < <(best drain/floor-*.txt)

ratio=$(python3 -c "print(f'{$wall / $fwall:.2f}')")
printf '\n%-58s %8s %8s %10s\n' "drain of $count photos of 24 MP on $cores cores" "wall s" "cpu s" "peak RSS"
printf '%-58s %8s %8s %7d MB\n' "darkroom worker --drain (default flags)" "$wall" "$(python3 -c "print(round($user + $sys, 2))")" $((rss / 1024))
printf '%-58s %8s %8s %7d MB\n' "djpeg | cjpeg, $cores at a time (xargs -P $cores)" "$fwall" "$(python3 -c "print(round($fuser + $fsys, 2))")" $((frss / 1024))
echo "darkroom / floor wall time: ${ratio}x, best of 3 each (darkroom also writes a 2048-px display copy of each and records every job)"
psql -X -q "$server" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)"
rm -rf drain
