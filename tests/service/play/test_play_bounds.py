"""The bounds of a game on the /play page: a game that reaches the service's 1,000 plies
a request ends there with a plain explanation (never a validation message); an address
longer than that is said; a game longer than the analysis bound is analysed in parts
through `from_ply`, and its summary is the whole game's."""

from __future__ import annotations

import json

import httpx
from playwright.sync_api import Response

from ladder.rules import Game
from ladder.rules.random_play import unfinished_random_game as long_game

from ..helpers import Server, start_server
from .driver import WAIT_MS, Opener
from .test_play_analysis import NODES

MAX_MOVES = 1000


def test_game_past_the_move_bound(server: Server, open_page: Opener) -> None:
    """998 plies from the address; the player's move and the ladder's answer make 1,000:
    the game ends there, a draw, said plainly; nothing was refused."""
    moves = long_game("crazyhouse-xiangqi", MAX_MOVES - 2, seed=1)
    limits = httpx.get(f"{server.url}/v1/variants", timeout=30).json()["limits"]
    assert limits["max_moves"] == MAX_MOVES
    play = open_page(server)
    refused: list[str] = []

    def record(response: Response) -> None:
        if response.status >= 400:
            refused.append(f"{response.status} {response.url}")

    play.page.on("response", record)
    play.open(variant="crazyhouse-xiangqi", level=1, colour="red", seed=1, moves=",".join(moves))
    game = Game.from_fen("crazyhouse-xiangqi", None, moves)
    mine = next(m for m in sorted(game.legal_moves()) if "@" not in m)
    play.play(mine)
    state = play.wait_settled(MAX_MOVES)
    assert state["state"] == "over" and state["outcome"] == "move-limit", state
    assert len(state["moves"].split()) == MAX_MOVES
    assert play.text("#status") == "Stopped at 1,000 plies: a draw (1/2-1/2)."
    assert "the most the service takes in one request" in play.text("#offer-answer")
    assert play.page.locator("#error").is_hidden() and not refused
    assert play.page.locator("#undo").is_disabled()


def test_address_past_the_bound_is_said(server: Server, open_page: Opener) -> None:
    moves = long_game("crazyhouse-xiangqi", MAX_MOVES + 1, seed=2)
    play = open_page(server)
    play.page.goto(
        f"{server.url}/play?variant=crazyhouse-xiangqi&level=1&seed=1&moves={','.join(moves)}"
    )
    error = play.page.locator("#error[data-code=bad_address]")
    error.wait_for(state="visible", timeout=WAIT_MS)
    assert "1,001 plies; the service takes at most 1,000" in error.inner_text()


def test_longer_game_analysed_in_parts(server: Server, open_page: Opener) -> None:
    """A service analysing at most 4 plies a request: a 10-ply game is analysed in
    three requests (from plies 1, 5, 9), every ply judged; the summary's counts and
    average loss are the whole game's, as one stream of a service without that bound
    gives them (its accuracy, not an average of the parts', is left out)."""
    moves = long_game("xiangqi", 10, seed=3)
    bounded = start_server("--analysis-max-plies", "4", engines=1)
    try:
        play = open_page(bounded)
        asked = play.bodies_sent("/v1/analysis")
        play.open(variant="xiangqi", level=1, colour="red", seed=3, moves=",".join(moves))
        play.page.select_option("#analysis-nodes", str(NODES))
        play.page.click("#analyse")
        play.page.locator("#graph[data-state=done]").wait_for(timeout=WAIT_MS)
        assert [(len(b["moves"]), b["from_ply"]) for b in asked] == [(4, 1), (8, 5), (10, 9)]
        assert play.page.get_attribute("#graph", "data-plies") == "10"
        body = {"variant": "xiangqi", "moves": moves, "nodes": NODES}
        with httpx.stream("POST", f"{server.url}/v1/analysis", json=body, timeout=120) as r:
            lines = [json.loads(line) for line in r.iter_lines() if line]
        whole = lines[-1]
        assert whole["type"] == "summary"
        for side in ("red", "black"):
            row = play.page.locator(f"#summary tr[data-side={side}] td").all_inner_texts()
            s = whole[side]
            assert row[1:4] == [str(s["inaccuracies"]), str(s["mistakes"]), str(s["blunders"])]
            assert row[4] == str(round(s["mean_loss_cp"])) and row[5] == "\u2013", (row, s)
        play.page.context.close()
    finally:
        bounded.stop()
