#!/usr/bin/env bash
# make corpus CORPUS=dir: renders every file under dir with `darkroom render` (no edit) at the
# memory budget BUDGET (default 64MiB) and prints one line per file, in the words of
# Tests/Fixtures/corpus/expected.tsv (rendered / rendered with WARNING,… / refused: the reason),
# with the wall time and the peak RSS (GNU time). Nothing is written outside a scratch folder.
set -euo pipefail
darkroom=$1
corpus=$2
budget=${3:-64MiB}
[ -d "$corpus" ] || { echo "error: $corpus is not a folder (make corpus CORPUS=dir)" >&2; exit 2; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
printf '%s\t%s\t%s\t%s\n' "file" "outcome at $budget" "seconds" "peak RSS MiB"
rendered=0
refused=0
while IFS= read -r -d '' file; do
  relative=${file#"$corpus"/}
  start=$(date +%s.%N)
  if /usr/bin/time -f '%M' -o "$scratch/rss" "$darkroom" render --memory-budget "$budget" --threads 1 \
    -o "$scratch/out.jpg" "$file" >/dev/null 2>"$scratch/err"; then
    codes=$(sed -n 's/^darkroom: warning: \([a-z_.]*\):.*/\1/p' "$scratch/err" | sort -u | paste -sd, -)
    outcome=${codes:+rendered with $codes}
    outcome=${outcome:-rendered}
    rendered=$((rendered + 1))
  else
    outcome="refused: $(grep -v '^darkroom: warning:' "$scratch/err" | head -1 | sed 's/^darkroom: //' | cut -c1-160)"
    refused=$((refused + 1))
  fi
  seconds=$(echo "$(date +%s.%N) - $start" | bc)
  printf '%s\t%s\t%.2f\t%.1f\n' "$relative" "$outcome" "$seconds" "$(echo "$(tail -1 "$scratch/rss") / 1024" | bc -l)"
done < <(find "$corpus" -type f ! -name 'LICENSE*' ! -name '*.md' ! -name '*.tsv' ! -name '*.aae' ! -name '*.AAE' -print0 | sort -z)
echo "$rendered rendered, $refused refused"
