# Sourced by the benchmarks that time single commands.
# measure LABEL COMMAND...: runs COMMAND three times under GNU time and keeps the best run, by
# wall seconds or, with measure_best_by=cpu, by CPU seconds (user+sys, children included). Sets
# wall_LABEL, cpu_LABEL and rss_LABEL (peak RSS in KB; LABEL with anything but letters and digits
# as _) and appends "LABEL|wall|cpu|rss" to results. A failing run prints its stderr and exits.
time_cmd=/usr/bin/time
measure_best_by=${measure_best_by:-wall}
results=()
measure() {
  local label=$1; shift
  local best="" best_wall="" best_cpu="" best_rss=""
  for _ in 1 2 3; do
    rm -f out.jpg
    "$time_cmd" -f "%e %U %S %M" -o timing.txt "$@" >/dev/null 2>err.txt || { echo "failed: $label"; cat err.txt; exit 1; }
    local wall user sys rss cpu key
    read -r wall user sys rss < timing.txt
    cpu=$(python3 -c "print(f'{$user + $sys:.2f}')")
    key=$wall; [ "$measure_best_by" = cpu ] && key=$cpu
    if [ -z "$best" ] || python3 -c "import sys; sys.exit(0 if $key < $best else 1)"; then
      best=$key best_wall=$wall best_cpu=$cpu best_rss=$rss
    fi
  done
  results+=("$label|$best_wall|$best_cpu|$best_rss")
  local name=${label//[^a-zA-Z0-9]/_}
  printf -v "wall_$name" '%s' "$best_wall"
  printf -v "cpu_$name" '%s' "$best_cpu"
  printf -v "rss_$name" '%s' "$best_rss"
}
