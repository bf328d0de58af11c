"""Every answer names the engine build and the ladder (levels version) that made it; a
request pinned to another is 503 `version_mismatch` with Retry-After (a balancer sends
it to another instance), a pin that is no version at all a 422 naming it, and an
analysis resumed without pinning its build is refused, never continued on another."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from ladder.engine_binary import engine_build_key
from ladder.levels import LEVELS_FILE, levels_version
from tests.service.helpers import OUT_OF_BOOK, Server, service_engine, start_server

BUILD, LEVELS = "X-Ladder-Engine-Build", "X-Ladder-Levels-Version"
MOVE = {"variant": "xiangqi", "moves": OUT_OF_BOOK, "level": 2, "seed": 3}
GAME = {"variant": "xiangqi", "moves": ["h3e3", "h8e8", "h1g3"], "nodes": 2000}


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    with start_server(engines=1) as srv:
        yield srv


def test_every_answer_names_the_build_and_the_ladder(server: Server) -> None:
    build, version = engine_build_key(service_engine()), levels_version(LEVELS_FILE)
    with server.client() as client:
        answers = [
            client.post("/v1/move", json=MOVE),
            client.post("/v1/move", json={**MOVE, "level": 0}),
            client.get("/healthz"),
            client.get("/nowhere"),
        ]
    for r in answers:
        assert (r.headers[BUILD], r.headers[LEVELS]) == (build, version), r.headers
    assert answers[0].json()["levels_version"] == version


def test_a_pin_of_another_build_or_ladder_is_a_503_to_retry_elsewhere(server: Server) -> None:
    with server.client() as client:
        ours = client.get("/healthz").headers
        same = {BUILD: ours[BUILD], LEVELS: ours[LEVELS]}
        assert client.post("/v1/move", json=MOVE, headers=same).status_code == 200
        for header, other in ((BUILD, "engine-fast-patched-0123456789abcdef"), (LEVELS, "0" * 12)):
            r = client.post("/v1/move", json=MOVE, headers={header: other})
            assert r.status_code == 503, r.text
            error = r.json()["error"]
            assert error["code"] == "version_mismatch" and other in error["message"]
            assert int(r.headers["retry-after"]) >= 1
            # the analysis too
            r = client.post("/v1/analysis", json=GAME, headers={header: other})
            assert r.status_code == 503 and r.json()["error"]["code"] == "version_mismatch"


@pytest.mark.parametrize("header", [BUILD, LEVELS])
def test_a_pin_that_is_no_version_is_a_422_naming_it(server: Server, header: str) -> None:
    r = httpx.post(server.url + "/v1/move", json=MOVE, headers={header: "latest!"}, timeout=30)
    assert r.status_code == 422
    error = r.json()["error"]
    assert error["field"] == header and "'latest!'" in error["message"]


def test_a_resumed_analysis_must_pin_its_build(server: Server) -> None:
    resumed = {**GAME, "from_ply": 2}
    with server.client() as client:
        refused = client.post("/v1/analysis", json=resumed)
        assert refused.status_code == 422
        assert refused.json()["error"]["field"] == "from_ply" and BUILD in refused.text
        with client.stream("POST", "/v1/analysis", json=GAME) as whole:
            first = next(whole.iter_lines())
        build = httpx.Response(200, content=first).json()["engine"]
        r = client.post("/v1/analysis", json=resumed, headers={BUILD: build})
        assert r.status_code == 200, r.text
        assert '"from_ply":2' in next(line for line in r.text.splitlines() if line)
