"""``POST /v1/position`` with ``"wxf": true``: the moves in WXF notation (the /play
page's move list), against the real server; without it the answer is as before."""

from __future__ import annotations

import random

import pytest

from ladder.notation.wxf import wxf_moves
from ladder.rules import Game
from ladder.service.domain.positions import INLINE_PLIES

from .helpers import Server

CASES = [
    ("xiangqi", ["h3e3", "h10g8", "b1c3", "b8b4"], ["C2=5", "H8+7", "H8+7", "C2+4"]),
    ("crazyhouse-xiangqi", ["A@e2", "h10g8", "B@c5"], ["A@52", "H8+7", "E@75"]),
    # the last move blows up Black's general: the game is over, its notation still given
    (
        "atomic-xiangqi",
        ["a1a2", "a7a6", "a2d2", "b10c8", "d2d10"],
        ["R9+1", "P1+1", "R9=6", "H2+3", "R6+8"],
    ),
]


@pytest.mark.parametrize(("variant", "moves", "wxf"), CASES, ids=[c[0] for c in CASES])
def test_position_gives_wxf_on_request(
    server: Server, variant: str, moves: list[str], wxf: list[str]
) -> None:
    with server.client() as http:
        plain = http.post("/v1/position", json={"variant": variant, "moves": moves})
        asked = http.post("/v1/position", json={"variant": variant, "moves": moves, "wxf": True})
    assert plain.status_code == asked.status_code == 200
    assert plain.json()["wxf"] is None
    assert asked.json()["wxf"] == wxf
    assert {k: v for k, v in asked.json().items() if k != "wxf"} == {
        k: v for k, v in plain.json().items() if k != "wxf"
    }


def test_position_wxf_of_a_long_game(server: Server) -> None:
    """Past the inline limit the notation is written in a worker thread: same answer."""
    game = Game.from_fen("xiangqi")
    rng = random.Random(3)
    while game.ply < INLINE_PLIES + 12:
        game.push(rng.choice(game.legal_moves()))
        assert game.outcome() is None
    with server.client() as http:
        reply = http.post(
            "/v1/position", json={"variant": "xiangqi", "moves": game.moves, "wxf": True}
        )
    assert reply.status_code == 200
    wxf = reply.json()["wxf"]
    assert len(wxf) == game.ply and wxf == wxf_moves("xiangqi", game.start_fen, game.moves)
    assert all(w[0] in "KAEHRCP+-" for w in wxf), wxf  # WXF, not the canonical notation


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_position_wxf_must_be_a_boolean(server: Server, value: object) -> None:
    with server.client() as http:
        reply = http.post(
            "/v1/position", json={"variant": "xiangqi", "moves": ["h3e3"], "wxf": value}
        )
    assert reply.status_code == 422
    assert reply.json()["error"]["field"] == "wxf"
