"""The API documentation works offline (assets from the fastapi-offline package, no
CDN), rendered by a real browser; and the schema says what the service does."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import httpx
import pytest

from ladder.rules import Reason
from ladder.service.domain.errors import ErrorCode
from ladder.service.operations.config import MAX_SEED

from .helpers import Server, check_move_reply

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def rendered(url: str, profile: Path) -> str:
    """The page's DOM after its scripts ran, in headless Chromium."""
    result = subprocess.run(
        [
            str(CHROMIUM),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            f"--user-data-dir={profile}",
            "--virtual-time-budget=20000",
            "--dump-dom",
            url,
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def test_docs_pages_use_local_assets_only(server: Server) -> None:
    with server.client() as client:
        for page in ("/docs", "/redoc"):
            html = client.get(page).text
            refs = re.findall(r'(?:src|href)="([^"]+)"', html) + re.findall(r"url: '([^']+)'", html)
            assert refs, html
            assert not [r for r in refs if "://" in r or r.startswith("//")], refs
            for ref in refs:
                asset = client.get(ref)
                assert asset.status_code == 200, ref
        bundle = client.get("/static-offline-docs/swagger-ui-bundle.js")
        assert "javascript" in bundle.headers["content-type"]
        assert len(bundle.content) > 500_000


@pytest.mark.skipif(CHROMIUM is None, reason="needs chromium (Debian package)")
def test_docs_render_in_a_browser(server: Server, tmp_path: Path) -> None:
    swagger = rendered(server.url + "/docs", tmp_path / "swagger")
    for path in ("/v1/move", "/v1/position", "/v1/levels", "/readyz"):
        assert f'data-path="{path}"' in swagger, path
    redoc = rendered(server.url + "/redoc", tmp_path / "redoc")
    assert "/v1/move" in redoc and "Mistboard ladder" in redoc


def test_schema_seed_bound_is_an_exact_integer(server: Server) -> None:
    raw = httpx.get(server.url + "/openapi.json", timeout=30).text
    schema = json.loads(raw)
    seed = schema["components"]["schemas"]["MoveRequest"]["properties"]["seed"]["anyOf"][0]
    assert seed["maximum"] == MAX_SEED and isinstance(seed["maximum"], int)
    assert str(MAX_SEED) in raw and "e+18" not in raw
    assert seed["minimum"] == 0 and isinstance(seed["minimum"], int)


def test_schema_example_request_is_accepted(server: Server) -> None:
    """What Swagger's "Try it out" sends by default: the schema's examples (one asks
    for the move in notations, answered beside it)."""
    schemas = httpx.get(server.url + "/openapi.json", timeout=30).json()["components"]["schemas"]
    plain, with_notations = schemas["MoveRequest"]["examples"]
    for example in (plain, with_notations):
        r = httpx.post(server.url + "/v1/move", json=example, timeout=60)
        assert r.status_code == 200, r.text
        check_move_reply(example["variant"], example["moves"], r.json())
        assert sorted(r.json().get("notations", {})) == sorted(example.get("notations", []))
    for answer in ("MoveResponse", "PositionResponse", "AnalysisPly"):
        assert "notations" in schemas[answer]["properties"], answer


def test_schema_enums_and_descriptions(server: Server) -> None:
    schemas = httpx.get(server.url + "/openapi.json", timeout=30).json()["components"]["schemas"]
    assert set(schemas["ErrorCode"]["enum"]) == {c.value for c in ErrorCode}
    assert set(schemas["Reason"]["enum"]) == {r.value for r in Reason}
    detail = schemas["ErrorDetail"]["properties"]
    assert detail["code"]["examples"] == ["illegal_move"]
    assert schemas["OutcomeInfo"]["properties"]["reason"]["examples"] == ["checkmate"]
    assert (
        "null" in schemas["Score"]["description"]
        and "never both" in schemas["Score"]["description"]
    )
