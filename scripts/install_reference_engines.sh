#!/usr/bin/env bash
# Engines and a GUI we did not build, for the tests: Debian's stockfish (chess, UCI),
# fairy-stockfish (11.1, xiangqi in UCI and UCCI), sjaakii (Sjaak II: UCI and UCCI),
# fairymax (maxqi: XBoard only), and xboard with xvfb (XBoard run headless against
# `ladder xboard`), installed at /usr/games/ and /usr/bin/.
# Idempotent: does nothing when all are installed; runs `apt-get update` only when the
# package lists do not know the packages yet (or the first install attempt fails).
set -euo pipefail

PACKAGES=(stockfish fairy-stockfish sjaakii fairymax xboard xvfb xauth)
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
for exe in /usr/games/stockfish /usr/games/fairy-stockfish /usr/games/sjaakii \
    /usr/games/maxqi /usr/games/xboard /usr/bin/xvfb-run; do
    test -x "$exe" || { echo "missing $exe after install" >&2; exit 1; }
done
echo "installed reference engines: ${missing[*]}"
