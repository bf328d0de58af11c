#!/usr/bin/env bash
# Reference engines we did not build, for tests/protocol: Debian's stockfish (chess, UCI)
# and fairy-stockfish (11.1, xiangqi in UCI and UCCI), installed at /usr/games/.
# Idempotent (scripts/apt_install.sh).
set -euo pipefail
bash "$(dirname "$0")/apt_install.sh" stockfish fairy-stockfish
for exe in /usr/games/stockfish /usr/games/fairy-stockfish; do
    test -x "$exe" || { echo "missing $exe after install" >&2; exit 1; }
done
