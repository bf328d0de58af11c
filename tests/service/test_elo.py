"""A move at any Elo between level 1's and level 8's (`elo` instead of `level`), through
`ladder serve --levels FILE` with a small ladder whose ratings are known, the Python
client and `ladder move --elo`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from ladder.levels import at_elo, load_levels

from .helpers import Server, check_move_reply, run_ladder, start_server

#: Levels 1-3 with the mistake rule, 4-8 full searches, rated in xiangqi only (small
#: node counts: these tests are about the API, not about strength).
RATED = """
[[level]]
level = 1
nodes = 300
multipv = 12
temperature_cp = 300

[[level]]
level = 2
nodes = 300
multipv = 12
temperature_cp = 100
"""
RATED += "".join(
    f"\n[[level]]\nlevel = {n}\nnodes = {nodes}\n"
    for n, nodes in ((3, 200), (4, 400), (5, 800), (6, 1600), (7, 3200), (8, 6400))
)
RATED += "".join(
    f"\n[variant.xiangqi.{n}]\nelo = {elo}\nelo_lo = {elo - 80}\nelo_hi = {elo + 80}\ngames = 60\n"
    for n, elo in enumerate((400, 700, 1000, 1300, 1600, 1900, 2200, 2500), start=1)
)


@pytest.fixture(scope="module")
def levels_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("levels") / "rated.toml"
    path.write_text(RATED)
    return path


@pytest.fixture(scope="module")
def rated(levels_file: Path) -> Iterator[Server]:
    srv = start_server("--levels", str(levels_file), engines=1)
    try:
        yield srv
    finally:
        srv.stop()


def test_the_levels_give_the_curve_and_the_span(rated: Server) -> None:
    with rated.client() as client:
        body = client.get("/v1/levels").json()
    assert body["elo_range"]["xiangqi"] == {"low": 400.0, "high": 2500.0}
    assert body["elo_range"]["atomic-xiangqi"] is None  # not measured in this file
    curve = [(lv["level"], lv["rating"]["elo"], lv["nodes"]) for lv in body["levels"]["xiangqi"]]
    assert curve[0] == (1, 400.0, 300) and curve[-1] == (8, 2500.0, 6400)
    assert body["levels"]["xiangqi"][0]["variety"]["temperature_cp"] == 300


def test_a_move_at_an_elo(rated: Server, levels_file: Path) -> None:
    moves = ["h3e3", "h10g8"]
    with rated.client() as client:
        r = client.post(
            "/v1/move", json={"variant": "xiangqi", "moves": moves, "elo": 2350, "seed": 5}
        )
        again = client.post(
            "/v1/move", json={"variant": "xiangqi", "moves": moves, "elo": 2350, "seed": 5}
        )
    assert r.status_code == 200, r.text
    reply = r.json()
    assert reply["elo"] == 2350 and reply["level"] is None
    check_move_reply("xiangqi", moves, reply)
    assert again.json()["move"] == reply["move"]  # reproducible by seed
    # Halfway from 3,200 to 6,400 nodes: the search the interpolation gives.
    settings = at_elo(load_levels(levels_file)["xiangqi"], 2350)
    assert settings.nodes == 4525
    assert reply["nodes"] >= settings.nodes


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"variant": "xiangqi", "elo": 399}, "between 400 and 2500"),
        ({"variant": "xiangqi", "elo": 2500.5}, "between 400 and 2500"),
        ({"variant": "atomic-xiangqi", "elo": 1000}, "every level measured"),
        ({"variant": "xiangqi", "elo": 1000, "level": 3}, "exactly one of level"),
        ({"variant": "xiangqi"}, "exactly one of level"),
        ({"variant": "xiangqi", "elo": "high"}, "elo"),
        ({"variant": "xiangqi", "elo": -5}, "elo"),
    ],
)
def test_an_elo_the_ladder_cannot_play_is_a_clear_422(
    rated: Server, body: dict[str, object], message: str
) -> None:
    with rated.client() as client:
        r = client.post("/v1/move", json=body)
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert message in error["message"] and error["code"] == "invalid_request"


def test_ladder_move_elo_in_process_and_over_http(rated: Server, levels_file: Path) -> None:
    # the same question of the same levels, answered in this process and by the server
    asked = ("move", "--variant", "xiangqi", "--elo", "900", "--seed", "3", "--json")
    local = run_ladder(*asked, "--levels", str(levels_file))
    assert local.returncode == 0, local.stderr
    remote = run_ladder(*asked, "--url", rated.url)
    assert remote.returncode == 0, remote.stderr
    same = ("move", "ponder", "score", "depth", "nodes", "seed", "fen", "elo", "level")
    local_reply, remote_reply = json.loads(local.stdout), json.loads(remote.stdout)
    assert {k: local_reply[k] for k in same} == {k: remote_reply[k] for k in same}
    both = run_ladder("move", "--variant", "xiangqi", "--elo", "900", "--level", "3")
    assert both.returncode == 2 and "not allowed with argument" in both.stderr
    off = run_ladder("move", "--variant", "xiangqi", "--elo", "90", "--levels", str(levels_file))
    assert off.returncode == 2 and "between 400 and 2500" in off.stderr
    assert len(off.stderr.strip().splitlines()) == 1
    levels = run_ladder("levels", "--levels", str(levels_file))
    assert levels.returncode == 0 and "any Elo from 400 to 2500" in levels.stdout
