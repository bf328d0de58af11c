#!/usr/bin/env bash
# Debian's wrk (scripts/bench_service.py part 8: a compiled load generator against the
# service) and valgrind (scripts/bench_service_instructions.py: instructions per move).
# Idempotent (scripts/apt_install.sh).
set -euo pipefail
bash "$(dirname "$0")/apt_install.sh" wrk valgrind
for exe in /usr/bin/wrk /usr/bin/valgrind; do
    test -x "$exe" || { echo "missing $exe after install" >&2; exit 1; }
done
