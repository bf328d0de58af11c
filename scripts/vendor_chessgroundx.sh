#!/usr/bin/env bash
# Refresh the vendored chessgroundx (pychess.org's board, GPL-3.0) that the /play page
# uses: ladder/service/play/vendor/chessgroundx/. Needs npm and the npm registry; the
# Python project itself has no Node step (the files are committed).
#
# The version and the tarball's integrity are pinned here, in one place. To upgrade,
# change both (`npm view chessgroundx@X dist.integrity`), run this script, play the page
# and run tests/service/play/.
#
# What is copied: the ES modules (*.js, loaded by the browser as they are, and their maps),
# their TypeScript source (src/*.ts, the preferred form for modification under the GPL),
# assets/chessground.base.css, LICENSE, README.md and package.json; plus MANIFEST
# (sha256 of every file), which tests/service/play/test_play_route.py checks.
set -euo pipefail

NAME=chessgroundx
VERSION=10.7.4
INTEGRITY=sha512-M+i/y3BStkZCj0wZzH3TwycDt/YFXr8uGFQqKUkmgoGmiG0xhxpB0Kb5xJHxnzGGKVUOJu7Dftc/zzmdul5fBg==

root="$(cd "$(dirname "$0")/.." && pwd)"
dest="$root/ladder/service/play/vendor/$NAME"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

command -v npm >/dev/null || { echo "vendor_chessgroundx: npm not found (apt-get install npm)" >&2; exit 1; }
cd "$work"
npm pack --silent "$NAME@$VERSION" >/dev/null
tarball="$NAME-$VERSION.tgz"
got="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
if [ "$got" != "$INTEGRITY" ]; then
    echo "vendor_chessgroundx: $tarball has integrity $got, pinned $INTEGRITY" >&2
    exit 1
fi
tar xzf "$tarball"

rm -rf "$dest"
mkdir -p "$dest/src" "$dest/assets"
cp package/*.js package/*.js.map "$dest/"
cp package/src/*.ts "$dest/src/"
cp package/assets/chessground.base.css "$dest/assets/"
cp package/LICENSE package/README.md package/package.json "$dest/"
printf '%s\n' "$NAME $VERSION" "$INTEGRITY" > "$dest/VERSION"
(cd "$dest" && find . -type f ! -name MANIFEST | LC_ALL=C sort | sed 's|^\./||' \
    | xargs sha256sum > MANIFEST)
echo "vendored $NAME $VERSION into ${dest#"$root"/} ($(wc -l < "$dest/MANIFEST") files)"
