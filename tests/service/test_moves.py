"""Moves at every level of every variant, reproducibility, finished games."""

from __future__ import annotations

import httpx
import pytest

from ladder.level_engine.expected_time import NODES_PER_SECOND
from ladder.levels import load_levels
from ladder.rules import Game
from ladder.variants import VARIANT_IDS

from .helpers import Server, check_move_reply

#: A few opening moves per variant, so the searches are not all from the start position.
OPENINGS: dict[str, list[str]] = {
    "xiangqi": ["a4a5", "h10g8", "h1g3"],  # out of the opening book: every level searches
    "atomic-xiangqi": ["h3e3", "h10g8", "b1c3"],
    "crazyhouse-xiangqi": ["h3e3", "h10g8", "A@e2"],
}
MATED = "3k5/3R5/3R5/9/9/9/9/9/9/4K4 b - - 0 1"  # Black is checkmated
MATE_IN_ONE = "3k5/R8/8R/9/9/9/9/9/9/4K4 w - - 0 1"  # i8i10 mates


def _move(client: httpx.Client, **body: object) -> httpx.Response:
    return client.post("/v1/move", json=body)


def test_openings_are_legal() -> None:
    for variant, moves in OPENINGS.items():
        Game.from_fen(variant, None, moves)


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_every_level(server: Server, variant: str) -> None:
    """All eight levels (the strongest is 380,000-600,000 nodes, under 4 s here)."""
    moves = OPENINGS[variant]
    with server.client(timeout=120) as client:
        for level in range(1, 9):
            r = _move(client, variant=variant, moves=moves, level=level, seed=level)
            assert r.status_code == 200, r.text
            reply = r.json()
            assert reply["level"] == level and reply["seed"] == level
            assert reply["nodes"] >= 1 and reply["depth"] >= 1
            check_move_reply(variant, moves, reply)


@pytest.mark.parametrize("level", [1, 2, 4])
def test_same_seed_same_move(server: Server, level: int) -> None:
    body = {"variant": "xiangqi", "moves": ["h3e3", "h10g8"], "level": level, "seed": 12345}
    with server.client() as client:
        a, b = _move(client, **body).json(), _move(client, **body).json()
    assert (a["move"], a["score"], a["nodes"]) == (b["move"], b["score"], b["nodes"])
    assert a["seed"] == b["seed"] == 12345


def test_same_answer_whatever_the_engine_searched_before(server: Server) -> None:
    """An engine's history (other variants, levels, MultiPV settings) does not change its
    answer: `ucinewgame` alone would not guarantee that on Fairy-Stockfish."""
    # Level 5 (2,500 nodes): a search long enough to depend on every table it uses.
    body = {"variant": "xiangqi", "moves": ["h3e3", "h10g8"], "level": 5, "seed": 77}
    others = [
        {"variant": v, "moves": ["h3e3"], "level": lv, "seed": 1}
        for v in ("crazyhouse-xiangqi", "atomic-xiangqi", "xiangqi")
        for lv in (2, 4)
    ]
    with server.client() as client:
        first = _move(client, **body).json()
        for other in others:
            assert _move(client, **other).status_code == 200
            again = _move(client, **body).json()
            assert (again["move"], again["score"], again["nodes"]) == (
                first["move"],
                first["score"],
                first["nodes"],
            ), other


def test_seed_returned_and_replayable(server: Server) -> None:
    body = {"variant": "atomic-xiangqi", "moves": ["h3e3"], "level": 1}
    with server.client() as client:
        first = _move(client, **body).json()
        assert isinstance(first["seed"], int) and 0 <= first["seed"] < 2**63
        again = _move(client, **body, seed=first["seed"]).json()
    assert again["move"] == first["move"]


def test_variety_level_varies_with_seed(server: Server) -> None:
    """Level 1 draws its move by the seed (the mistake rule); level 4 picks among
    near-equal moves in the opening only, and plays its best move after ply 20."""
    late = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 11"
    with server.client() as client:
        picks = {
            _move(client, variant="xiangqi", moves=[], level=1, seed=s).json()["move"]
            for s in range(8)
        }
        opening = {
            _move(client, variant="xiangqi", moves=[], level=4, seed=s).json()["move"]
            for s in range(12)
        }
        best = {
            _move(client, variant="xiangqi", fen=late, level=4, seed=s).json()["move"]
            for s in range(3)
        }
    assert len(picks) > 1 and len(opening) > 1
    assert len(best) == 1


def test_finished_game_is_refused(server: Server) -> None:
    with server.client() as client:
        r = _move(client, variant="xiangqi", fen=MATED, level=3)
        assert r.status_code == 409, r.text
        err = r.json()["error"]
        assert err["code"] == "game_over"
        assert err["outcome"] == {"result": "1-0", "winner": "red", "reason": "checkmate"}
        assert "checkmate" in err["message"]
        # A move after the end names the ply.
        r = _move(client, variant="xiangqi", fen=MATE_IN_ONE, moves=["i8i10", "d10e10"], level=1)
        assert r.status_code == 422, r.text
        err = r.json()["error"]
        assert err["ply"] == 2 and err["field"] == "moves[1]"
        assert "over" in err["message"]


def test_winning_move_reports_outcome(server: Server) -> None:
    with server.client() as client:
        r = _move(client, variant="xiangqi", fen=MATE_IN_ONE, level=4, seed=1)
    assert r.status_code == 200, r.text
    reply = r.json()
    check_move_reply("xiangqi", [], reply, fen=MATE_IN_ONE)
    assert reply["score"]["mate"] == 1
    assert reply["outcome"] == {"result": "1-0", "winner": "red", "reason": "checkmate"}
    assert reply["gives_check"] is True


def test_position_endpoint(server: Server) -> None:
    with server.client() as client:
        r = client.post("/v1/position", json={"variant": "xiangqi", "moves": ["h3e3"]})
        assert r.status_code == 200
        body = r.json()
        game = Game.from_fen("xiangqi", None, ["h3e3"])
        assert body["fen"] == game.fen()
        assert body["legal_moves"] == sorted(game.legal_moves())
        assert body["turn"] == "black" and body["check"] is False and body["outcome"] is None
        r = client.post("/v1/position", json={"variant": "xiangqi", "fen": MATED})
        assert r.json()["outcome"]["reason"] == "checkmate"
        assert r.json()["legal_moves"] == []
        # a draw by repetition: over too, so no move is offered that /v1/move refuses
        shuffle = ["h1g3", "h10g8", "g3h1", "g8h10"] * 2
        drawn = client.post("/v1/position", json={"variant": "xiangqi", "moves": shuffle})
        assert drawn.json()["outcome"]["reason"] == "repetition", drawn.text
        assert drawn.json()["legal_moves"] == []
        refused = client.post("/v1/move", json={"variant": "xiangqi", "moves": shuffle, "level": 1})
        assert refused.json()["error"]["code"] == "game_over"


def test_info_endpoints(server: Server) -> None:
    with server.client() as client:
        levels = client.get("/v1/levels").json()["levels"]
        assert set(levels) == set(VARIANT_IDS)
        assert [lv["level"] for lv in levels["xiangqi"]] == list(range(1, 9))
        weakest = levels["xiangqi"][0]  # the mistake rule
        assert weakest["variety"]["multipv"] >= 2 and weakest["variety"]["temperature_cp"] > 0
        # a move's expected time, without this machine's measurement (tests/
        # test_level_times.py has it): the calibrated one where the shipped file has it,
        # else the level's nodes at the assumed speed
        shipped = load_levels()
        for variant, table in levels.items():
            for lv in table:
                calibrated = shipped[variant][lv["level"]].seconds_per_move
                assert lv["seconds_per_move"] == calibrated
                if lv["expected_source"] == "measured":  # the per-user cache has a file
                    continue
                speed = NODES_PER_SECOND[variant]
                expected = lv["nodes"] / speed if calibrated is None else calibrated
                assert lv["expected_seconds"] == pytest.approx(expected)
                source = "estimated" if calibrated is None else "calibrated"
                assert lv["expected_source"] == source
        variants = client.get("/v1/variants").json()["variants"]
        assert [v["id"] for v in variants] == list(VARIANT_IDS)
        health = client.get("/healthz").json()
        assert health["engines"] == 2 and health["status"] in ("ok", "degraded")
        assert client.get("/docs").status_code == 200
        assert client.get("/openapi.json").json()["paths"]["/v1/move"]
        assert _move(client, variant="xiangqi", level=1).status_code == 200
        metrics = client.get("/metrics")
        assert metrics.headers["content-type"].startswith("text/plain")
        for name in (
            "ladder_http_requests_total",
            "ladder_queue_depth",
            "ladder_engine_restarts_total",
            "ladder_search_seconds_bucket",
        ):
            assert name in metrics.text
        assert 'ladder_http_requests_total{route="/v1/move",status="200"}' in metrics.text
