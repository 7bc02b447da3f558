#!/usr/bin/env bash
# Object-storage benchmark: one 24 MP render (sepia + vignette, with its display copy) read from
# and written to the private S3 server (SeaweedFS on loopback, `make s3-start`) against the same
# render on local disk, then a drain of N photos of 24 MP from the bucket against the same drain
# on local disk; all measured in this run, best of 3. The worker runs with default flags (a
# 256 MiB render budget per slot).
#   usage: s3-bench.sh DARKROOM_BINARY SERVER_URL WORK_DIR
#   WORK_DIR must hold photo24.jpg (render-bench.sh makes it); the AWS_* variables and
#   S3_BENCH_BUCKET name the server and a bucket the bench may create and delete; with
#   S3_SERVER_PID (the Makefile passes SeaweedFS's), the server's own CPU is reported too.
set -euo pipefail
darkroom=$1; server=$2; work=$3
count=${DRAIN_BENCH_PHOTOS:-24}
runs=${S3_BENCH_RUNS:-3}
bucket=${S3_BENCH_BUCKET:-darkroom-bench}
cores=$(nproc)
export PGOPTIONS="-c client_min_messages=warning"
cd "$work"
[ -f photo24.jpg ] || { echo "s3-bench: $work/photo24.jpg is missing; run render-bench.sh first" >&2; exit 1; }
: "${AWS_ENDPOINT_URL:?s3-bench: set the AWS_* variables (make s3-env prints them)}"

s3() {  # s3 METHOD PATH: one signed request to the bench bucket's server
  curl -s -o /dev/null -w '%{http_code}' --aws-sigv4 "aws:amz:${AWS_REGION:-us-east-1}:s3" \
    -u "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" \
    -H "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" -X "$1" "$AWS_ENDPOINT_URL/$2"
}
s3 PUT "$bucket" >/dev/null
trap 's3 DELETE "$bucket" >/dev/null || true' EXIT

rm -rf s3bench && mkdir -p s3bench/photos s3bench/local
for n in $(seq 1 "$count"); do wrjpgcom -comment "s3 bench $n" photo24.jpg > "s3bench/photos/$n.jpg"; done
stamp=$(date +%s)

# setup NAME STORAGE PHOTOS...: a fresh database and storage holding PHOTOS.
setup() {
  local name=$1 storage=$2; shift 2
  psql -X -q "$server" -c "DROP DATABASE IF EXISTS $name WITH (FORCE)" -c "CREATE DATABASE $name"
  export DATABASE_URL="${server%/*}/$name" DARKROOM_STORAGE="$storage"
  "$darkroom" migrate --log-level warning >/dev/null
  "$darkroom" import "$@" --log-level warning >/dev/null
}
# drain NAME STORAGE CONCURRENCY: best of $runs drains of a fresh batch over every asset;
# prints "wall cpu rssKB".
server_ticks() {  # user + system clock ticks of the S3 server so far (0 without S3_SERVER_PID)
  if [ -n "${S3_SERVER_PID:-}" ] && [ -r "/proc/$S3_SERVER_PID/stat" ]; then
    awk '{ print $14 + $15 }' "/proc/$S3_SERVER_PID/stat"
  else echo 0; fi
}
drain() {
  local name=$1 storage=$2 concurrency=$3
  export DATABASE_URL="${server%/*}/$name" DARKROOM_STORAGE="$storage"
  local ticks_before
  ticks_before=$(server_ticks)
  for run in $(seq 1 "$runs"); do
    psql -X -q -v ON_ERROR_STOP=1 "$DATABASE_URL" -c "SELECT count(*) FROM darkroom.enqueue_edits(
        ARRAY(SELECT id FROM darkroom.assets ORDER BY id), 'io.darkroom.pipeline', '1.0.0',
        '{\"operations\":[{\"op\":\"sepia\"},{\"op\":\"vignette\",\"intensity\":1.2}]}'::jsonb)" >/dev/null
    /usr/bin/time -f "%e %U %S %M" -o "s3bench/$name-$run.txt" \
      "$darkroom" worker --drain --concurrency "$concurrency" --log-level warning >/dev/null
  done
  local failed
  failed=$(psql -X -tA "$DATABASE_URL" -c "SELECT count(*) FROM darkroom.jobs WHERE state <> 'succeeded'")
  [ "$failed" = 0 ] || { echo "s3-bench: $failed jobs of $name did not succeed" >&2; exit 1; }
  echo $(( ($(server_ticks) - ticks_before) / runs )) > "s3bench/$name.server"
  sort -n s3bench/"$name"-*.txt | head -1 | awk '{ printf "%s %.2f %d\n", $1, $2 + $3, $4 }'
  psql -X -q "$server" -c "DROP DATABASE IF EXISTS $name WITH (FORCE)"
}
row() {  # row LABEL "wall cpu rssKB"
  read -r wall cpu rss <<< "$2"
  printf '%-58s %8s %8s %7d MB\n' "$1" "$wall" "$cpu" $((rss / 1024))
}

setup darkroom_s3_bench_one_local "$work/s3bench/local/one" s3bench/photos/1.jpg
one_local=$(drain darkroom_s3_bench_one_local "$work/s3bench/local/one" 1)
setup darkroom_s3_bench_one_s3 "s3://$bucket/one-$stamp" s3bench/photos/1.jpg
one_s3=$(drain darkroom_s3_bench_one_s3 "s3://$bucket/one-$stamp" 1)
setup darkroom_s3_bench_many_local "$work/s3bench/local/many" s3bench/photos/*.jpg
many_local=$(drain darkroom_s3_bench_many_local "$work/s3bench/local/many" "$cores")
setup darkroom_s3_bench_many_s3 "s3://$bucket/many-$stamp" s3bench/photos/*.jpg
many_s3=$(drain darkroom_s3_bench_many_s3 "s3://$bucket/many-$stamp" "$cores")

printf '\n%-58s %8s %8s %10s\n' "object storage (SeaweedFS on loopback) vs local disk" "wall s" "cpu s" "peak RSS"
row "one 24 MP render + display copy, local disk" "$one_local"
row "one 24 MP render + display copy, from and to S3" "$one_s3"
row "drain of $count photos of 24 MP, local disk" "$many_local"
row "drain of $count photos of 24 MP, from and to S3" "$many_s3"
echo "worker --drain, default flags (256 MiB budget per slot, $cores slots for the drains), best of $runs;" \
     "CPU and RSS are darkroom's alone"
if [ -n "${S3_SERVER_PID:-}" ]; then
  hz=$(getconf CLK_TCK)
  echo "the S3 server's own CPU on the same cores, per run: $(python3 -c "print(round($(cat s3bench/darkroom_s3_bench_one_s3.server) / $hz, 2))") s" \
       "for the one render, $(python3 -c "print(round($(cat s3bench/darkroom_s3_bench_many_s3.server) / $hz, 2))") s for the drain"
fi
rm -rf s3bench
