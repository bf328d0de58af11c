#!/usr/bin/env bash
# Debian's nginx and haproxy, for the balancer tests (tests/deploy/test_balancers.py start
# them, unprivileged, in front of two `ladder serve` instances with deploy/'s configs).
# Idempotent (scripts/apt_install.sh).
set -euo pipefail
bash "$(dirname "$0")/apt_install.sh" nginx haproxy
for exe in /usr/sbin/nginx /usr/sbin/haproxy; do
    test -x "$exe" || { echo "missing $exe after install" >&2; exit 1; }
done
