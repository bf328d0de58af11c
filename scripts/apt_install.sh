#!/usr/bin/env bash
# Install Debian packages the tests need: `bash scripts/apt_install.sh PKG...`.
# Idempotent: does nothing when every package is installed; runs `apt-get update` only
# when the package lists do not know a package yet (or the first install attempt fails).
set -euo pipefail

missing=()
for pkg in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$pkg")
    fi
done
if [ "${#missing[@]}" -eq 0 ]; then
    echo "already installed: $*"
    exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive

candidate() { apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ {print $2}'; }
need_update=0
for pkg in "${missing[@]}"; do
    c="$(candidate "$pkg")"
    if [ -z "$c" ] || [ "$c" = "(none)" ]; then need_update=1; fi
done
if [ "$need_update" -eq 1 ]; then
    $SUDO apt-get update -qq
fi
if ! $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"; then
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
echo "installed: ${missing[*]}"
