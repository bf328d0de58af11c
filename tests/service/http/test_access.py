"""Keys, limits and exposure of `ladder serve` (a subprocess): API keys and their
reload on SIGHUP, the refusal to face a network without keys, the rate limit, fair
engines between keys, CORS, the root warning, and the bearer scheme in the schema."""

from __future__ import annotations

import asyncio
import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from ladder.service.http.access import KeyFileError, RateLimit, key_id, read_keys
from ladder.service.operations.config import ServiceConfig
from ladder.service.operations.server import ServeError, check_exposure
from ladder.service.operations.settings import ServeSettings
from tests.service.helpers import OUT_OF_BOOK, Server, run_ladder, start_server

KEY_A = "site-a-0123456789abcdef"
KEY_B = "site-b-fedcba9876543210"
MOVE = {"variant": "xiangqi", "moves": ["h3e3"], "level": 1, "seed": 5}


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def test_key_file_format(tmp_path: Path) -> None:
    path = tmp_path / "keys"
    path.write_text(f"# the site\n{KEY_A} site-a  # prod\n\n{KEY_B}\n")
    keys = read_keys(path)
    assert sorted(keys.values()) == sorted(["site-a", key_id(KEY_B)])
    assert KEY_A not in repr(keys) and KEY_B not in repr(keys)  # digests only
    for text, problem in [
        ("# nothing\n", "no API keys"),
        ("short\n", "line 1: key too short"),
        (f"{KEY_A}\nkey with\tthree fields\n", "line 2: expected a key"),
        (f"{KEY_A}\n{KEY_B}é\n", "line 2: a key may contain only"),
    ]:
        path.write_text(text)
        with pytest.raises(KeyFileError, match=problem) as err:
            read_keys(path)
        assert KEY_A not in str(err.value)
    with pytest.raises(KeyFileError, match=r"missing does not exist \(to serve without keys"):
        read_keys(tmp_path / "missing")
    with pytest.raises(KeyFileError, match="cannot read"):
        read_keys(tmp_path)  # a folder


def test_rate_limit_window() -> None:
    limit = RateLimit(3)
    assert [limit.retry_after("a") for _ in range(3)] == [None, None, None]
    wait = limit.retry_after("a")
    assert wait is not None and 1 <= wait <= 60
    assert limit.retry_after("b") is None  # per client


@pytest.fixture(scope="module")
def keyed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Path]]:
    path = tmp_path_factory.mktemp("keys") / "keys"
    path.write_text(f"{KEY_A} site-a\n")
    server = start_server("--api-keys", str(path), engines=1)
    yield server, path
    server.stop()
    assert not any(KEY_A in line or KEY_B in line for line in server.log_lines)


def test_keys_are_required_on_v1(keyed: tuple[Server, Path]) -> None:
    server, _ = keyed
    with server.client() as client:
        for headers in ({}, bearer("not-a-known-key-000000"), {"Authorization": KEY_A}):
            r = client.post("/v1/move", json=MOVE, headers=headers)
            assert r.status_code == 401
            assert r.headers["www-authenticate"] == "Bearer"
            assert r.json()["error"]["code"] == "unauthorized"
            assert client.get("/v1/levels", headers=headers).status_code == 401
        r = client.post("/v1/move", json=MOVE, headers=bearer(KEY_A))
        assert r.status_code == 200, r.text
        # operations endpoints stay open (load balancers, Prometheus)
        for path in ("/healthz", "/readyz", "/metrics", "/docs", "/openapi.json"):
            assert client.get(path).status_code == 200, path
        metrics = client.get("/metrics").text
        assert "ladder_unauthorized_total 6.0" in metrics
    line = server.wait_for_log(lambda x: '"status": 200' in x and '"/v1/move"' in x)
    assert json.loads(line)["client"] == "site-a"


def test_keys_reload_on_sighup(keyed: tuple[Server, Path]) -> None:
    server, path = keyed
    start = len(server.log_lines)
    path.write_text(f"{KEY_B}  # site A's key withdrawn, B added\n")
    server.signal(signal.SIGHUP)
    server.wait_for_log(lambda x: '"keys_loaded"' in x, start=start)
    with server.client() as client:
        assert client.post("/v1/move", json=MOVE, headers=bearer(KEY_A)).status_code == 401
        assert client.post("/v1/move", json=MOVE, headers=bearer(KEY_B)).status_code == 200
    # a broken file is refused and the keys in force stay
    path.write_text("short\n")
    server.signal(signal.SIGHUP)
    line = server.wait_for_log(lambda x: '"keys_reload_failed"' in x, start=start)
    assert "key too short" in line
    with server.client() as client:
        assert client.post("/v1/move", json=MOVE, headers=bearer(KEY_B)).status_code == 200
    assert server.proc is not None and server.proc.poll() is None


def test_schema_declares_the_bearer_scheme(keyed: tuple[Server, Path]) -> None:
    server, _ = keyed
    schema = httpx.get(server.url + "/openapi.json", timeout=30).json()
    assert schema["components"]["securitySchemes"]["bearer"] == {
        "type": "http",
        "scheme": "bearer",
        "description": schema["components"]["securitySchemes"]["bearer"]["description"],
    }
    assert schema["paths"]["/v1/move"]["post"]["security"] == [{"bearer": []}]
    assert "security" not in schema["paths"]["/healthz"]["get"]


def test_no_network_without_keys() -> None:
    """Binding beyond loopback needs --api-keys or an explicit --no-auth. (Refused before
    any socket is opened; the tests bind loopback only, so --no-auth's bind is checked
    through check_exposure.)"""
    refused = run_ladder("serve", "--host", "0.0.0.0", "--port", "0", "--engines", "1")
    assert refused.returncode == 2
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1 and "without API keys" in lines[0] and "--no-auth" in lines[0]
    config = ServiceConfig(engines=1)
    check_exposure(ServeSettings(host="0.0.0.0", no_auth=True), config)
    check_exposure(ServeSettings(host="127.0.0.1"), config)
    check_exposure(ServeSettings(host="::1"), config)
    with pytest.raises(ServeError):
        check_exposure(ServeSettings(host="192.0.2.1"), config)
    keyed = ServiceConfig(engines=1, api_keys_file=Path("keys"))
    check_exposure(ServeSettings(host="0.0.0.0"), keyed)


@pytest.mark.skipif(os.geteuid() != 0, reason="the warning is for root")
def test_root_is_warned_about(keyed: tuple[Server, Path]) -> None:
    server, _ = keyed
    assert any('"running_as_root"' in line for line in server.log_lines)


def test_bad_key_file_is_a_one_line_error(tmp_path: Path) -> None:
    path = tmp_path / "keys"
    path.write_text("tiny\n")
    result = run_ladder("serve", "--port", "0", "--api-keys", str(path))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"ladder serve: {path}, line 1: key too short (at least 16 characters)"
    ]


def test_rate_limit_per_client() -> None:
    server = start_server("--rate-limit", "3", engines=1)
    try:
        with server.client() as client:
            statuses = [client.get("/v1/variants").status_code for _ in range(4)]
            assert statuses == [200, 200, 200, 429]
            r = client.post("/v1/move", json=MOVE)
            assert r.status_code == 429
            assert r.json()["error"]["code"] == "rate_limited"
            assert 1 <= int(r.headers["retry-after"]) <= 60
            assert r.json()["error"]["retry_after"] == int(r.headers["retry-after"])
            # not counted: operations endpoints
            assert client.get("/healthz").status_code == 200
            # another client address (a proxy we trust says so) has its own budget
            other = client.get("/v1/variants", headers={"X-Forwarded-For": "203.0.113.7"})
            assert other.status_code == 200
    finally:
        server.stop()


async def test_a_flood_from_one_key_does_not_starve_another(tmp_path: Path) -> None:
    """Key A queues many level-6 searches (60k nodes) on the only engine (frozen
    meanwhile, so that they all wait); key B's level-1 request comes last, and is served
    right after the search that was running, not behind all of A's."""
    path = tmp_path / "keys"
    path.write_text(f"{KEY_A} site-a\n{KEY_B} site-b\n")
    server = start_server("--api-keys", str(path), "--queue-timeout", "300", engines=1)
    flood = 5
    try:
        (engine,) = server.engine_pids()
        async with httpx.AsyncClient(base_url=server.url, timeout=300) as client:
            done: list[str] = []

            async def move(key: str, level: int, seed: int) -> None:
                body = {"variant": "xiangqi", "moves": OUT_OF_BOOK, "level": level, "seed": seed}
                r = await client.post("/v1/move", json=body, headers=bearer(key))
                assert r.status_code == 200, r.text
                done.append(key)

            os.kill(engine, signal.SIGSTOP)
            try:
                tasks = [asyncio.create_task(move(KEY_A, 6, i)) for i in range(flood)]
                await asyncio.to_thread(server.wait_health, lambda h: h["queue_depth"] == flood - 1)
                tasks.append(asyncio.create_task(move(KEY_B, 1, 1)))
                await asyncio.to_thread(server.wait_health, lambda h: h["queue_depth"] == flood)
            finally:
                os.kill(engine, signal.SIGCONT)
            await asyncio.gather(*tasks)
        assert done.index(KEY_B) == 1, done  # after the search that was running
        assert done.count(KEY_A) == flood
    finally:
        server.stop()


def test_cors_for_the_sites_front_end() -> None:
    origin = "https://play.example.com"
    server = start_server("--cors-origin", origin, engines=1)
    try:
        with server.client() as client:
            preflight = client.options(
                "/v1/move",
                headers={
                    "Origin": origin,
                    "Access-Control-Request-Method": "POST",
                    "Access-Control-Request-Headers": "authorization, content-type",
                },
            )
            assert preflight.status_code == 200
            assert preflight.headers["access-control-allow-origin"] == origin
            r = client.post("/v1/move", json=MOVE, headers={"Origin": origin})
            assert r.status_code == 200
            assert r.headers["access-control-allow-origin"] == origin
            refused = client.options(
                "/v1/move",
                headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"},
            )
            assert refused.status_code == 400
            assert refused.json()["error"]["code"] == "cors_rejected"
            plain = client.post("/v1/move", json=MOVE, headers={"Origin": "https://evil.example"})
            assert "access-control-allow-origin" not in plain.headers
    finally:
        server.stop()
