#!/usr/bin/env bash
# Reference engines we did not build, for tests/protocol: Debian's stockfish (chess, UCI)
# and fairy-stockfish (11.1, xiangqi in UCI and UCCI), installed at /usr/games/.
# Idempotent: does nothing when both are installed; runs `apt-get update` only when the
# package lists do not know the packages yet (or the first install attempt fails).
set -euo pipefail

PACKAGES=(stockfish fairy-stockfish)
missing=()
for pkg in "${PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$pkg")
    fi
done
if [ "${#missing[@]}" -eq 0 ]; then
    echo "reference engines already installed: ${PACKAGES[*]}"
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
for exe in /usr/games/stockfish /usr/games/fairy-stockfish; do
    test -x "$exe" || { echo "missing $exe after install" >&2; exit 1; }
done
echo "installed reference engines: ${missing[*]}"
