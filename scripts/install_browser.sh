#!/usr/bin/env bash
# The browser of the /play page's tests (tests/service/play/): Debian's chromium at
# /usr/bin/chromium, driven by Playwright for Python (pinned in pyproject.toml) without
# a browser download of Playwright's own; and a CJK font (fonts-noto-cjk), so that the
# page's Chinese (its catalogues, the pieces' characters) shows as characters, not boxes,
# in the tests' screenshots. Idempotent (scripts/apt_install.sh).
set -euo pipefail
bash "$(dirname "$0")/apt_install.sh" chromium fonts-noto-cjk
test -x /usr/bin/chromium || { echo "missing /usr/bin/chromium after install" >&2; exit 1; }
fc-list :lang=zh family | grep -q . || { echo "no CJK font after installing fonts-noto-cjk" >&2; exit 1; }
