#!/usr/bin/env bash
# Adds Debian 12's official bookworm-backports suite from the mirror this machine already uses for
# bookworm, pinned so that only libheif's packages come from it (everything else stays Debian 12's),
# then installs libheif 1.19 and its plugins, and takes Debian 12's security updates of the decoders
# they use. Safe to run again. Used by the Makefile and by deploy/container/Containerfile. Root (the
# Makefile runs it with sudo for a normal user).
#   bookworm-backports-libheif.sh            headers, decoders, encoders and heif-dec/heif-enc (build, tests)
#   bookworm-backports-libheif.sh --runtime  the library, its decoders and the AVIF encoder (a worker's machine)
#   bookworm-backports-libheif.sh --simulate everything but the install, which apt only simulates (a test
#                                            runs this under an APT_CONFIG whose lists folder is empty)
# Works on a machine whose apt lists were never downloaded: the mirror is read from the configured
# sources (`indextargets --no-release-info` needs no lists), and `apt-get update` runs before any
# look-up of a package. APT_CONFIG's folders (sources, preferences, lists) are honoured.
set -euo pipefail

runtime=no simulate=no
for argument in "$@"; do
  case "$argument" in
    --runtime) runtime=yes ;;
    --simulate) simulate=yes ;;
    *) echo "error: unknown option '$argument' (use --runtime or --simulate)" >&2; exit 2 ;;
  esac
done

eval "$(apt-config shell source_parts Dir::Etc::sourceparts/d preference_parts Dir::Etc::preferencesparts/d lists Dir::State::lists/d)"
sources=${source_parts%/}/darkroom-bookworm-backports.sources
pin=${preference_parts%/}/darkroom-libheif
# The decoders read every real HEIC and AVIF; aom writes AVIF renditions; x265 makes the tests' inputs.
packages=(libheif1 libheif-plugin-libde265 libheif-plugin-dav1d libheif-plugin-aomenc)
if [ "$runtime" = no ]; then
  packages+=(libheif-dev libheif-plugin-x265 libheif-examples)
fi
# The decoders' own libraries, upgraded to Debian 12's newest (bookworm-security) on every run.
decoders=(libde265-0 libdav1d6)
needed=1.19.7

configured() { apt-get indextargets --no-release-info --format '$(REPO_URI) $(RELEASE)' 'Created-By: Packages'; }

if [ ! -f "$sources" ] && ! configured | awk '{ print $2 }' | grep -qx bookworm-backports; then
  mirror=$(configured | awk '$2 == "bookworm" { print $1; exit }')
  if [ -z "$mirror" ]; then
    echo "error: no Debian 12 (bookworm) suite in this machine's apt sources ($source_parts, /etc/apt/sources.list); darkroom needs Debian 12" >&2
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
  if [ "$simulate" = yes ] || [ -z "$version" ] || ! dpkg --compare-versions "$version" ge "$needed"; then missing+=("$p"); fi
done
# Security updates of installed decoders are taken whenever the lists are refreshed for another reason,
# and at least once a day (the lists' age): a worker's machine stays current without a full upgrade.
fresh=$(find "$lists" -maxdepth 1 -name '*bookworm-backports*_Packages*' -mmin -1440 2>/dev/null | head -n 1)
[ ${#missing[@]} -eq 0 ] && [ -n "$fresh" ] && exit 0

apt-get update -qq
if [ "$simulate" = yes ]; then
  apt-get install -s --no-install-recommends "${packages[@]}" | awk '/^Inst /'
  apt-cache policy libheif1 | awk '/Candidate:/ { print "libheif1 candidate " $2 }'
  version=$(installed libheif1)
  [ -z "$version" ] || echo "libheif1 installed $version"
  exit 0
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "==> installing libheif $needed from bookworm-backports: ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
fi
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends --only-upgrade "${decoders[@]}" >/dev/null
version=$(installed libheif1)
if ! dpkg --compare-versions "$version" ge "$needed"; then
  echo "error: libheif1 $version installed, darkroom needs $needed or newer from bookworm-backports" >&2
  exit 1
fi
