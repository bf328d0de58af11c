"""The /play page's notation switch (ladder/service/play/notation.js): WXF, 中文 (in the
characters of the page's language) or coordinates, for the move list, the analysis and
the PGN export, each move as the service writes it (POST /v1/position's `notations`)."""

from __future__ import annotations

import re

import httpx

from ..helpers import Server
from .driver import DESKTOP, WAIT_MS, Opener, PlayPage
from .test_play_analysis import NODES


def notations(url: str, moves: list[str]) -> dict[str, list[str]]:
    body = {"variant": "xiangqi", "moves": moves,
            "notations": ["wxf", "chinese", "chinese-traditional"]}  # fmt: skip
    reply = httpx.post(f"{url}/v1/position", json=body, timeout=60)
    assert reply.status_code == 200, reply.text
    return dict(reply.json()["notations"])


def shown(play: PlayPage) -> list[str]:
    return play.page.locator("#moves .move b").all_inner_texts()


def test_notation_switch(server: Server, open_page: Opener) -> None:
    play = open_page(server, variant="xiangqi", level=1, colour="red", seed=31)
    moves = play.play_service_moves("xiangqi", 6, level=5, seed=3100)
    written = notations(server.url, moves)
    assert play.page.input_value("#notation") == "wxf"  # the default in English
    assert shown(play) == written["wxf"]
    play.page.select_option("#notation", "chinese")
    assert shown(play) == written["chinese"]
    assert play.text("#moves-notation") == "(中文)"
    # the ladder's last move in it too
    assert written["chinese"][-1] in play.text("#engine-info [data-field=move]")
    pgn = play.download("#pgn-notation")
    assert '[Format "Chinese"]' in pgn
    body = pgn.split("\n\n", 1)[1]
    assert [t for t in body.split() if not re.fullmatch(r"\d+\.|\*", t)] == written["chinese"]
    play.page.select_option("#language", "zh-Hant")  # 中文 in 繁體 characters
    play.page.wait_for_function("() => document.documentElement.lang === 'zh-Hant'")
    assert shown(play) == written["chinese-traditional"]
    play.page.select_option("#notation", "coordinates")
    assert shown(play) == moves
    # the analysis in the notation chosen
    play.page.select_option("#notation", "chinese")
    play.page.select_option("#analysis-nodes", str(NODES))
    asked = play.bodies_sent("/v1/analysis")
    play.page.click("#analyse")
    play.page.locator("#graph[data-state=done]").wait_for(timeout=WAIT_MS)
    assert asked[0]["notations"] == ["wxf", "chinese", "chinese-traditional"]
    play.page.keyboard.press("End")
    line = play.text("#best-line")
    assert written["chinese-traditional"][-1] in line, line


def test_chinese_by_default_in_chinese(server: Server, open_page: Opener) -> None:
    play = open_page(server, {**DESKTOP, "locale": "zh-CN"}, level=1, colour="red", seed=32)
    play.play("h3e3")
    moves = play.wait_settled(2)["moves"].split()
    assert play.page.input_value("#notation") == "chinese"
    assert shown(play) == notations(server.url, moves)["chinese"]
