#!/usr/bin/env bash
# Engines and a GUI we did not build, for the tests: Debian's stockfish (chess, UCI),
# fairy-stockfish (11.1, xiangqi in UCI and UCCI), sjaakii (Sjaak II: UCI, UCCI and
# XBoard), fairymax (its maxqi: XBoard only), and xboard with xvfb (XBoard run headless
# against `ladder xboard`; xauth for xvfb-run), installed at /usr/games/ and /usr/bin/.
# Idempotent (scripts/apt_install.sh).
set -euo pipefail
bash "$(dirname "$0")/apt_install.sh" stockfish fairy-stockfish sjaakii fairymax xboard xvfb xauth
for exe in /usr/games/stockfish /usr/games/fairy-stockfish /usr/games/sjaakii \
    /usr/games/maxqi /usr/games/xboard /usr/bin/xvfb-run; do
    test -x "$exe" || { echo "missing $exe after install" >&2; exit 1; }
done
