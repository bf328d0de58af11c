#!/usr/bin/env bash
# The browser of the /play page's tests (tests/service/play/): Debian's chromium at
# /usr/bin/chromium, driven by Playwright for Python (pinned in pyproject.toml) without
# a browser download of Playwright's own. Idempotent (scripts/apt_install.sh).
set -euo pipefail
bash "$(dirname "$0")/apt_install.sh" chromium
test -x /usr/bin/chromium || { echo "missing /usr/bin/chromium after install" >&2; exit 1; }
