#!/usr/bin/env bash
# A fleet across machines, for real (issue 13): two `darkroom worker` processes, each in a network
# namespace of its own with only its own private scratch folder, share nothing but PostgreSQL and
# an S3 server (SeaweedFS). They drain one batch together; worker A is killed with SIGKILL while
# one of its renders is a multipart upload in flight (seen in ListMultipartUploads), worker B
# takes over its job; the S3 server is restarted while one of B's uploads is in flight. Then:
# every job succeeded exactly once, nothing is recorded twice, every object is whole, and after
# housekeeping (`darkroom job run clean-orphaned-renders`) no unfinished upload is left.
#
# The S3 server runs in a third namespace, so none of SeaweedFS's many ports can collide with
# anything on the host. The host reaches the three namespaces over veth links; in each worker's
# namespace the host end of its link forwards (socat) to PostgreSQL on loopback and to the S3
# server, so a worker has no other way out. Needs root (namespaces), ip, socat, curl (it signs
# S3 requests itself, independently of darkroom's client), vips and djpeg.
#   usage: fleet-test.sh DARKROOM_BINARY WEED_BINARY SERVER_URL WORK_DIR
#   SERVER_URL: a PostgreSQL URL (over TCP) whose role may CREATE DATABASE.
set -euo pipefail
darkroom=$(realpath "$1"); weed=$(realpath "$2"); server=$3; work=$(realpath -m "$4")
here=$(cd "$(dirname "$0")" && pwd)
photos=${FLEET_PHOTOS:-4}
started=$(date +%s)

fail() { echo "fleet: FAIL: $*" >&2; exit 1; }
say() { printf 'fleet: [%3ds] %s\n' "$(($(date +%s) - started))" "$*"; }

# As NetworkPartitionTests: without root the test cannot build its machines, so it says so and
# stops (CI runs make test as root, where it always runs).
if [ "$(id -u)" != 0 ]; then
  echo "fleet: SKIPPED: needs root to create network namespaces and veth links (CI runs make test as root)" >&2
  exit 0
fi
for tool in ip tc socat curl vips djpeg wrjpgcom psql; do
  command -v "$tool" >/dev/null || fail "$tool is missing; make test installs it (APT_OPS / APT_TOOLS in the Makefile)"
done
[ -x "$darkroom" ] || fail "$darkroom is not an executable; build first"
[ -x "$weed" ] || fail "$weed is not an executable; make s3-start installs SeaweedFS"
# Where the server really is: the workers' forwarders connect there.
IFS='|' read -r pg_host pg_port < <(psql -X -tA "$server" -c "SELECT host(inet_server_addr()), inet_server_port()") \
  || fail "PostgreSQL at $server does not answer"
[ -n "$pg_host" ] || fail "the test server must be reached over TCP (it is forwarded into the namespaces): $server"
# SERVER_URL with another database, or with another host and port (python3 is Debian's).
url_with() {  # DATABASE [HOST PORT]
  /usr/bin/python3 - "$server" "$@" <<'PY'
import sys, urllib.parse as u
url, database, *where = sys.argv[1:]
parts = u.urlsplit(url)
netloc = parts.netloc
if where:
    credentials = netloc.rsplit("@", 1)[0] + "@" if "@" in netloc else ""
    netloc = f"{credentials}{where[0]}:{where[1]}"
print(u.urlunsplit((parts.scheme, netloc, "/" + database, parts.query, parts.fragment)))
PY
}

# ---- names and addresses of this run ---------------------------------------------------------
prefix=drkfleet-
tag=$$
ns_s3=${prefix}$tag-s3; ns_a=${prefix}$tag-a; ns_b=${prefix}$tag-b
link_s3=dkf${tag}s; link_a=dkf${tag}a; link_b=dkf${tag}b   # host ends; at most 15 characters
# Namespaces of runs that died without cleaning up (their pid is gone).
for stale in $(ip netns list | awk '{print $1}' | grep "^$prefix" || true); do
  pid=${stale#"$prefix"}; pid=${pid%%-*}
  kill -0 "$pid" 2>/dev/null || ip netns delete "$stale" 2>/dev/null || true
done
# A 10.232.N.0/24 that no interface uses yet; three /30s in it.
octet=$((tag % 250))
for _ in $(seq 1 250); do
  ip -4 -o address show | grep -q " 10\.232\.$octet\." || break
  octet=$(((octet + 1) % 250))
done
net=10.232.$octet
host_s3=$net.1; s3_address=$net.2; host_a=$net.5; address_a=$net.6; host_b=$net.9; address_b=$net.10

rm -rf "$work" && mkdir -p "$work/s3" "$work/a" "$work/b" "$work/photos" && cd "$work"
database=darkroom_fleet_$tag
db_url=$(url_with "$database")
bucket=fleet
storage=s3://$bucket/fleet-$tag
secret=$(head -c 24 /dev/urandom | base64 | tr -d '/+=')
weed_pid=""; worker_a=""; worker_b=""; forwarders=()

cleanup() {
  status=$?
  set +e
  for pid in $worker_a $worker_b; do kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
  if [ "$status" != 0 ]; then
    echo "---- the jobs" >&2
    psql -X -q "$db_url" -c "SELECT id, state, attempts, leased_by, left(errors::text, 300) AS errors FROM darkroom.jobs ORDER BY id" >&2 2>/dev/null
    [ -n "$weed_pid" ] && echo "---- unfinished uploads: $(uploads 2>/dev/null | tr '\n' ' ')" >&2
    for log in "$work"/a/worker.log "$work"/b/worker.log "$work"/s3/weed.log; do
      [ -f "$log" ] && { echo "---- last lines of $log"; tail -25 "$log"; } >&2
    done
  fi
  for pid in "${forwarders[@]}"; do kill -9 -- "-$pid" "$pid" 2>/dev/null; done
  if [ -n "$weed_pid" ]; then kill -9 -- "-$weed_pid" 2>/dev/null; fi
  wait 2>/dev/null
  for link in "$link_s3" "$link_a" "$link_b"; do ip link delete "$link" 2>/dev/null; done
  for ns in "$ns_s3" "$ns_a" "$ns_b"; do ip netns delete "$ns" 2>/dev/null; done
  psql -X -q "$server" -c "DROP DATABASE IF EXISTS $database WITH (FORCE)" 2>/dev/null
  rm -rf "$work/s3/data" "$work/photos"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- three namespaces, each joined to the host by a veth pair -------------------------------
link_namespace() {  # NAMESPACE HOST_LINK HOST_ADDRESS NAMESPACE_ADDRESS
  ip netns add "$1"
  ip link add "$2" type veth peer name eth0 netns "$1"
  ip address add "$3/30" dev "$2"
  ip link set "$2" up
  ip -n "$1" address add "$4/30" dev eth0
  ip -n "$1" link set lo up
  ip -n "$1" link set eth0 up
}
link_namespace "$ns_s3" "$link_s3" "$host_s3" "$s3_address"
link_namespace "$ns_a" "$link_a" "$host_a" "$address_a"
link_namespace "$ns_b" "$link_b" "$host_b" "$address_b"
# Each worker's uplink is 24 Mbit/s, a modest machine's: a 5 MiB part takes about 1.7 s to send,
# so an upload is in flight long enough to be seen, however fast or loaded this machine is.
for ns in "$ns_a" "$ns_b"; do ip netns exec "$ns" tc qdisc add dev eth0 root tbf rate 24mbit burst 64kb latency 500ms; done

# ---- the S3 server, authentication on --------------------------------------------------------
cat > "$work/s3/identities.json" <<EOF
{"identities":[{"name":"darkroom","credentials":[{"accessKey":"darkroom","secretKey":"$secret"}],
  "actions":["Admin","Read","Write","List","Tagging"]}]}
EOF
endpoint=http://$s3_address:8333
start_s3() {  # a process group of its own under `timeout`, which bounds its life should we be killed
  ip netns exec "$ns_s3" setsid timeout --kill-after=5 900 "$weed" mini -dir="$work/s3/data" -ip="$s3_address" -ip.bind="$s3_address" \
    -s3.port=8333 -master.port=9333 -volume.port=9340 -filer.port=8888 \
    -admin.ui=false -webdav=false -s3.port.iceberg=0 -s3.port.lance=0 -metricsPort=0 -master.telemetry=false \
    -s3.config="$work/s3/identities.json" >>"$work/s3/weed.log" 2>&1 &
  weed_pid=$!
  for _ in $(seq 1 300); do
    [ "$(s3 -o /dev/null -w '%{http_code}' "$endpoint/" 2>/dev/null)" = 200 ] && return 0
    kill -0 "$weed_pid" 2>/dev/null || fail "SeaweedFS exited; see $work/s3/weed.log"
    sleep 0.1
  done
  fail "SeaweedFS did not answer S3 on $endpoint within 30 s"
}
stop_s3() {  # SIGTERM (timeout passes it on): the server shuts down cleanly, as for an upgrade
  kill "$weed_pid"
  wait "$weed_pid" 2>/dev/null || true
  weed_pid=""
}
# S3 requests signed by curl (SigV4), from the host.
s3() { curl -sS --aws-sigv4 "aws:amz:us-east-1:s3" --user "darkroom:$secret" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$@"; }
keys() { grep -o '<Key>[^<]*</Key>' | sed 's/<Key>\(.*\)<\/Key>/\1/' || true; }
uploads() { s3 "$endpoint/$bucket?prefix=fleet-$tag%2F&uploads=" | keys; }
objects() { s3 "$endpoint/$bucket?list-type=2&prefix=fleet-$tag%2F" | keys; }

mkdir -p "$work/s3/data"
start_s3
[ "$(s3 -o /dev/null -w '%{http_code}' -X PUT "$endpoint/$bucket")" = 200 ] || fail "could not create bucket $bucket"
wrong=$(curl -sS --aws-sigv4 "aws:amz:us-east-1:s3" --user "darkroom:not-the-secret" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$endpoint/$bucket?uploads=")
grep -q SignatureDoesNotMatch <<<"$wrong" || fail "the S3 server accepted a wrong secret; authentication must be on"
say "SeaweedFS in namespace $ns_s3 at $endpoint, authentication on"

# ---- each worker namespace: its link's host end forwards to PostgreSQL and S3, nothing else --
forward() {  # LISTEN_ADDRESS PORT TARGET_HOST TARGET_PORT; `timeout` bounds it should we die
  setsid timeout --kill-after=5 600 socat "TCP4-LISTEN:$2,bind=$1,fork,reuseaddr" "TCP:$3:$4" 2>/dev/null &
  forwarders+=($!)
  for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null && return 0; sleep 0.05; done
  fail "socat did not listen on $1:$2"
}
for host in "$host_a" "$host_b"; do
  forward "$host" 5432 "$pg_host" "$pg_port"
  forward "$host" 8333 "$s3_address" 8333
done

# ---- a database, and photos imported into the bucket -----------------------------------------
psql -X -q "$server" -c "DROP DATABASE IF EXISTS $database WITH (FORCE)" -c "CREATE DATABASE $database"
export DATABASE_URL=$db_url DARKROOM_STORAGE=$storage AWS_ENDPOINT_URL=$endpoint AWS_REGION=us-east-1 \
       AWS_ACCESS_KEY_ID=darkroom AWS_SECRET_ACCESS_KEY=$secret DARKROOM_SCRATCH=$work/host TMPDIR=$work/host
mkdir -p "$work/host"
"$darkroom" migrate --log-level warning >/dev/null
# Noise in each channel at quality 100: 1.4 MP whose render is about 5.8 MB, two multipart parts
# (the upload starts when the first 5 MiB are encoded), small enough that the debug build make
# test runs renders it in seconds. The edit is a crop.
(cd "$work/photos" && for band in r g b; do vips gaussnoise "$band.v" 1400 1000 --sigma 100 --mean 128; done \
  && vips bandjoin "r.v g.v b.v" rgb.v && vips cast rgb.v u8.v uchar && vips copy u8.v "photo.jpg[Q=100,strip,subsample-mode=off]" \
  && rm -f ./*.v)
photo=$work/photos/photo.jpg
for n in $(seq 1 "$photos"); do wrjpgcom -comment "fleet $tag $n" "$photo" > "$work/photos/$n.jpg"; done
rm "$photo"
"$darkroom" import "$work"/photos/*.jpg --log-level warning >/dev/null
psql -X -q -tA -v ON_ERROR_STOP=1 "$db_url" -c "SELECT count(*) FROM darkroom.enqueue_edits(
    ARRAY(SELECT id FROM darkroom.assets ORDER BY id), 'io.darkroom.pipeline', '1.0.0',
    '{\"operations\":[{\"op\":\"crop\",\"x\":10,\"y\":10,\"width\":1380,\"height\":980}]}'::jsonb)" >/dev/null
originals=$(objects | grep -c /originals/ || true)
[ "$originals" = "$photos" ] || fail "expected $photos originals in the bucket after import, found $originals"
say "$photos photos of 1.4 MP (renders of two parts) imported into $storage, $photos jobs queued"

sql() { psql -X -tA -v ON_ERROR_STOP=1 "$db_url" -c "$1"; }

# ---- two workers, each alone in its namespace ------------------------------------------------
start_worker() {  # NAMESPACE HOST_END FOLDER: prints nothing, sets $!
  ip netns exec "$1" env -i PATH=/usr/bin:/bin HOME="$3" TMPDIR="$3" DARKROOM_SCRATCH="$3" \
    DATABASE_URL="$(url_with "$database" "$2" 5432)" DARKROOM_STORAGE="$storage" \
    AWS_ENDPOINT_URL="http://$2:8333" AWS_REGION=us-east-1 AWS_ACCESS_KEY_ID=darkroom AWS_SECRET_ACCESS_KEY="$secret" \
    "$darkroom" worker --concurrency 1 --quality 100 --lease 5 --poll-interval 0.2 --log-level info >"$3/worker.out" 2>"$3/worker.log" &
}
start_worker "$ns_a" "$host_a" "$work/a"; worker_a=$!
start_worker "$ns_b" "$host_b" "$work/b"; worker_b=$!
say "worker A (pid $worker_a) in $ns_a, worker B (pid $worker_b) in $ns_b"

# A worker's upload in flight: an unfinished upload of renders/<asset>/<job>.* whose job that
# worker holds right now, the render itself before its display copy (both go up at once).
# Sets found_job and found_key.
upload_in_flight_of() {  # PID [EXCEPT_JOB]
  local held key job listed
  held=$(sql "SELECT id FROM darkroom.jobs WHERE state = 'running' AND leased_by LIKE '%-$1/%'")
  [ -n "$held" ] || return 1
  listed=$(uploads)
  while read -r key; do
    job=$(sed -n 's#.*/renders/[0-9]*/\([0-9]*\)\.[a-z0-9.]*$#\1#p' <<<"$key")
    if [ -n "$job" ] && [ "$job" != "${2:-}" ] && grep -qx "$job" <<<"$held"; then
      found_job=$job; found_key=$key; return 0
    fi
  done < <(grep -v '\.display\.jpg$' <<<"$listed"; grep '\.display\.jpg$' <<<"$listed")
  return 1
}
wait_for_upload_of() {  # PID NAME [EXCEPT_JOB]
  local deadline=$(($(date +%s) + 180))
  while [ "$(date +%s)" -lt "$deadline" ]; do
    upload_in_flight_of "$1" "${3:-}" && return 0
    kill -0 "$1" 2>/dev/null || fail "worker $2 exited before it uploaded"
    sleep 0.05
  done
  fail "worker $2 started no upload within 180 s"
}

# ---- A is killed mid-upload --------------------------------------------------------------------
wait_for_upload_of "$worker_a" A
job_a=$found_job; key_a=$found_key
kill -9 "$worker_a"; wait "$worker_a" 2>/dev/null || true; killed_a=$worker_a; worker_a=""
say "worker A killed with SIGKILL while uploading $key_a (job $job_a)"
uploads | grep -qx "$key_a" || fail "A's upload of $key_a is no longer listed as unfinished: it was not mid-upload"
code=$(s3 -o /dev/null -w '%{http_code}' -I "$endpoint/$bucket/$key_a")
[ "$code" = 404 ] || fail "the unfinished upload $key_a is visible as an object (HEAD answered $code)"

# ---- the S3 server restarts while B uploads --------------------------------------------------
wait_for_upload_of "$worker_b" B "$job_a"
job_b=$found_job; key_b=$found_key
remaining=$(sql "SELECT count(*) FROM darkroom.jobs WHERE state IN ('queued', 'running')")
stop_s3
say "S3 server stopped while B was uploading $key_b (job $job_b; $remaining jobs not finished)"
start_s3
say "S3 server started again"

# ---- B drains the rest, A's job included -----------------------------------------------------
deadline=$(($(date +%s) + 300))
until [ "$(sql "SELECT count(*) FROM darkroom.jobs WHERE state IN ('queued', 'running')")" = 0 ]; do
  [ "$(date +%s)" -lt "$deadline" ] || fail "the batch did not drain within 300 s: $(sql "SELECT state, count(*) FROM darkroom.jobs GROUP BY 1")"
  kill -0 "$worker_b" 2>/dev/null || fail "worker B exited before the batch drained"
  sleep 0.2
done
kill -TERM "$worker_b"; status_b=0; wait "$worker_b" || status_b=$?; worker_b=""
say "batch drained; worker B exited $status_b: $(tail -1 "$work/b/worker.out")"

# ---- checks --------------------------------------------------------------------------------------
check() {  # WHAT SQL EXPECTED
  local got; got=$(sql "$2")
  [ "$got" = "$3" ] || fail "$1: expected $3, got $got"
  echo "  ok  $1"
}
echo "fleet: checks"
check "every job succeeded" "SELECT count(*) FILTER (WHERE state = 'succeeded') || '/' || count(*) FROM darkroom.jobs" "$photos/$photos"
check "one adjustment per job" \
  "SELECT count(*) FROM darkroom.jobs j WHERE (SELECT count(*) FROM darkroom.adjustments a WHERE a.job_id = j.id) <> 1" 0
check "one history entry per job" \
  "SELECT count(*) FROM darkroom.jobs j WHERE (SELECT count(*) FROM darkroom.asset_history h WHERE h.job_id = j.id) <> 1" 0
check "every asset shows its job's adjustment" "SELECT count(*) FROM darkroom.assets s JOIN darkroom.jobs j ON j.asset_id = s.id
   WHERE s.current_adjustment_id IS DISTINCT FROM j.adjustment_id" 0
check "A's job was lost to its lease and finished by B" "SELECT leased_by NOT LIKE '%-$killed_a/%' AND errors::text LIKE '%lease_expired%'
   FROM darkroom.jobs WHERE id = $job_a" t
check "B's job finished despite the S3 restart" "SELECT state FROM darkroom.jobs WHERE id = $job_b" succeeded
echo "  ..  B's job $job_b took $(sql "SELECT attempts FROM darkroom.jobs WHERE id = $job_b") attempt(s): $(sql "SELECT coalesce(string_agg(e->>'code', ', '), 'no error') FROM darkroom.jobs, jsonb_array_elements(errors) e WHERE id = $job_b")"
echo "  ..  jobs finished by A: $(sql "SELECT count(*) FROM darkroom.jobs WHERE leased_by LIKE '%-$killed_a/%'"), by B: $(sql "SELECT count(*) FROM darkroom.jobs WHERE leased_by NOT LIKE '%-$killed_a/%'")"

# Every object under the prefix is whole: each render and display copy decodes to its last byte
# (djpeg exits 2 on a truncated file), and each is the one its adjustment records.
mkdir -p "$work/check"
objects > "$work/check/objects.txt"
while read -r path bytes; do
  key=${storage#s3://$bucket/}/$path
  grep -qx "$key" "$work/check/objects.txt" || fail "the render $key of an adjustment is not in the bucket"
  s3 -o "$work/check/render.jpg" "$endpoint/$bucket/$key"
  [ "$(stat -c %s "$work/check/render.jpg")" = "$bytes" ] || fail "$key holds $(stat -c %s "$work/check/render.jpg") bytes, its adjustment says $bytes"
done < <(sql "SELECT rendered_path || ' ' || rendered_bytes FROM darkroom.adjustments" | tr '|' ' ')
renders=0
while read -r key; do
  s3 -o "$work/check/object.jpg" "$endpoint/$bucket/$key"
  djpeg "$work/check/object.jpg" >/dev/null 2>"$work/check/djpeg.txt" || fail "$key is not a whole JPEG: $(cat "$work/check/djpeg.txt")"
  renders=$((renders + 1))
done < <(grep /renders/ "$work/check/objects.txt")
echo "  ok  all $renders objects under renders/ are whole JPEGs; each adjustment's render is there with its recorded size"

left=$(uploads | wc -l)
[ "$left" -ge 1 ] || fail "no unfinished upload before housekeeping: the kill left nothing to clean up"
grep -qx "$key_a" < <(uploads) || fail "A's unfinished upload $key_a vanished before housekeeping"
"$darkroom" job run clean-orphaned-renders --jobs-dir "$here/../../Jobs" --param min_age_minutes=0 --log-level warning > "$work/check/housekeeping.txt"
after=$(uploads | wc -l)
[ "$after" = 0 ] || fail "$after unfinished uploads left after housekeeping: $(uploads | tr '\n' ' ')"
echo "  ok  housekeeping aborted the $left unfinished upload(s) the kill and the restart left; none remain"
objects > "$work/check/objects-after.txt"
while read -r path; do
  grep -qx "${storage#s3://$bucket/}/$path" "$work/check/objects-after.txt" || fail "housekeeping removed $path, which an adjustment records"
done < <(sql "SELECT rendered_path FROM darkroom.adjustments")
echo "  ok  housekeeping kept every recorded render"
say "PASS: $photos jobs by two workers in two namespaces over S3; A killed mid-upload, S3 restarted mid-upload; nothing lost, nothing twice"
