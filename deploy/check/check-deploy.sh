#!/usr/bin/env bash
# Checks every file under deploy/ with the tools Debian has: systemd-analyze verify for the
# units, yamllint plus a structural check for the Kubernetes manifests, a structural check for
# the container file, and that every darkroom flag they use exists. A missing tool is a failure.
#   deploy/check/check-deploy.sh PATH/TO/BUILT/darkroom
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
deploy="$(dirname "$here")"
darkroom="${1:?usage: check-deploy.sh PATH/TO/darkroom}"
python=/usr/bin/python3

for tool in systemd-analyze yamllint "$python"; do
  command -v "$tool" >/dev/null || { echo "check-deploy: $tool is missing; run 'make lint-deploy' (it installs it)" >&2; exit 1; }
done
[ -x "$darkroom" ] || { echo "check-deploy: $darkroom is not an executable; build first" >&2; exit 1; }

echo "==> systemd units: systemd-analyze verify"
units="$(mktemp -d)"
trap 'rm -rf "$units"' EXIT
# The units run /usr/local/bin/darkroom; the freshly built one stands in for it here.
for unit in "$deploy"/systemd/*.service "$deploy"/systemd/*.timer; do
  sed "s#/usr/local/bin/darkroom#$(realpath "$darkroom")#g" "$unit" > "$units/$(basename "$unit")"
done
# verify prints warnings (unknown keys, bad values) without always failing: any output fails.
output="$(cd "$units" && systemd-analyze verify ./*.service ./*.timer 2>&1)" || { echo "$output" >&2; exit 1; }
if [ -n "$output" ]; then echo "$output" >&2; exit 1; fi

echo "==> Kubernetes manifests: yamllint"
yamllint --strict -d '{extends: default, rules: {line-length: {max: 140}, document-start: disable}}' "$deploy"/kubernetes/*.yaml "$deploy"/kubernetes/object-storage/*.yaml

echo "==> Kubernetes manifests and container file: structure, flags"
"$python" "$here/check_structure.py" "$deploy" "$darkroom"
echo "deploy: all checks passed"
