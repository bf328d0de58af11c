"""``notations`` in ``/v1/move``, ``/v1/position`` and ``/v1/analysis`` requests, against
a real ``ladder serve``: the moves written in WXF and Chinese (both scripts) beside the
coordinates, each reading back as its move; lean answers when none is asked for; an
unknown notation refused by name."""

from __future__ import annotations

from typing import Any

import pytest

from ladder.notation.chinese import parse_chinese
from ladder.notation.wxf import parse_wxf
from ladder.rules import Game

from .helpers import OUT_OF_BOOK, Server
from .test_analysis import stream

ALL = ["wxf", "chinese", "chinese-traditional"]
OPENING = ["h3e3", "h10g8", "h1g3", "i10h10"]


def reads_back(game: Game, notation: str, text: str) -> str:
    """The move ``text`` names in ``game``, read by the notation's own reader."""
    return parse_wxf(game, text) if notation == "wxf" else parse_chinese(game, text)


def post(server: Server, path: str, body: dict[str, Any]) -> dict[str, Any]:
    with server.client() as http:
        reply = http.post(path, json=body)
    assert reply.status_code == 200, reply.text
    answer: dict[str, Any] = reply.json()
    return answer


@pytest.mark.parametrize(
    ("variant", "moves"),
    [("xiangqi", OUT_OF_BOOK), ("atomic-xiangqi", OUT_OF_BOOK), ("crazyhouse-xiangqi", [])],
)
def test_move_in_the_notations_asked_for(server: Server, variant: str, moves: list[str]) -> None:
    body = {"variant": variant, "moves": moves, "level": 2, "seed": 39}
    plain = post(server, "/v1/move", body)
    asked = post(server, "/v1/move", {**body, "notations": ALL})
    assert "notations" not in plain  # lean when none is asked for
    assert sorted(asked["notations"]) == sorted(ALL)
    assert {k: v for k, v in asked.items() if k not in ("notations", "time_ms")} == {
        k: v for k, v in plain.items() if k != "time_ms"
    }
    game = Game.from_fen(variant, None, moves)
    for notation, text in asked["notations"].items():
        assert text != asked["move"] and reads_back(game, notation, text) == asked["move"]


def test_position_writes_the_standard_opening(server: Server) -> None:
    body = {"variant": "xiangqi", "moves": OPENING}
    plain = post(server, "/v1/position", body)
    asked = post(server, "/v1/position", {**body, "notations": ["chinese", "chinese-traditional"]})
    assert "notations" not in plain and plain["wxf"] is None
    assert asked["notations"] == {
        "chinese": ["炮二平五", "马８进７", "马二进三", "车９平８"],
        "chinese-traditional": ["炮二平五", "馬８進７", "傌二進三", "車９平８"],
    }
    assert {k: v for k, v in asked.items() if k != "notations"} == plain


def test_position_wxf_true_keeps_working_beside_notations(server: Server) -> None:
    body = {"variant": "crazyhouse-xiangqi", "moves": ["A@e2", "h10g8", "B@c5"]}
    both = post(server, "/v1/position", {**body, "wxf": True, "notations": ["chinese", "wxf"]})
    assert both["wxf"] == ["A@52", "H8+7", "E@75"] == both["notations"]["wxf"]
    assert both["notations"]["chinese"] == ["仕打五二", "马８进７", "相打七五"]


@pytest.mark.parametrize("path", ["/v1/move", "/v1/position", "/v1/analysis"])
def test_an_unknown_notation_is_refused_by_name(server: Server, path: str) -> None:
    body = {"variant": "xiangqi", "moves": ["h3e3"], "level": 1, "notations": ["chinese", "san"]}
    if path != "/v1/move":
        del body["level"]
    with server.client() as http:
        reply = http.post(path, json=body)
    assert reply.status_code == 422, reply.text
    error = reply.json()["error"]
    assert error["field"] == "notations[1]"
    assert (
        "unknown notation 'san'" in error["message"] and "chinese-traditional" in error["message"]
    )


def test_analysis_lines_in_the_notations_asked_for(server: Server) -> None:
    body = {"variant": "xiangqi", "moves": OPENING, "nodes": 3000}
    plain = [line for line in stream(server, body) if line["type"] == "ply"]
    asked = [line for line in stream(server, {**body, "notations": ALL}) if line["type"] == "ply"]
    assert all("notations" not in line for line in plain)
    assert [line["notations"]["chinese"]["move"] for line in asked] == [
        "炮二平五",
        "马８进７",
        "马二进三",
        "车９平８",
    ]
    game = Game.from_fen("xiangqi")
    for line, before in zip(asked, plain, strict=True):
        assert {k: v for k, v in line.items() if k != "notations"} == before
        for notation, written in line["notations"].items():
            assert reads_back(game, notation, written["move"]) == line["move"]
            assert written["best"] is not None and written["pv"]
            assert reads_back(game, notation, written["best"]) == line["best"]
            assert written["pv"][0] == written["best"] and len(written["pv"]) == len(line["pv"])
        assert line["notations"]["wxf"]["pv"] == line["pv_wxf"]
        game.push(line["move"])
