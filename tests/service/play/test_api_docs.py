"""The API docs pages in a real browser (Debian's chromium): /docs (Swagger UI) and
/redoc (ReDoc) render the API and request nothing from another host, scrolled to the
end (where ReDoc draws its logo from a CDN unless the page's policy forbids it)."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import Browser

from ladder.service.http.docs_policy import POLICY, REDOC_JS

from ..helpers import Server


@pytest.mark.parametrize(("path", "shows"), [("/docs", "/v1/move"), ("/redoc", "Mistboard ladder")])
def test_docs_reach_nothing_outside(
    server: Server, chromium: Browser, path: str, shows: str
) -> None:
    context = chromium.new_context()
    page = context.new_page()
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    try:
        page.goto(server.url + path, wait_until="networkidle")
        page.get_by_text(shows).first.wait_for()
        for _ in range(5):  # to the footer, and past lazily drawn parts
            page.mouse.wheel(0, 20_000)
            page.wait_for_timeout(300)
        page.wait_for_load_state("networkidle")
    finally:
        context.close()
    own = (server.url + "/", f"blob:{server.url}/", "data:")
    outside = [url for url in asked if not url.startswith(own)]
    assert asked and not outside, outside


def test_docs_pages_carry_the_policy(server: Server) -> None:
    for path in ("/docs", "/redoc", "/docs/oauth2-redirect"):
        reply = httpx.get(server.url + path, timeout=30)
        assert reply.status_code == 200
        assert reply.headers["content-security-policy"] == POLICY
    assert "content-security-policy" not in httpx.get(server.url + "/v1/levels").headers
    bundle = httpx.get(server.url + REDOC_JS, timeout=30)
    assert bundle.status_code == 200 and b"redocly logo" in bundle.content
    assert b"cdn.redoc.ly" not in bundle.content
