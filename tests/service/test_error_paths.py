"""A bad request gets the same error whichever way it reaches the service: over HTTP
(a real ``ladder serve``, raw JSON) and in-process (:class:`ladder.client.Ladder`
without a server). Status, code, message, field path (``moves[2]``), ply and outcome
must agree, for the request model's refusals and the rules checker's alike."""

from __future__ import annotations

from typing import Any

import pytest

from ladder.client import Ladder
from ladder.service.domain.errors import ServiceError

from .helpers import Server

MATED = "3k5/3R5/3R5/9/9/9/9/9/9/4K4 b - - 0 1"  # Black is checkmated
MATE_IN_ONE = "3k5/R8/8R/9/9/9/9/9/9/4K4 w - - 0 1"  # i8i10 mates

#: (endpoint, request body): each one refused, with a 4xx.
BAD_REQUESTS: list[tuple[str, dict[str, Any]]] = [
    ("move", {"variant": "xiangqi", "level": 9}),
    ("move", {"variant": "xiangqi", "level": 0, "seed": -1}),
    ("move", {"variant": "xiangqi", "level": 1, "seed": "7"}),
    ("move", {"variant": "xiangqi", "level": 1, "elo": 1200}),
    ("move", {"variant": "xiangqi"}),
    ("move", {"variant": "chess", "level": 1}),
    ("move", {"variant": "xiangqi", "level": 1, "moves": ["h3e3", "h10g8", ""]}),
    ("move", {"variant": "xiangqi", "level": 1, "moves": ["h3e3", "h10g8", "x" * 40]}),
    ("move", {"variant": "xiangqi", "level": 1, "moves": ["h3e3", "h10g8", "h3e3"]}),
    ("move", {"variant": "xiangqi", "level": 1, "moves": ["h3e3", "zz"]}),
    ("move", {"variant": "xiangqi", "level": 1, "fen": "not a fen"}),
    ("move", {"variant": "xiangqi", "level": 1, "fen": MATED}),
    ("move", {"variant": "xiangqi", "level": 1, "fen": MATE_IN_ONE, "moves": ["i8i10", "d10e10"]}),
    ("move", {"variant": "xiangqi", "elo": 1}),
    ("move", {"variant": "atomic-xiangqi", "elo": 4999}),
    ("position", {"variant": "xiangqi", "moves": ["h3e3", "h3e3"]}),
    ("position", {"variant": "crazyhouse-xiangqi", "fen": "9/9/9 w - - 0 1"}),
    ("position", {"variant": "xiangqi", "moves": [""]}),
    # a string is not a list of moves (the client once split it into letters)
    ("move", {"variant": "xiangqi", "level": 1, "moves": "h3e3"}),
    ("position", {"variant": "xiangqi", "moves": "h3e3 h10g8"}),
]


#: What an error says, all of it compared.
SHAPE = ("status", "code", "message", "field", "ply", "outcome")


def _shape(err: ServiceError) -> dict[str, Any]:
    return {key: getattr(err, key) for key in SHAPE}


@pytest.mark.timeout(300)
async def test_the_same_bad_request_gets_the_same_error_both_ways(server: Server) -> None:
    async with (
        Ladder(server.url, retries=0) as http,
        Ladder(engines=1, retries=0) as local,
    ):
        assert http._http is not None
        for endpoint, body in BAD_REQUESTS:
            r = await http._http.post(f"/v1/{endpoint}", json=body)
            assert 400 <= r.status_code < 500, (body, r.text)
            over_http = ServiceError.from_dict(r.status_code, r.json())
            call = local.move if endpoint == "move" else local.position
            with pytest.raises(ServiceError) as raised:
                await call(**body)
            assert _shape(raised.value) == _shape(over_http), body
            if body.get("moves") and over_http.field and over_http.field.startswith("moves["):
                assert over_http.ply == int(over_http.field[6:-1]) + 1, body
