"""``POST /v1/analysis`` on real ``ladder serve`` instances: the stream's lines and their
schema, the cache, a stream resumed on another instance equal to the whole one, a
closed stream that stops searching, the refusals (an illegal move at its ply, limits)
and an engine crash mid-job retried."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from ladder.service.domain.analysis_models import AnalysisLine

from .helpers import Server, samples, service_engine, start_server, wait_until

FAULTY_ENGINE = Path(__file__).parents[1] / "faulty_engine.py"
GAME = ["h3e3", "h8e8", "h1g3", "h10g8", "i1h1", "i10h10", "b1c3", "b10c8"]
NODES = 5000


def stream(
    server: Server, body: dict[str, Any], headers: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    """Every line of one analysis stream, each checked against the schema's model."""
    url = server.url + "/v1/analysis"
    with httpx.stream("POST", url, json=body, headers=headers, timeout=120) as r:
        assert r.status_code == 200, r.read()
        assert r.headers["content-type"].startswith("application/x-ndjson")
        lines = [json.loads(line) for line in r.iter_lines() if line]
    for line in lines:
        AnalysisLine.model_validate(line)
    return lines


@pytest.fixture(scope="module")
def pair() -> Iterator[tuple[Server, Server]]:
    """Two instances, as behind a load balancer."""
    first = start_server("--analysis-max-jobs", "1", engines=1)
    try:
        second = start_server(engines=1)
        try:
            yield first, second
        finally:
            second.stop()
    finally:
        first.stop()


def test_a_stream_resumed_on_another_instance_is_the_whole_stream(
    pair: tuple[Server, Server],
) -> None:
    first, second = pair
    body = {"variant": "xiangqi", "moves": GAME, "nodes": NODES}
    whole = stream(first, body)
    assert [line["type"] for line in whole] == ["start", *["ply"] * len(GAME), "summary"]
    start, plies, summary = whole[0], whole[1:-1], whole[-1]
    assert (start["plies"], start["from_ply"], start["nodes"], start["cached"]) == (
        8,
        1,
        NODES,
        False,
    )
    assert [p["ply"] for p in plies] == list(range(1, 9)) and [p["move"] for p in plies] == GAME
    assert summary["red"]["moves"] == summary["black"]["moves"] == 4
    # cut after ply 3: the rest asked of the other instance is what the first one sent
    # (naming the first part's engine build: never continued on another)
    pin = {"X-Ladder-Engine-Build": start["engine"]}
    resumed = stream(second, {**body, "from_ply": 4}, pin)
    assert resumed[0]["from_ply"] == 4 and not resumed[0]["cached"]
    assert resumed[1:-1] == plies[3:]
    assert resumed[-1]["from_ply"] == 4 and resumed[-1]["red"]["moves"] == 2
    # the same game again on the first instance: from its cache, no search
    searched = samples(first)['ladder_analysis_plies_total{variant="xiangqi"}']
    again = stream(first, body)
    assert again[0]["cached"] and again[1:] == whole[1:]
    metrics = samples(first)
    assert metrics['ladder_analysis_plies_total{variant="xiangqi"}'] == searched == 9
    assert metrics['ladder_analyses_total{outcome="done"}'] == 1
    assert metrics['ladder_analyses_total{outcome="cached"}'] == 1


def test_refused_before_the_stream_as_a_move_is(pair: tuple[Server, Server]) -> None:
    first, _ = pair
    url = first.url + "/v1/analysis"
    refused = samples(first)['ladder_analyses_total{outcome="refused"}']
    r = httpx.post(url, json={"variant": "xiangqi", "moves": ["h3e3", "h8e8", "e3e9"]})
    assert r.status_code == 422
    error = r.json()["error"]
    assert (error["code"], error["ply"], error["field"]) == ("illegal_move", 3, "moves[2]")
    r = httpx.post(url, json={"variant": "xiangqi", "moves": [], "nodes": 10**9})
    assert r.status_code == 422 and r.json()["error"]["field"] == "nodes"
    r = httpx.post(
        url,
        json={"variant": "xiangqi", "moves": ["h3e3"], "from_ply": 3},
        # a resumption pins its build (the one every answer names)
        headers={"X-Ladder-Engine-Build": r.headers["x-ladder-engine-build"]},
    )
    assert r.status_code == 422 and r.json()["error"]["field"] == "from_ply"
    # over a limit (the nodes) is "refused", as the metric's help says; a bad game is not
    assert samples(first)['ladder_analyses_total{outcome="refused"}'] == refused + 1


def test_a_closed_stream_stops_searching(pair: tuple[Server, Server]) -> None:
    first, _ = pair
    long_game = [*GAME, "d1e2", "i7i6", "h1h9", "b8a8", "e3e7", "g8e7", "h9h4", "a8a9"]
    before = samples(first)['ladder_analysis_plies_total{variant="xiangqi"}']
    body = {"variant": "xiangqi", "moves": long_game, "nodes": 100_000}
    with httpx.stream("POST", first.url + "/v1/analysis", json=body, timeout=120) as r:
        lines = r.iter_lines()
        assert json.loads(next(lines))["type"] == "start"
        assert json.loads(next(lines))["type"] == "ply"
        # the client's one analysis at a time: a second one is refused meanwhile
        refused = httpx.post(first.url + "/v1/analysis", json={"variant": "xiangqi"})
        assert refused.status_code == 429
        assert refused.json()["error"]["code"] == "too_many_analyses"
    wait_until(lambda: samples(first)['ladder_analyses_total{outcome="cancelled"}'] == 1)
    wait_until(lambda: first.health()["engines_busy"] == 0)
    searched = samples(first)['ladder_analysis_plies_total{variant="xiangqi"}'] - before
    assert searched <= 3  # the two positions of ply 1 and at most the one under way


async def _open_streams(url: str, body: dict[str, Any], count: int) -> list[int]:
    """`count` analysis requests sent at once from one client, each kept open until all
    have their status (an admitted stream still runs when the last one is judged)."""
    async with httpx.AsyncClient(timeout=120) as client, contextlib.AsyncExitStack() as open_:

        async def send() -> int:
            request = client.build_request("POST", url, json=body)
            response = await client.send(request, stream=True)
            await open_.enter_async_context(contextlib.aclosing(response))
            return response.status_code

        return list(await asyncio.gather(*(send() for _ in range(count))))


def test_streams_sent_at_once_run_at_most_the_limit(pair: tuple[Server, Server]) -> None:
    """12 streams at the same moment with one client's limit of 1: one runs, 11 are
    refused (the count was checked before the stream counted itself: 11 ran)."""
    first, _ = pair
    wait_until(lambda: first.health()["engines_busy"] == 0)
    long_game = [*GAME, "d1e2", "i7i6", "h1h9", "b8a8", "e3e7", "g8e7", "h9h4", "a8a9"]
    body = {"variant": "xiangqi", "moves": long_game, "nodes": 100_000}
    codes = asyncio.run(_open_streams(first.url + "/v1/analysis", body, 12))
    assert sorted(codes) == [200] + [429] * 11, codes
    # every admission was given back: the client may stream again
    wait_until(lambda: samples(first)["ladder_analyses_running"] == 0)
    assert stream(first, {"variant": "xiangqi", "moves": GAME[:2], "nodes": NODES})[0]["type"] == (
        "start"
    )


def test_an_engine_crash_mid_job_retries_that_position(tmp_path: Path) -> None:
    wrapper = tmp_path / "engine.sh"
    # the 5th search crashes (1 is the slot's start), once: a restart fixes it
    wrapper.write_text(f"#!/bin/sh\nexec {sys.executable} {FAULTY_ENGINE} {service_engine()} "
                       f"--crash-once-at 4 {tmp_path / 'count'}\n")  # fmt: skip
    wrapper.chmod(0o755)
    server = start_server(engines=1, env={"LADDER_ENGINE": str(wrapper)})
    try:
        lines = stream(server, {"variant": "xiangqi", "moves": GAME[:6], "nodes": NODES})
        assert [line["type"] for line in lines] == ["start", *["ply"] * 6, "summary"]
        metrics = samples(server)
        assert metrics['ladder_engine_incidents_total{kind="crash"}'] >= 1
        assert metrics['ladder_analysis_plies_total{variant="xiangqi"}'] == 7
    finally:
        server.stop()


def test_a_stop_says_how_many_streams_it_ends_and_ends_them_resumably() -> None:
    """SIGTERM while an analysis streams: the `draining` line counts the stream (it said
    0 in flight: only move requests were counted), and the stream ends at its next ply
    with an `error` line `shutting_down` to resume from on another instance."""
    server = Server(["--engines", "1", "--log-format", "json", "--drain-delay", "0"])
    server.start()
    long_game = [*GAME, "d1e2", "i7i6", "h1h9", "b8a8", "e3e7", "g8e7", "h9h4", "a8a9"]
    body = {"variant": "xiangqi", "moves": long_game, "nodes": 100_000}
    try:
        with httpx.stream("POST", server.url + "/v1/analysis", json=body, timeout=120) as r:
            lines = r.iter_lines()
            assert json.loads(next(lines))["type"] == "start"
            assert json.loads(next(lines))["type"] == "ply"
            start = len(server.log_lines)
            server.signal(signal.SIGTERM)
            rest = [json.loads(line) for line in lines if line]
        assert server.proc is not None and server.proc.wait(timeout=60) == 0
    finally:
        server.stop()
    last = rest[-1]
    assert last["type"] == "error" and last["error"]["code"] == "shutting_down", last
    assert 1 < last["resume_from_ply"] <= len(long_game)  # where another instance resumes
    (draining,) = [json.loads(x) for x in server.log_lines[start:] if '"draining"' in x]
    assert (draining["requests"], draining["analyses"]) == (0, 1), draining


def test_a_longer_game_is_analysed_in_parts() -> None:
    """The plies bound is on the plies one request searches, from `from_ply` on, not on
    the game: a game longer than the bound is analysed in parts, and the service says
    its bounds in `GET /v1/variants`."""
    server = start_server("--analysis-max-plies", "4", engines=1)
    try:
        limits = httpx.get(server.url + "/v1/variants", timeout=30).json()["limits"]
        assert limits == {"max_moves": 1000, "analysis_max_plies": 4}
        body = {"variant": "xiangqi", "moves": GAME, "nodes": NODES}
        r = httpx.post(server.url + "/v1/analysis", json=body, timeout=60)
        assert r.status_code == 422, r.text
        error = r.json()["error"]
        assert error["field"] == "moves" and "at most 4 plies" in error["message"]
        assert "(8 from ply 1)" in error["message"]
        first = stream(server, {**body, "moves": GAME[:4]})
        pin = {"X-Ladder-Engine-Build": first[0]["engine"]}  # the parts on one build
        second = stream(server, {**body, "from_ply": 5}, pin)
        assert [p["ply"] for p in first[1:-1] + second[1:-1]] == list(range(1, 9))
        assert second[-1]["from_ply"] == 5 and second[-1]["red"]["moves"] == 2
        r = httpx.post(
            server.url + "/v1/analysis", json={**body, "from_ply": 4}, headers=pin, timeout=60
        )
        assert r.status_code == 422 and "(5 from ply 4)" in r.json()["error"]["message"]
    finally:
        server.stop()
