# Sourced by the benchmarks that time dashboard pages.
# start_serve DARKROOM OUT: starts `DARKROOM serve` on a free loopback port (its output in
# OUT/serve.out, its log in OUT/serve.log), stopped when the script exits; sets serve (its pid)
# and base (its URL without the trailing slash). Exits when it does not start.
start_serve() {
  local darkroom=$1 out=$2
  "$darkroom" serve --listen 127.0.0.1:0 --log-level warning >"$out/serve.out" 2>"$out/serve.log" &
  serve=$!
  trap 'kill $serve 2>/dev/null || true' EXIT
  for _ in $(seq 1 100); do grep -q '^dashboard at ' "$out/serve.out" 2>/dev/null && break; sleep 0.1; done
  base="$(sed -n 's/^dashboard at \(.*\)\/$/\1/p' "$out/serve.out")"
  [ -n "$base" ] || { echo "darkroom serve did not start; see $out/serve.log" >&2; cat "$out/serve.log" >&2; exit 1; }
}
