#!/usr/bin/env bash
# Adds Debian 12's official bookworm-backports suite from the mirror this machine already uses for
# bookworm, pinned so that only libheif's packages come from it (everything else stays Debian 12's),
# then installs libheif 1.19 and its plugins. Safe to run again. Used by the Makefile and by
# deploy/container/Containerfile. Root (the Makefile runs it with sudo for a normal user).
#   bookworm-backports-libheif.sh            headers, decoders, encoders and heif-dec/heif-enc (build, tests)
#   bookworm-backports-libheif.sh --runtime  the library and its decoders only (a worker's machine)
set -euo pipefail

sources=/etc/apt/sources.list.d/darkroom-bookworm-backports.sources
pin=/etc/apt/preferences.d/darkroom-libheif
# The decoders read every real HEIC and AVIF; the encoders (x265, aom) make the tests' inputs.
packages=(libheif1 libheif-plugin-libde265 libheif-plugin-dav1d)
if [ "${1:-}" != --runtime ]; then
  packages+=(libheif-dev libheif-plugin-x265 libheif-plugin-aomenc libheif-examples)
fi
needed=1.19.7

if [ ! -f "$sources" ] && ! apt-get indextargets --format '$(RELEASE)' 2>/dev/null | grep -qx bookworm-backports; then
  mirror=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 'Created-By: Packages' 2>/dev/null |
    awk '$2 == "bookworm" { print $1; exit }')
  if [ -z "$mirror" ]; then
    echo "error: no Debian 12 (bookworm) suite in this machine's apt sources; darkroom needs Debian 12" >&2
    exit 1
  fi
  printf 'Types: deb\nURIs: %s\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    "$mirror" >"$sources"
fi

cat >"$pin" <<PIN
# darkroom: libheif 1.19 from bookworm-backports (1.15 cannot read iPhone HDR photos); nothing else.
Package: libheif1 libheif-dev libheif-examples libheif-plugin-*
Pin: release n=bookworm-backports
Pin-Priority: 990
PIN

installed() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || true; }
missing=()
for p in "${packages[@]}"; do
  version=$(installed "$p")
  if [ -z "$version" ] || ! dpkg --compare-versions "$version" ge "$needed"; then missing+=("$p"); fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "==> installing libheif $needed from bookworm-backports: ${missing[*]}"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
version=$(installed libheif1)
if ! dpkg --compare-versions "$version" ge "$needed"; then
  echo "error: libheif1 $version installed, darkroom needs $needed or newer from bookworm-backports" >&2
  exit 1
fi
