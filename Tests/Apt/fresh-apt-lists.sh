#!/usr/bin/env bash
# The libheif apt script on a machine whose apt lists were never downloaded (a new machine or
# container: /var/lib/apt/lists empty). apt runs under an APT_CONFIG of the test's own, with an
# empty lists folder and copies of this machine's sources, so nothing of the machine's apt state
# is read or changed; the script must find the bookworm mirror, add bookworm-backports, update,
# and (simulated) install libheif 1.19.7 from it and nothing else from it. Root (apt-get update).
#   fresh-apt-lists.sh SCRIPT
set -euo pipefail
script=$1
needed=1.19.7
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/sources.list.d" "$work/preferences.d" "$work/cache/archives/partial"
# apt downloads as its sandbox user, as it does into /var/lib/apt/lists.
chmod 755 "$work"
if id _apt >/dev/null 2>&1; then chown _apt "$work/lists/partial"; fi
# This machine's sources, less a bookworm-backports entry an earlier run of the script added.
for f in /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list; do
  [ -f "$f" ] && [ "$(basename "$f")" != darkroom-bookworm-backports.sources ] && cp "$f" "$work/sources.list.d/"
done
if [ -f /etc/apt/sources.list ]; then cp /etc/apt/sources.list "$work/sources.list"; else : >"$work/sources.list"; fi
cat >"$work/apt.conf" <<CONF
Dir::State::Lists "$work/lists";
Dir::Etc::sourcelist "$work/sources.list";
Dir::Etc::sourceparts "$work/sources.list.d";
Dir::Etc::preferencesparts "$work/preferences.d";
Dir::Cache "$work/cache";
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
CONF
export APT_CONFIG=$work/apt.conf
if ls "$work/lists" | grep -q _Packages; then echo "FAIL: the lists folder is not empty" >&2; exit 1; fi
if apt-get indextargets 2>/dev/null | grep -q .; then echo "FAIL: apt still sees lists" >&2; exit 1; fi

output=$(bash "$script" --simulate)
fail() { echo "FAIL: $1" >&2; echo "$output" >&2; exit 1; }
[ -f "$work/sources.list.d/darkroom-bookworm-backports.sources" ] || fail "no bookworm-backports source was added"
grep -q '^Suites: bookworm-backports$' "$work/sources.list.d/darkroom-bookworm-backports.sources" || fail "the added source is not bookworm-backports"
[ -f "$work/preferences.d/darkroom-libheif" ] || fail "no pin was written"
candidate=$(echo "$output" | awk '/^libheif1 candidate / { print $3 }')
[ -n "$candidate" ] || fail "apt has no candidate for libheif1"
dpkg --compare-versions "$candidate" ge "$needed" || fail "libheif1's candidate is $candidate, not $needed or newer"
# On a new machine apt would install it; on one that has it, it is already that version.
echo "$output" | grep -q "^Inst libheif1 \|^libheif1 installed $candidate\$" || fail "libheif1 $candidate would not be installed"
# Only libheif's packages come from bookworm-backports.
others=$(echo "$output" | awk '/^Inst / && /bookworm-backports/ && $2 !~ /^libheif/ { print $2 }')
[ -z "$others" ] || fail "packages other than libheif's would come from bookworm-backports: $others"
echo "fresh apt lists: libheif1 $candidate from bookworm-backports, pinned to libheif's packages"
