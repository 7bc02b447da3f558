#!/usr/bin/env bash
# Render benchmark: darkroom against the libjpeg-turbo floor (djpeg | cjpeg) and vips, and for a
# 12 MP iPhone HEIC against libheif's heif-convert (decode + libjpeg) and vips' HEIF loader, and a 2°
# straighten against a plain crop of the same size, a 33³ LUT filter against sepia, all measured
# in this run on this machine.
# Prints the tables; docs/benchmarks.md holds the current ones.
#   usage: render-bench.sh DARKROOM_BINARY WORK_DIR
set -euo pipefail
darkroom=$1
work=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
cd "$work"
samples=$here/../Fixtures/exif-samples
heic=$here/../Fixtures/heif/arrow.heic
# A real 24 MP iPhone 15 Pro HEIC (5712×4284, 9×5 tiles of 640×896, gain map; osxphotos, MIT).
heic24=$here/../Fixtures/corpus/osxphotos/IMG_4076.HEIC

# ---- inputs (generated once, kept in WORK_DIR) ---------------------------------------
# A real phone photo upscaled with fine noise added: photo-like structure and sensor-like
# detail, so the entropy coder has real work (~8 MB at quality 92 for 24 MP).
make_input() {  # name width height
  local name=$1 width=$2 height=$3
  [ -f "$name.jpg" ] && return
  local scale_x scale_y
  scale_x=$(python3 -c "print($width/3264)")
  scale_y=$(python3 -c "print($height/2448)")
  vips resize "$samples/hdr/iphone_hdr_NO.jpg" "$name-base.v" "$scale_x" --vscale "$scale_y" --kernel cubic
  vips gaussnoise "$name-noise.v" "$width" "$height" --sigma 6 --mean 0
  vips bandjoin "$name-noise.v $name-noise.v $name-noise.v" "$name-noise3.v"
  vips add "$name-base.v" "$name-noise3.v" "$name-sum.v"
  vips cast "$name-sum.v" "$name-u8.v" uchar
  vips copy "$name-u8.v" "$name.jpg[Q=92,strip,interlace=false,subsample-mode=off]"
  rm -f "$name"-*.v
}
# The same pixels with EXIF orientation 6 (rotate 90° clockwise to display).
make_rotated() {  # name
  local name=$1
  [ -f "$name-o6.jpg" ] && return
  exif --create-exif --ifd=0 --tag=Orientation --set-value=6 --output="$name-o6.jpg" "$name.jpg" >/dev/null
}
make_input photo24 6000 4000
make_input pano150 15000 10000
make_rotated photo24
make_rotated pano150
printf '0.393 0.769 0.189\n0.349 0.686 0.168\n0.272 0.534 0.131\n' | { echo "3 3"; cat; } > sepia.mat

# ---- measurement ---------------------------------------------------------------------
# Best of three by wall seconds (measure.sh).
source "$here/measure.sh"
    read -r wall user sys maxrss < timing.txt
    if [ -z "$best_wall" ] || python3 -c "import sys; sys.exit(0 if $wall < $best_wall else 1)"; then
      best_wall=$wall; cpu=$(python3 -c "print(round($user + $sys, 2))"); rss=$maxrss
    fi
  done
  results+=("$label|$best_wall|$cpu|$rss")
  eval "wall_${label//[^a-zA-Z0-9]/_}=$best_wall; cpu_${label//[^a-zA-Z0-9]/_}=$cpu; rss_${label//[^a-zA-Z0-9]/_}=$rss"
}

ops='{"operations":[{"op":"sepia"},{"op":"vignette","intensity":1.2}]}'
for size in photo24 pano150; do
  for o in 1 6; do
    input=$size.jpg; [ $o = 6 ] && input=$size-o6.jpg
    measure "darkroom-$size-o$o" "$darkroom" render "$input" -o out.jpg --data "$ops" --quality 92 --memory-budget 64MiB
    measure "darkroom1-$size-o$o" "$darkroom" render "$input" -o out.jpg --data "$ops" --quality 92 --memory-budget 64MiB --threads 1
    measure "floor-$size-o$o" bash -c "djpeg -rgb '$input' | cjpeg -quality 92 -sample 1x1 > out.jpg"
    measure "vips1-$size-o$o" vips recomb "$input[autorotate]" "out.jpg[Q=92,subsample-mode=off]" sepia.mat --vips-concurrency=1
    measure "vips-$size-o$o" vips recomb "$input[autorotate]" "out.jpg[Q=92,subsample-mode=off]" sepia.mat
  done
done

# The 12 MP iPhone HEIC (3024×4032 upright, an 8×6 grid of HEVC tiles, Display P3): darkroom
# decodes a row of tiles at a time, the other tools the whole grid. Quality 89 everywhere, so every
# encoder writes 4:2:0 (heif-convert has no 4:4:4; darkroom and vips switch to 4:4:4 at 90). vips
# needs no autorotate: libheif applies irot for it.
heic_budget=128MiB
measure "darkroom-heic12" "$darkroom" render "$heic" -o out.jpg --data "$ops" --quality 89 --memory-budget $heic_budget
measure "darkroom1-heic12" "$darkroom" render "$heic" -o out.jpg --data "$ops" --quality 89 --memory-budget $heic_budget --threads 1
measure "floor-heic12" heif-convert --quiet -q 89 "$heic" out.jpg
measure "vips1-heic12" vips recomb "$heic" "out.jpg[Q=89]" sepia.mat --vips-concurrency=1
measure "vips-heic12" vips recomb "$heic" "out.jpg[Q=89]" sepia.mat
# The 24 MP grid on one core at 64 MiB, against heif-dec (libheif's decode + libjpeg encode).
measure "darkroom1-heic24" "$darkroom" render "$heic24" -o out.jpg --data "$ops" --quality 89 --memory-budget 64MiB --threads 1
measure "floor-heic24" heif-dec --quiet -q 89 "$heic24" out.jpg
measure "vips1-heic24" vips recomb "$heic24" "out.jpg[Q=89]" sepia.mat --vips-concurrency=1

# ---- report --------------------------------------------------------------------------
printf '\n%-26s %9s %9s %10s %12s %12s\n' "render (sepia+vignette)" "wall s" "cpu s" "peak RSS" "vs floor" "vs vips -c1"
for row in "${results[@]}"; do
  IFS='|' read -r label wall cpu rss <<<"$row"
  key=${label#*-}; key=${key//[^a-zA-Z0-9]/_}
  floor_var="wall_floor_$key"; vips_var="wall_vips1_$key"
  ratio_floor=$(python3 -c "print(f'{$wall / ${!floor_var}:.2f}x')")
  ratio_vips=$(python3 -c "print(f'{$wall / ${!vips_var}:.2f}x')")
  printf '%-26s %9s %9s %8d MB %12s %12s\n' "$label" "$wall" "$cpu" $((rss / 1024)) "$ratio_floor" "$ratio_vips"
done
echo
echo "darkroom: --memory-budget 64MiB, quality 92 (4:4:4), 2 threads (darkroom1: --threads 1, one core). floor: djpeg -rgb | cjpeg -quality 92 -sample 1x1."
echo "vips: recomb with the sepia matrix on the autorotated input (no vignette), -c1 = --vips-concurrency=1."
echo "heic12: Tests/Fixtures/heif/arrow.heic, quality 89 (4:2:0) in every row, darkroom --memory-budget $heic_budget;"
echo "        its floor is heif-convert -q 89 (libheif decode + libjpeg encode in one process)."
echo "Best of 3 runs each; wall and CPU seconds from GNU time, peak RSS = max resident set."

printf '\nheic12 on one core (CPU seconds): darkroom1 %s, heif-convert %s: %s\n' "$cpu_darkroom1_heic12" "$cpu_floor_heic12" \
  "$(python3 -c "print(f'{$cpu_darkroom1_heic12 / $cpu_floor_heic12:.2f}x')")"
printf 'heic24 on one core at 64 MiB (CPU seconds): darkroom1 %s, heif-dec %s: %s\n' "$cpu_darkroom1_heic24" "$cpu_floor_heic24" \
  "$(python3 -c "print(f'{$cpu_darkroom1_heic24 / $cpu_floor_heic24:.2f}x')")"

# ---- the memory budget ---------------------------------------------------------------
# Peak RSS minus the fixed cost of the running program (the same binary rendering a
# 16×16 image: Swift runtime, Foundation, libjpeg) must stay within --memory-budget.
vips black tiny.v 16 16 --bands 3 && vips copy tiny.v tiny.jpg && rm -f tiny.v
"$time_cmd" -f "%M" -o fixed.txt "$darkroom" render tiny.jpg -o tiny-out.jpg >/dev/null
rm -f tiny-out.jpg
fixed=$(cat fixed.txt)
printf '\n%-34s %10s %10s %12s %8s\n' "budget check (15000×10000)" "peak RSS" "fixed" "peak−fixed" "within"
verdict=0
for budget in 32 64 256; do
  for o in 1 6; do
    input=pano150.jpg; [ $o = 6 ] && input=pano150-o6.jpg
    rm -f out.jpg
    "$time_cmd" -f "%M" -o rss.txt "$darkroom" render "$input" -o out.jpg --data "$ops" --memory-budget ${budget}MiB >/dev/null
    rss=$(cat rss.txt)
    used=$((rss - fixed))
    ok=yes; [ $((used * 1024)) -le $((budget * 1024 * 1024)) ] || { ok=NO; verdict=1; }
    printf '%-34s %8d MB %8d MB %10d MB %8s\n' "--memory-budget ${budget}MiB, orientation $o" $((rss / 1024)) $((fixed / 1024)) $((used / 1024)) "$ok"
  done
done

# ---- straighten: a 2° turn against a plain crop of the same size ---------------------
# One core at 64 MiB. The turn keeps the largest upright rectangle: it holds a band of rows
# (the slant of one output row) and interpolates as three shears, where the crop copies.
straighten='{"operations":[{"op":"rotate","degrees":2}]}'
turned=$("$darkroom" render photo24.jpg --explain --data "$straighten" --memory-budget 64MiB | awk '/^output/ {print $2}')
out_w=${turned%×*}
out_h=${turned#*×}
crop="{\"operations\":[{\"op\":\"crop\",\"x\":$(((6000 - out_w) / 2)),\"y\":$(((4000 - out_h) / 2)),\"width\":$out_w,\"height\":$out_h}]}"
measure "straighten1-photo24" "$darkroom" render photo24.jpg -o out.jpg --data "$straighten" --quality 92 --memory-budget 64MiB --threads 1
measure "crop1-photo24" "$darkroom" render photo24.jpg -o out.jpg --data "$crop" --quality 92 --memory-budget 64MiB --threads 1
# The reference tool on the same turn: vips' affine with its bicubic interpolator, writing the
# same centred window (--oarea, in the turned image's coordinates), against its own crop.
vips_turn=$(python3 -c "
import math
a = math.radians(2); c, s = math.cos(a), math.sin(a)
cx, cy = c * 3000 - s * 2000, s * 3000 + c * 2000
print(f'{c} {-s} {s} {c}|{round(cx - $out_w / 2)} {round(cy - $out_h / 2)} $out_w $out_h')")
measure "vips1-straighten-photo24" vips affine photo24.jpg "out.jpg[Q=92]" "${vips_turn%|*}" \
  --interpolate bicubic --oarea "${vips_turn#*|}" --vips-concurrency=1
measure "vips1-crop-photo24" vips crop photo24.jpg "out.jpg[Q=92]" $(((6000 - out_w) / 2)) $(((4000 - out_h) / 2)) \
  "$out_w" "$out_h" --vips-concurrency=1
used=$((rss_straighten1_photo24 - fixed))
ok=yes; [ $((used * 1024)) -le $((64 * 1024 * 1024)) ] || { ok=NO; verdict=1; }
printf '\n%-34s %9s %9s %10s %12s %8s\n' "straighten 2° (6000×4000 → $turned)" "wall s" "cpu s" "peak RSS" "peak−fixed" "within"
printf '%-34s %9s %9s %8d MB %10d MB %8s\n' "rotate 2°, crop mode, 1 core" "$wall_straighten1_photo24" "$cpu_straighten1_photo24" \
  $((rss_straighten1_photo24 / 1024)) $((used / 1024)) "$ok"
printf '%-34s %9s %9s %8d MB\n' "crop to $turned, 1 core" "$wall_crop1_photo24" "$cpu_crop1_photo24" $((rss_crop1_photo24 / 1024))
printf '%-34s %9s %9s %8d MB\n' "vips affine 2° bicubic, -c1" "$wall_vips1_straighten_photo24" \
  "$cpu_vips1_straighten_photo24" $((rss_vips1_straighten_photo24 / 1024))
printf '%-34s %9s %9s %8d MB\n' "vips crop, -c1" "$wall_vips1_crop_photo24" "$cpu_vips1_crop_photo24" \
  $((rss_vips1_crop_photo24 / 1024))
printf 'straighten against crop (CPU seconds): darkroom %s, vips %s; darkroom turn against vips turn: %s\n' \
  "$(python3 -c "print(f'{$cpu_straighten1_photo24 / $cpu_crop1_photo24:.2f}x')")" \
  "$(python3 -c "print(f'{$cpu_vips1_straighten_photo24 / $cpu_vips1_crop_photo24:.2f}x')")" \
  "$(python3 -c "print(f'{$cpu_straighten1_photo24 / $cpu_vips1_straighten_photo24:.2f}x')")"

# ---- a filter: a 33³ LUT against sepia, the same render otherwise ---------------------
# One core at 64 MiB. The LUT is a designer-style look made here (an S-curve, warm shadows, a
# little more saturation), 33³ as Resolve and Photoshop export them. Issue 23 asks for the LUT
# render within 1.1× the CPU of the sepia render.
python3 - look33.cube <<'PY'
import sys
n = 33
lines = ['TITLE "bench look"', "LUT_3D_SIZE 33"]
def curve(x): return x * x * (3 - 2 * x) * 0.6 + x * 0.4
for b in range(n):
    for g in range(n):
        for r in range(n):
            rgb = [r / (n - 1), g / (n - 1), b / (n - 1)]
            y = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]
            c = [y + (v - y) * 1.15 for v in rgb]
            c = [c[0] + 0.04 * (1 - y), c[1] + 0.01, c[2] - 0.03 * (1 - y) + 0.02 * y]
            lines.append("%.6f %.6f %.6f" % tuple(min(1, max(0, curve(min(1, max(0, v))))) for v in c))
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
lut_ops='{"operations":[{"op":"filter","name":"look","version":"1.0.0"}]}'
measure "sepia1-photo24" "$darkroom" render photo24.jpg -o out.jpg --data '{"operations":[{"op":"sepia"}]}' \
  --quality 92 --memory-budget 64MiB --threads 1
measure "lut1-photo24" "$darkroom" render photo24.jpg -o out.jpg --data "$lut_ops" --filter-file look@1.0.0=look33.cube \
  --quality 92 --memory-budget 64MiB --threads 1
printf '\n%-34s %9s %9s %10s\n' "filter (6000×4000, 1 core, 64 MiB)" "wall s" "cpu s" "peak RSS"
printf '%-34s %9s %9s %8d MB\n' "sepia" "$wall_sepia1_photo24" "$cpu_sepia1_photo24" $((rss_sepia1_photo24 / 1024))
printf '%-34s %9s %9s %8d MB\n' "33³ LUT (tetrahedral)" "$wall_lut1_photo24" "$cpu_lut1_photo24" $((rss_lut1_photo24 / 1024))
printf 'LUT against sepia (CPU seconds): %s; LUT cost over sepia: %s ns/pixel\n' \
  "$(python3 -c "print(f'{$cpu_lut1_photo24 / $cpu_sepia1_photo24:.2f}x')")" \
  "$(python3 -c "print(f'{($cpu_lut1_photo24 - $cpu_sepia1_photo24) / 24e6 * 1e9:.1f}')")"

# The HEIC's whole-image decode: peak RSS minus the fixed cost of the same binary rendering a
# 16×16 HEIC (libheif and its codecs loaded) against what the planner priced (`--explain`).
# heif-enc, not vips: Debian 12's vips cannot write HEIC through libheif 1.19 (its writer gives a null message).
vips black tiny.v 16 16 --bands 3 && vips copy tiny.v tiny.png && heif-enc -q 50 -o tiny.heic tiny.png >/dev/null \
  && rm -f tiny.v tiny.png
"$time_cmd" -f "%M" -o fixed.txt "$darkroom" render tiny.heic -o tiny-out.jpg >/dev/null
rm -f tiny-out.jpg
heic_fixed=$(cat fixed.txt)
priced=$("$darkroom" render "$heic" --explain --data "$ops" --quality 89 --memory-budget $heic_budget)
decoder_line=$(grep '^decode ' <<<"$priced")
priced_total=$(awk '/^total/ {print $2, $3}' <<<"$priced")
priced_kb=$(python3 -c "n, u = '$priced_total'.split(); print(int(float(n) * {'KiB': 1, 'MiB': 1024, 'GiB': 1048576}[u]))")
printf '\n%-34s %10s %10s %12s %12s %8s\n' "HEIC decode check (3024×4032)" "peak RSS" "fixed" "peak−fixed" "priced" "within"
for threads in 1 2; do
  rm -f out.jpg
  "$time_cmd" -f "%M" -o rss.txt "$darkroom" render "$heic" -o out.jpg --data "$ops" --quality 89 --memory-budget $heic_budget --threads $threads >/dev/null
  rss=$(cat rss.txt)
  used=$((rss - heic_fixed))
  ok=yes; [ "$used" -le "$priced_kb" ] || { ok=NO; verdict=1; }
  printf '%-34s %8d MB %8d MB %10d MB %10d MB %8s\n' "--threads $threads, budget $heic_budget" $((rss / 1024)) $((heic_fixed / 1024)) $((used / 1024)) $((priced_kb / 1024)) "$ok"
done
echo "priced by the planner: $decoder_line"
exit $verdict
