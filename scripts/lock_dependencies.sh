#!/usr/bin/env bash
# The lock files (requirements/*.lock) resolved again from pyproject.toml: every
# dependency, transitive ones too, at one version with the hashes of its files, for
# Linux x86-64 and Python 3.11 (the image's). Run it after changing a pin in
# pyproject.toml; `bash scripts/lock_dependencies.sh --upgrade` also takes the newest
# transitive versions (else the locked ones are kept where they still fit). uv (the
# version pinned in pyproject.toml's `lock` extra) runs from a throwaway virtualenv.
set -euo pipefail
cd "$(dirname "$0")/.."
tool="$(mktemp -d)"
trap 'rm -rf "$tool"' EXIT
python3 -m venv "$tool"
pin="$(python3 -c 'import tomllib; print(*tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["lock"])')"
"$tool/bin/python" -m pip install --quiet "$pin"
common=(--generate-hashes --python-version 3.11 --python-platform x86_64-manylinux_2_28 --quiet "$@")
"$tool/bin/uv" pip compile pyproject.toml "${common[@]}" -o requirements/service.lock
"$tool/bin/uv" pip compile pyproject.toml --extra test "${common[@]}" -o requirements/test.lock
