#!/usr/bin/env bash
# Import benchmark: `darkroom import` of 24 distinct ~8 MB JPEGs (hash, header and metadata read
# in a decoding child, copy into the storage root with fsync, one asset row each), and the same
# with the headers read in import's own process, against `sha256sum` of the same files, measured
# in this run. Files are in the page cache for both (sha256sum reads them first).
#   usage: import-bench.sh DARKROOM_BINARY SERVER_URL WORK_DIR INPUT_JPEG
#   (SERVER_URL: a database where we may CREATE DATABASE; INPUT_JPEG: render-bench's photo24.jpg)
set -euo pipefail
darkroom=$1; server=$2; work=$3; input=$(realpath "$4")
count=24
mkdir -p "$work/photos"
cd "$work"

# Distinct bytes per file (an EXIF description), so each import is a new photo.
for i in $(seq 1 $count); do
  [ -f "photos/$i.jpg" ] || exif --create-exif --ifd=0 --tag=ImageDescription --set-value="import bench $i" \
    --output="photos/$i.jpg" "$input" >/dev/null
done
mb=$(du -cm photos/*.jpg | tail -1 | cut -f1)

db=darkroom_import_bench
export DATABASE_URL="${server%/*}/$db" DARKROOM_STORAGE="$work/storage"
fresh() {
  psql -X -q "$server" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db"
  rm -rf "$DARKROOM_STORAGE"; mkdir -p "$DARKROOM_STORAGE"
  "$darkroom" migrate --log-level warning >/dev/null
}

# best LABEL COMMAND...: best wall seconds of 3 runs; `fresh` before each run of an import.
declare -A wall cpu
best() {
  local label=$1; shift
  for run in 1 2 3; do
    [ "${label#import}" != "$label" ] && fresh
    /usr/bin/time -f "%e %U %S" -o timing.txt "$@" >out.txt 2>err.txt || { echo "failed: $label"; cat err.txt; exit 1; }
    read -r w u s < timing.txt
    if [ -z "${wall[$label]:-}" ] || python3 -c "import sys; sys.exit(0 if $w < ${wall[$label]} else 1)"; then
      wall[$label]=$w; cpu[$label]=$(python3 -c "print(round($u + $s, 2))")
    fi
  done
}
best sha256sum sha256sum photos/*.jpg
sums=$(awk '{print $1}' out.txt | sort)
best import "$darkroom" import --log-level warning photos/*.jpg
# The stored names are the digests: they must be sha256sum's.
[ "$(grep -c $'\timported\t' out.txt)" = $count ] || { echo "import: not $count new photos"; cat out.txt; exit 1; }
[ "$(cut -f3 out.txt | sed 's|.*/||; s|\.jpg$||' | sort)" = "$sums" ] || { echo "import: digests differ from sha256sum"; exit 1; }
# The headers and metadata parsed in import's own process instead of a decoding child.
best import_in_process "$darkroom" import --decoder-sandbox off --log-level warning photos/*.jpg
# Known photos again: hash and one lookup each, nothing stored.
best reimport "$darkroom" import --log-level warning photos/*.jpg

printf '\n%-44s %9s %9s %12s\n' "import ($count files, $mb MB)" "wall s" "cpu s" "vs sha256sum"
row() { printf '%-44s %9s %9s %12s\n' "$1" "${wall[$2]}" "${cpu[$2]}" "$(python3 -c "print(f'{${wall[$2]} / ${wall[sha256sum]}:.2f}x')")"; }
row "darkroom import, new photos" import
row "  the same, --decoder-sandbox off" import_in_process
row "darkroom import, known photos (hash only)" reimport
row "sha256sum" sha256sum
echo "Best of 3 runs each, files in the page cache; new photos: a fresh database and storage each run."
psql -X -q "$server" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)"
rm -rf "$DARKROOM_STORAGE"
