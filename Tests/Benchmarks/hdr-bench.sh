#!/usr/bin/env bash
# HDR gain-map benchmark: what carrying an original's gain map costs (`--hdr keep` against
# `--hdr drop`, measured in this run), on real 12 MP and 24 MP iPhone 15 Pro HEICs (Apple's
# half-resolution auxiliary map) and on a 24 MP Ultra HDR JPEG: the 24 MP HEIC's own render
# with `--hdr keep`, so a real photo and its real map joined by GainMapJPEGWriter (MPF, hdrgm,
# ISO 21496-1). The edit: a 2° straighten, a crop and sepia, on one core, at 128 MiB.
# Prints the table; docs/benchmarks.md holds the current one.
#   usage: hdr-bench.sh DARKROOM_BINARY WORK_DIR
set -euo pipefail
darkroom=$1
work=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
cd "$work"
heic12=$here/../Fixtures/corpus/osxphotos/IMG_4394.HEIC
heic=$here/../Fixtures/corpus/osxphotos/IMG_3582.HEIC
budget=128MiB

[ -f ultrahdr24.jpg ] || "$darkroom" render "$heic" -o ultrahdr24.jpg --quality 92 --hdr keep --threads 1 >/dev/null
exiftool -s -s -s -NumberOfImages ultrahdr24.jpg | grep -qx 2 || { echo "ultrahdr24.jpg has no gain map" >&2; exit 1; }

# The same edit on both sizes: a crop of the same share of the (upright, portrait) picture.
ops24='{"operations":[{"op":"rotate","degrees":2},{"op":"crop","x":200,"y":200,"width":3600,"height":5000},{"op":"sepia","intensity":0.6}]}'
ops12='{"operations":[{"op":"rotate","degrees":2},{"op":"crop","x":140,"y":140,"width":2540,"height":3530},{"op":"sepia","intensity":0.6}]}'

# Best of three by CPU seconds: keeping the map is judged by the CPU it costs.
measure_best_by=cpu
source "$here/measure.sh"

for input in heic12:"$heic12" heic24:"$heic" ultrahdr24:ultrahdr24.jpg; do
  name=${input%%:*}
  file=${input#*:}
  ops=$ops24
  [ "$name" = heic12 ] && ops=$ops12
  for mode in keep drop; do
    measure "${name}_$mode" "$darkroom" render "$file" -o out.jpg --data "$ops" --quality 92 \
      --memory-budget $budget --threads 1 --hdr $mode
  done
done

printf '\n%-38s %9s %9s %10s\n' "gain map (rotate 2°, crop, sepia)" "wall s" "cpu s" "peak RSS"
for name in heic12 heic24 ultrahdr24; do
  for mode in keep drop; do
    wall=wall_${name}_$mode cpu=cpu_${name}_$mode rss=rss_${name}_$mode
    printf '%-38s %9s %9s %7d MB\n' "$name --hdr $mode" "${!wall}" "${!cpu}" $((${!rss} / 1024))
  done
  keep=cpu_${name}_keep drop=cpu_${name}_drop
  printf '%-38s %s\n' "$name: keep against drop (CPU)" "$(python3 -c "print(f'{${!keep} / ${!drop}:.2f}x')")"
done
echo "One core, --memory-budget $budget, quality 92; best of 3 runs each; GNU time."
