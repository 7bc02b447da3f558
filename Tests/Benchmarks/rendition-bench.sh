#!/usr/bin/env bash
# Rendition benchmark: a drain of N photos of 24 MP writing full size + display + a WebP 320
# thumbnail + an AVIF 1440 preview + a JPEG 2048 share copy, against the same drain writing full
# size + display only, and against the two-tool way (that drain, then libvips and heif-enc make
# each rendition again from the stored render). Beside them, each rendition's encoder alone on the
# same pixels (cwebp, heif-enc, cjpeg), which is what the renditions may cost above the drain.
# CPU and peak RSS, all in this run.
#   usage: rendition-bench.sh DARKROOM_BINARY SERVER_URL WORK_DIR
set -euo pipefail
darkroom=$1; server=$2; work=$3
count=${RENDITION_BENCH_PHOTOS:-24}
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$work" && cd "$work"
rm -rf renditions && mkdir -p renditions/photos renditions/two-tool renditions/alone

# Real photos: two 24 MP iPhone HEICs (osxphotos' test suite), as quality-92 JPEGs decoded by
# libvips (through libheif), then N files with the same pixels (a COM marker each) so the
# importer keeps N assets.
for name in IMG_3582 IMG_4076; do
  vips copy "$root/Tests/Fixtures/corpus/osxphotos/$name.HEIC" "renditions/$name.jpg[Q=92]" 2>/dev/null
done
for n in $(seq 1 "$count"); do
  source=IMG_3582; [ $((n % 2)) = 0 ] && source=IMG_4076
  wrjpgcom -comment "renditions $n" "renditions/$source.jpg" > "renditions/photos/$n.jpg"
done

db=darkroom_rendition_bench
edit='{"operations":[{"op":"exposure","ev":0.2}]}'
fresh_library() {
  psql -X -q "$server" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db"
  export DATABASE_URL="${server%/*}/$db" DARKROOM_STORAGE="$work/renditions/storage"
  rm -rf renditions/storage
  "$darkroom" migrate --log-level warning >/dev/null
  "$darkroom" import renditions/photos/*.jpg --log-level warning >/dev/null
}
# drain LABEL: best of 2 drains of one edit per photo; sets wall, cpu and rss.
drain() {
  local label=$1 best=""
  for run in 1 2; do
    psql -X -q -v ON_ERROR_STOP=1 "$DATABASE_URL" -c "SELECT count(*) FROM darkroom.enqueue_edits(
        ARRAY(SELECT id FROM darkroom.assets ORDER BY id), 'io.darkroom.pipeline', '1.0.0', '$edit'::jsonb)" >/dev/null
    /usr/bin/time -f "%e %U %S %M" -o "renditions/$label-$run.txt" "$darkroom" worker --drain --log-level warning >/dev/null
  done
  read -r wall user sys rss < <(sort -n "renditions/$label"-*.txt | head -1)
  cpu=$(python3 -c "print(round($user + $sys, 2))")
  failed=$(psql -X -tA "$DATABASE_URL" -c "SELECT count(*) FROM darkroom.jobs WHERE state <> 'succeeded'")
  [ "$failed" = 0 ] || { echo "rendition-bench: $failed jobs did not succeed ($label)" >&2; exit 1; }
}

fresh_library
drain display; d_wall=$wall d_cpu=$cpu d_rss=$rss

# The two-tool way: from each stored render, what a service runs after darkroom today. Debian
# 12's vips 8.14 cannot save AVIF with libheif 1.19.7, so the preview goes through a PNG and
# heif-enc (the same AOM encoder, speed 6, quality 60).
two_tool() {
  local render=$1 out=renditions/two-tool/$2
  vips thumbnail "$render" "$out-thumb.webp[Q=80]" 320
  vips thumbnail "$render" "$out-preview.png[strip]" 1440
  heif-enc -A -q 60 -p speed=6 "$out-preview.png" -o "$out-preview.avif" >/dev/null
  vips thumbnail "$render" "$out-share.jpg[Q=85,strip]" 2048
}
export -f two_tool
psql -X -tA "$DATABASE_URL" -c "SELECT a.id || ' ' || r.rendered_path FROM darkroom.assets a
    JOIN darkroom.adjustments r ON r.id = a.current_adjustment_id ORDER BY a.id" > renditions/renders.txt
/usr/bin/time -f "%e %U %S %M" -o renditions/two-tool.txt bash -c "
  while read -r id path; do echo \"$work/renditions/storage/\$path \$id\"; done < renditions/renders.txt |
    xargs -P $(nproc) -n 2 bash -c 'two_tool \"\$0\" \"\$1\"'"
read -r t_wall t_user t_sys t_rss < renditions/two-tool.txt
t_cpu=$(python3 -c "print(round($t_user + $t_sys, 2))")

# Each encoder alone on the rendition's own pixels (one photo's, times N): the floor the
# renditions' cost is held to.
first=$(head -1 renditions/renders.txt | cut -d' ' -f2)
vips thumbnail "renditions/storage/$first" renditions/alone/thumb.ppm 320
vips thumbnail "renditions/storage/$first" renditions/alone/preview.ppm 1440
vips thumbnail "renditions/storage/$first" "renditions/alone/preview.png[strip]" 1440
vips thumbnail "renditions/storage/$first" renditions/alone/share.ppm 2048
/usr/bin/time -f "%e %U %S %M" -o renditions/alone.txt bash -c "
  for n in \$(seq 1 $count); do
    cwebp -quiet -q 80 -m 3 -low_memory renditions/alone/thumb.ppm -o renditions/alone/t.webp
    heif-enc -A -q 60 -p speed=6 -p threads=1 renditions/alone/preview.png -o renditions/alone/p.avif >/dev/null
    cjpeg -quality 85 renditions/alone/share.ppm > renditions/alone/s.jpg
  done"
read -r a_wall a_user a_sys a_rss < renditions/alone.txt
a_cpu=$(python3 -c "print(round($a_user + $a_sys, 2))")

"$darkroom" rendition add thumb --format webp --longest-side 320 --quality 80 --log-level warning >/dev/null
"$darkroom" rendition add preview --format avif --longest-side 1440 --quality 60 --log-level warning >/dev/null
"$darkroom" rendition add share --format jpeg --longest-side 2048 --quality 85 --metadata no-location --log-level warning >/dev/null
drain renditions; r_wall=$wall r_cpu=$cpu r_rss=$rss
written=$(psql -X -tA "$DATABASE_URL" -c "SELECT count(*) FROM darkroom.adjustment_renditions AS r
    JOIN darkroom.assets AS a ON a.current_adjustment_id = r.adjustment_id WHERE r.state = 'current'")

# A new version of the preview makes it stale. Two ways to write it: what `rerender --stale`
# queues (a renditions job: the new preview scaled from each stored render), and a replay of
# every chain (every output written again). One drain each, after the queueing.
drain_queued() {
  /usr/bin/time -f "%e %U %S %M" -o "renditions/$1.txt" "$darkroom" worker --drain --log-level warning >/dev/null
  read -r wall user sys rss < "renditions/$1.txt"
  cpu=$(python3 -c "print(round($user + $sys, 2))")
  failed=$(psql -X -tA "$DATABASE_URL" -c "SELECT count(*) FROM darkroom.jobs WHERE state <> 'succeeded'")
  [ "$failed" = 0 ] || { echo "rendition-bench: $failed jobs did not succeed ($1)" >&2; exit 1; }
}
"$darkroom" rendition add preview --format avif --longest-side 1440 --quality 50 --log-level warning >/dev/null
"$darkroom" rerender --stale --log-level warning >/dev/null
kinds=$(psql -X -tA "$DATABASE_URL" -c "SELECT string_agg(DISTINCT kind, ',') FROM darkroom.jobs WHERE state = 'queued'")
[ "$kinds" = renditions ] || { echo "rendition-bench: rerender --stale queued $kinds, not renditions jobs" >&2; exit 1; }
drain_queued stale-renditions; s_wall=$wall s_cpu=$cpu s_rss=$rss
"$darkroom" rendition add preview --format avif --longest-side 1440 --quality 55 --log-level warning >/dev/null
psql -X -q "$DATABASE_URL" -c "SELECT darkroom.enqueue_rerender('io.darkroom.pipeline')" >/dev/null
drain_queued stale-replay; p_wall=$wall p_cpu=$cpu p_rss=$rss

printf '\n%-72s %8s %8s %10s\n' "$count photos of 24 MP (real iPhone photos) on $(nproc) cores" "wall s" "cpu s" "peak RSS"
row() { printf '%-72s %8s %8s %7d MB\n' "$1" "$2" "$3" $(($4 / 1024)); }
row "darkroom drain: full size + display" "$d_wall" "$d_cpu" "$d_rss"
row "darkroom drain: full size + display + WebP 320 + AVIF 1440 + JPEG 2048" "$r_wall" "$r_cpu" "$r_rss"
row "  the three encoders alone on the same pixels (cwebp, heif-enc, cjpeg)" "$a_wall" "$a_cpu" "$a_rss"
row "  two-tool way: the drain above, then vips + heif-enc per render" \
  "$(python3 -c "print(round($d_wall + $t_wall, 2))")" "$(python3 -c "print(round($d_cpu + $t_cpu, 2))")" "$t_rss"
row "a stale preview: renditions jobs (from each stored render)" "$s_wall" "$s_cpu" "$s_rss"
row "a stale preview: replay of every chain (every output again)" "$p_wall" "$p_cpu" "$p_rss"
python3 - "$d_cpu" "$r_cpu" "$a_cpu" "$t_cpu" "$written" "$count" "$s_cpu" "$p_cpu" <<'EOF'
import sys
display, renditions, alone, two_tool, written, count, stale, replay = map(float, sys.argv[1:])
print(f"a stale preview written by renditions jobs takes {stale / replay:.2f}x the CPU of replaying every chain")
added = renditions - display
print(f"renditions added {added:.2f} s of CPU; their encoders alone take {alone:.2f} s: "
      f"{added / alone:.2f}x (the aim: at most 1.10x)")
print(f"whole drain with renditions {renditions:.2f} s against the two-tool way's {display + two_tool:.2f} s: "
      f"{renditions / (display + two_tool):.2f}x")
print(f"{int(written)} rendition files recorded for {int(count)} photos (4 each: display and the three)")
EOF
psql -X -q "$server" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)"
rm -rf renditions
