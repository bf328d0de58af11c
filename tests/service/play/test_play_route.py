"""The /play page's route and files, over HTTP against the real ``ladder serve``: served
with its security headers, every file it loads local and served, nothing from another
host, the vendored board component as pinned, and ``--no-play`` turning it all off."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from urllib.parse import urljoin

import httpx
import pytest

from ladder.service.http.play_page import CONTENT_SECURITY_POLICY, PLAY_DIR

from ..helpers import ROOT, Server, start_server

VENDOR = PLAY_DIR / "vendor" / "chessgroundx"
#: Our own files: everything but the vendored component.
OWN_FILES = [p for p in PLAY_DIR.rglob("*") if p.is_file() and VENDOR not in p.parents]


def test_page_served_with_its_headers(server: Server) -> None:
    for path in ("/play", "/play/"):
        reply = httpx.get(server.url + path)
        assert reply.status_code == 200
        assert reply.headers["content-type"].startswith("text/html")
        assert reply.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
        assert reply.headers["x-content-type-options"] == "nosniff"
        assert '<base href="/play/" />' in reply.text
    head = httpx.head(server.url + "/play")
    assert head.status_code == 200 and head.content == b""
    assert "/play" not in httpx.get(server.url + "/openapi.json").text


def _references(url: str, text: str, kind: str) -> list[str]:
    """The URLs a file of `kind` (html, css, js) loads, made absolute."""
    patterns = {
        "html": r'(?:href|src)="([^"#]+)"',
        "css": r"url\(([^)]+)\)",
        "js": r"^\s*import\s[^'\"]*['\"]([^'\"]+)['\"]",
    }
    found = re.findall(patterns[kind], text, flags=re.MULTILINE)
    return [urljoin(url, f.strip("'\"")) for f in found if not f.startswith("data:")]


def test_every_file_the_page_loads_is_served(server: Server) -> None:
    """Walk what index.html loads, what the styles and modules load in turn: each is
    served from this server with a fitting type."""
    base = server.url + "/play/"
    index = httpx.get(base).text
    # (relative to <base href="/play/">; the base itself and the link to /docs aside)
    todo = [u for u in _references(base, index, "html") if u != base and not u.endswith("/docs")]
    seen: set[str] = set()
    types = {".js": "javascript", ".css": "text/css", ".svg": "image/svg+xml"}
    while todo:
        url = todo.pop()
        if url in seen:
            continue
        seen.add(url)
        assert url.startswith(server.url + "/play/static/"), url
        reply = httpx.get(url)
        assert reply.status_code == 200, url
        kind = Path(url).suffix
        assert types[kind] in reply.headers["content-type"], (url, reply.headers)
        assert reply.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
        if kind in (".css", ".js"):
            todo += _references(url, reply.text, kind[1:])
    loaded = {u.removeprefix(server.url + "/play/static/") for u in seen}
    assert {"play.js", "board.js", "api.js", "play.css", "board.svg"} <= loaded
    assert "vendor/chessgroundx/chessground.js" in loaded
    assert sum(u.startswith("pieces/") for u in loaded) == 14


@pytest.mark.parametrize("path", OWN_FILES, ids=lambda p: str(p.relative_to(PLAY_DIR)))
def test_own_files_name_no_other_host(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    urls = set(re.findall(r"https?://[^\s'\")<]+", text)) - {"http://www.w3.org/2000/svg"}
    assert not urls, urls


def test_vendored_chessgroundx_is_the_pinned_package() -> None:
    """The files are those scripts/vendor_chessgroundx.sh copied from the pinned npm
    tarball (its MANIFEST), with the GPL licence; nothing added or edited since."""
    script = (ROOT / "scripts" / "vendor_chessgroundx.sh").read_text()
    version = re.search(r"^VERSION=(\S+)$", script, re.MULTILINE)
    integrity = re.search(r"^INTEGRITY=(\S+)$", script, re.MULTILINE)
    assert version and integrity
    assert (VENDOR / "VERSION").read_text().split("\n")[:2] == [
        f"chessgroundx {version.group(1)}",
        integrity.group(1),
    ]
    manifest = {}
    for line in (VENDOR / "MANIFEST").read_text().splitlines():
        digest, name = line.split("  ", 1)
        manifest[name] = digest
    files = {str(p.relative_to(VENDOR)) for p in VENDOR.rglob("*") if p.is_file()}
    assert files - {"MANIFEST"} == set(manifest)
    for name, digest in manifest.items():
        assert hashlib.sha256((VENDOR / name).read_bytes()).hexdigest() == digest, name
    assert "GNU GENERAL PUBLIC LICENSE" in (VENDOR / "LICENSE").read_text()


def test_no_play_turns_the_page_off() -> None:
    server = start_server("--no-play", engines=1)
    try:
        for path in ("/play", "/play/", "/play/static/play.js"):
            reply = httpx.get(server.url + path)
            assert reply.status_code == 404, path
            assert reply.json()["error"]["code"] == "not_found"
        assert httpx.get(server.url + "/v1/variants").status_code == 200
    finally:
        server.stop()
