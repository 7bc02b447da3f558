#!/usr/bin/env bash
# Plan against peak RSS: every HEIF and AVIF of the corpus (and the folders given after it),
# and a real 12 MP iPhone photo coded whole by heif-enc as HEVC and AV1 at 8, 10 and 12 bits,
# 4:2:0 and 4:4:4, and with an alpha plane (8-bit 4:2:0, 10-bit 4:2:0 and 4:4:4): the depths,
# chromas and alpha the corpus has few of. Each is rendered at the least budget its plan fits
# (found from the planner's own refusals), one thread, its peak RSS measured by GNU time. The
# program's fixed cost (a 29x100 HEIF rendered the same way) is taken off. A row whose peak
# above the fixed cost exceeds its budget is an underpriced decode, and the script exits 1
# after the tables. Then the same for the photo coded by cjpeg (libjpeg's table: baseline and
# progressive, each chroma, grey; the fixed cost a 16x16 JPEG's), and the iPhone HDR photos
# with their gain map kept and dropped (the auxiliary image's price and peak, apart).
#   usage: plan-rss-bench.sh DARKROOM_BINARY [FOLDER...]
set -euo pipefail
darkroom=$1; shift
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
folders=("$root/Tests/Fixtures/corpus" "$out/coded" "$@")

mkdir -p "$out/coded"
photo="$root/Tests/Fixtures/corpus/osxphotos/IMG_1853.HEIC"
# Debian 12's vips 8.14 crashes now and then saving a 16-bit PNG: a few tries.
png16() {  # SOURCE TARGET
  for _ in 1 2 3 4 5 6 7 8; do vips copy "$1" "$2[bitdepth=16]" 2>/dev/null && return; done
  echo "plan-rss-bench: vips could not write $2" >&2; exit 1
}
png16 "$photo" "$out/source16.png"
vips copy "$photo" "$out/source8.png"
for codec in hevc av1; do
  for bits in 8 10 12; do
    for chroma in 420 444; do
      source=$out/source16.png; depth=(-b "$bits"); [ "$bits" = 8 ] && { source=$out/source8.png; depth=(); }
      if [ "$codec" = av1 ]; then
        heif-enc -A -q 80 -p speed=9 -p chroma=$chroma "${depth[@]}" "$source" -o "$out/coded/av1-$bits-$chroma.avif" >/dev/null
      else
        heif-enc -q 80 -p chroma=$chroma "${depth[@]}" "$source" -o "$out/coded/hevc-$bits-$chroma.heic" >/dev/null
      fi
    done
  done
done
# An alpha plane beside the colour: the same photo, opaque, as HEVC and AV1.
vips bandjoin_const "$out/source8.png" "$out/alpha8.png" 255
vips bandjoin_const "$out/source16.png" "$out/alpha16.v" 65535 && png16 "$out/alpha16.v" "$out/alpha16.png"
for coding in 8:420 10:420 10:444; do
  bits=${coding%:*}; chroma=${coding#*:}
  source=$out/alpha16.png; depth=(-b "$bits"); [ "$bits" = 8 ] && { source=$out/alpha8.png; depth=(); }
  heif-enc -q 80 -p chroma=$chroma "${depth[@]}" "$source" -o "$out/coded/hevc-$bits-$chroma-alpha.heic" >/dev/null
  heif-enc -A -q 80 -p speed=9 -p chroma=$chroma "${depth[@]}" "$source" \
    -o "$out/coded/av1-$bits-$chroma-alpha.avif" >/dev/null
done
# libjpeg: the photo as cjpeg codes it, baseline and progressive.
vips copy "$out/source8.png" "$out/source8.ppm"
mkdir -p "$out/jpeg"
for variant in "baseline-420:-sample 2x2" "baseline-422:-sample 2x1" "baseline-444:-sample 1x1" \
  "baseline-grey:-grayscale" "progressive-420:-progressive -sample 2x2" "progressive-444:-progressive -sample 1x1"; do
  # shellcheck disable=SC2086
  cjpeg -quality 90 ${variant#*:} -outfile "$out/jpeg/${variant%%:*}.jpg" "$out/source8.ppm"
done

peak_kb() {  # FILE BUDGET [FLAG...]
  local file=$1 budget=$2; shift 2
  { /usr/bin/time -f "%M" "$darkroom" render "$file" -o "$out/x.jpg" --memory-budget "$budget" --threads 1 --decoder-sandbox off "$@" 2>&1 >/dev/null || true; } | tail -1
}
fixed=$(peak_kb "$root/Tests/Fixtures/corpus/pillow_heif/L_8__29x100.heif" 64MiB)

# The least budget in whole MiB the render fits: the planner says what it needs when refused.
least_budget() {  # FILE [FLAG...]
  local file=$1 budget=1 need; shift
  for _ in 1 2 3 4 5 6 7 8; do
    need=$("$darkroom" render "$file" -o "$out/x.jpg" --memory-budget "${budget}MiB" --threads 1 --decoder-sandbox off "$@" 2>&1 >/dev/null |
      grep -o 'at least [0-9.]* [KMG]iB' | head -1 | sed 's/at least //') || true
    [ -z "$need" ] && { echo "$budget"; return; }
    budget=$(python3 -c "import math; v, u = '$need'.split(); print(max(math.ceil(float(v) * {'KiB': 1 / 1024, 'MiB': 1, 'GiB': 1024}[u]), $budget + 1))")
  done
  echo "$budget"
}

printf '%-58s %-22s %9s %14s %6s\n' "file (fixed cost $((fixed / 1024)) MB)" "coded as" "budget" "peak - fixed" ""
over=0
while IFS= read -r file; do
  budget=$(least_budget "$file")
  if ! "$darkroom" render "$file" -o "$out/x.jpg" --memory-budget "${budget}MiB" --threads 1 --decoder-sandbox off >/dev/null 2>&1; then
    continue  # refused for another reason (damaged, unsupported): the corpus tests say which
  fi
  peak=$(( ($(peak_kb "$file" "${budget}MiB") - fixed) / 1024 ))
  coded=$(heif-info "$file" 2>/dev/null | grep -m2 -E 'colorspace|bit depth' | sed 's/.*: //' | tr '\n' ' ')
  verdict=ok; [ "$peak" -gt "$budget" ] && { verdict=OVER; over=1; }
  name=${file#"$root"/Tests/Fixtures/}; name=${name#"$out"/}
  printf '%-58s %-22s %6s MiB %10s MiB %6s\n' "$name" "$coded" "$budget" "$peak" "$verdict"
done < <(find "${folders[@]}" -type f \( -iname '*.heic' -o -iname '*.heif' -o -iname '*.hif' -o -iname '*.avif' \) | sort)

# libjpeg's table: what the plan gives its decompressor (render --explain's "decoder"), the
# least budget, and the peak above a 16x16 JPEG's.
fixed_jpeg=$(peak_kb "$root/Tests/Fixtures/corpus/jpeg-decoder/reftest/mozilla/jpg-size-16x16.jpg" 64MiB)
printf '\n%-40s %16s %9s %14s %6s\n' "12 MP photo by cjpeg (fixed $((fixed_jpeg / 1024)) MB)" "plan: libjpeg" "budget" "peak - fixed" ""
for file in "$out"/jpeg/*.jpg; do
  budget=$(least_budget "$file")
  decoder=$("$darkroom" render "$file" --explain --memory-budget "${budget}MiB" --threads 1 2>/dev/null |
    awk '/^memory/ {print $3, $4}' | tr -d ,)
  peak=$(( ($(peak_kb "$file" "${budget}MiB") - fixed_jpeg) / 1024 ))
  verdict=ok; [ "$peak" -gt "$budget" ] && { verdict=OVER; over=1; }
  printf '%-40s %16s %6s MiB %10s MiB %6s\n' "$(basename "$file" .jpg)" "$decoder" "$budget" "$peak" "$verdict"
done

# The gain map, an auxiliary image, apart: each iPhone HDR photo with it kept and dropped.
printf '\n%-40s %20s %20s %14s\n' "iPhone HDR HEIC" "gain map kept" "dropped" "the map's part"
printf '%-40s %20s %20s %14s\n' "" "budget / peak-fixed" "budget / peak-fixed" "budget / peak"
for name in osxphotos/IMG_4076.HEIC osxphotos/IMG_3582.HEIC pillow_heif/pug.heic; do
  file=$root/Tests/Fixtures/corpus/$name
  kept=$(least_budget "$file" --hdr keep); dropped=$(least_budget "$file" --hdr drop)
  kept_peak=$(( ($(peak_kb "$file" "${kept}MiB" --hdr keep) - fixed) / 1024 ))
  dropped_peak=$(( ($(peak_kb "$file" "${dropped}MiB" --hdr drop) - fixed) / 1024 ))
  [ "$kept_peak" -gt "$kept" ] && over=1
  printf '%-40s %9s / %4s MiB %9s / %4s MiB %6s / %4s MiB\n' "$name" "$kept" "$kept_peak" "$dropped" "$dropped_peak" \
    "$((kept - dropped))" "$((kept_peak - dropped_peak))"
done
exit $over
