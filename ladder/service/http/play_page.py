"""The /play page: a browser client for the ladder, served by ``ladder serve`` (off with
``--no-play``, i.e. ``ServiceConfig(play_page=False)``).

``GET /play`` is ``play/index.html``; ``/play/static/`` serves the ``play/`` folder: the
page's script and style, the pieces and board, and the vendored board component
(chessgroundx, ``scripts/vendor_chessgroundx.sh``). Nothing comes from another host:
the Content-Security-Policy below lets the page load and call only this server. The
page itself asks the API for everything about the rules (docs/play.md).
"""

from __future__ import annotations

import html
import json
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse
from starlette.staticfiles import StaticFiles
from starlette.types import Message, Receive, Scope, Send

#: The page's files: index.html, play.js, play.css, board.svg, pieces/, vendor/, lang/.
PLAY_DIR = Path(__file__).resolve().parent.parent / "play"
#: The page's catalogues, one per language (``<BCP 47 tag>.json``); English first.
LANG_DIR = PLAY_DIR / "lang"
FIRST_LANGUAGE = "en"

#: Only this server: scripts, styles, images and API calls. Inline style attributes are
#: allowed because the board component positions pieces with them.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; base-uri 'self'; form-action 'none'; "
    "frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


class PlayStatic(StaticFiles):
    """The page's static files, with the page's security headers and revalidation (so
    that an upgraded server's files are picked up at once)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers += [(k.lower().encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]
                headers.append((b"cache-control", b"no-cache"))
                message = {**message, "headers": headers}
            await send(message)

        await super().__call__(scope, receive, with_headers)


def languages() -> list[dict[str, str]]:
    """The languages the page speaks: a catalogue in ``play/lang/`` each (adding a
    language is adding a catalogue), as ``{code, name}`` with the language's own name."""
    found = []
    for path in sorted(LANG_DIR.glob("*.json"), key=lambda p: (p.stem != FIRST_LANGUAGE, p.stem)):
        catalogue = json.loads(path.read_text(encoding="utf-8"))
        found.append({"code": path.stem, "name": str(catalogue["language.name"])})
    return found


def render_index(root_path: str) -> str:
    """index.html with its base URL under the app's root path (the page's relative
    URLs, API calls included, then work behind a path prefix too) and the list of its
    languages (JSON in a data block; ``<`` escaped so that it cannot close the block)."""
    text = (PLAY_DIR / "index.html").read_text(encoding="utf-8")
    listed = json.dumps(languages(), ensure_ascii=False).replace("<", "\\u003c")
    return text.replace("%ROOT%", html.escape(root_path.rstrip("/"), quote=True)).replace(
        "%LANGUAGES%", listed
    )


def add_play_page(app: FastAPI) -> None:
    """Serve the page at ``/play`` and its files under ``/play/static/``."""

    @app.api_route("/play", methods=["GET", "HEAD"], include_in_schema=False)
    @app.api_route("/play/", methods=["GET", "HEAD"], include_in_schema=False)
    async def play(request: Request) -> HTMLResponse:
        return HTMLResponse(
            render_index(request.scope.get("root_path", "")),
            headers={**SECURITY_HEADERS, "Cache-Control": "no-cache"},
        )

    app.mount("/play/static", PlayStatic(directory=PLAY_DIR), name="play-static")
