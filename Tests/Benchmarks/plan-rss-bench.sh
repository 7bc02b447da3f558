#!/usr/bin/env bash
# Plan against peak RSS: every HEIF and AVIF of the corpus (and the folders given after it),
# and a real 12 MP iPhone photo coded whole by heif-enc as HEVC and AV1 at 8, 10 and 12 bits,
# 4:2:0 and 4:4:4 (the depths and chromas the corpus has few of), each rendered at the least
# budget its plan fits (found from the planner's own refusals), one thread, its peak RSS measured
# by GNU time. The program's fixed cost (a 29x100 HEIF rendered the same way) is taken off. A
# row whose peak above the fixed cost exceeds its budget is an underpriced decode, and the script
# exits 1 after the table.
#   usage: plan-rss-bench.sh DARKROOM_BINARY [FOLDER...]
set -euo pipefail
darkroom=$1; shift
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
folders=("$root/Tests/Fixtures/corpus" "$out/coded" "$@")

mkdir -p "$out/coded"
photo="$root/Tests/Fixtures/corpus/osxphotos/IMG_1853.HEIC"
vips copy "$photo" "$out/source16.png[bitdepth=16]"
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

peak_kb() {
  { /usr/bin/time -f "%M" "$darkroom" render "$1" -o "$out/x.jpg" --memory-budget "$2" --threads 1 2>&1 >/dev/null || true; } | tail -1
}
fixed=$(peak_kb "$root/Tests/Fixtures/corpus/pillow_heif/L_8__29x100.heif" 64MiB)

# The least budget in whole MiB the render fits: the planner says what it needs when refused.
least_budget() {
  local file=$1 budget=1 need
  for _ in 1 2 3 4 5 6 7 8; do
    need=$("$darkroom" render "$file" -o "$out/x.jpg" --memory-budget "${budget}MiB" --threads 1 2>&1 >/dev/null |
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
  if ! "$darkroom" render "$file" -o "$out/x.jpg" --memory-budget "${budget}MiB" --threads 1 >/dev/null 2>&1; then
    continue  # refused for another reason (damaged, unsupported): the corpus tests say which
  fi
  peak=$(( ($(peak_kb "$file" "${budget}MiB") - fixed) / 1024 ))
  coded=$(heif-info "$file" 2>/dev/null | grep -m2 -E 'colorspace|bit depth' | sed 's/.*: //' | tr '\n' ' ')
  verdict=ok; [ "$peak" -gt "$budget" ] && { verdict=OVER; over=1; }
  name=${file#"$root"/Tests/Fixtures/}; name=${name#"$out"/}
  printf '%-58s %-22s %6s MiB %10s MiB %6s\n' "$name" "$coded" "$budget" "$peak" "$verdict"
done < <(find "${folders[@]}" -type f \( -iname '*.heic' -o -iname '*.heif' -o -iname '*.hif' -o -iname '*.avif' \) | sort)
exit $over
