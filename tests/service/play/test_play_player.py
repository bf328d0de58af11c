"""What a player expects of the /play page (issue 39): book moves said to be book moves,
the mating move marked "mate", the ladder's last move, the mate and the result still
there after a reload, a board that flips, an address asking for what the ladder does
not have said so (not replaced by xiangqi level 1), the seed behind "Details" and the
ladder's strength and time per move on the board's edge."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.sync_api import Request

from ..helpers import Server
from .driver import WAIT_MS, Opener, ladder_move
from .test_play_page import PLAYER_LEVEL, play_game


def test_reload_restores_the_last_move_mate_and_result(server: Server, open_page: Opener) -> None:
    """A whole game to its mate; after a reload the ladder's last move (its book flag or
    its search), the "mate" tag and the result are as they were."""
    play = open_page(server, variant="xiangqi", level=1, colour="red", seed=1)

    def choose(moves: list[str], n: int) -> tuple[str, str]:
        return ladder_move(server.url, "xiangqi", moves, PLAYER_LEVEL, seed=100)["move"], "click"

    moves = play_game(play, "xiangqi", 1, choose)
    assert play.data()["outcome"] == "checkmate"
    # the ladder's first answers came from its book, and say so
    assert play.page.locator("#moves .move[data-ply='2'] .book").inner_text() == "book"
    before = {
        "status": play.text("#status"),
        "engine": play.page.locator("#engine-info").text_content(),
        "tags": play.page.locator("#moves .move").last.locator(".check").all_inner_texts(),
        "books": play.page.locator("#moves .book").count(),
    }
    assert before["tags"] == ["mate"]
    play.page.reload()
    state = play.wait_settled(len(moves))
    assert state["moves"].split() == moves and state["outcome"] == "checkmate"
    play.page.wait_for_function(
        "() => !document.getElementById('engine-info').textContent.includes('None')"
    )
    after = {
        "status": play.text("#status"),
        "engine": play.page.locator("#engine-info").text_content(),
        "tags": play.page.locator("#moves .move").last.locator(".check").all_inner_texts(),
        "books": play.page.locator("#moves .book").count(),
    }
    assert after == before


def test_resignation_survives_a_reload(server: Server, open_page: Opener) -> None:
    play = open_page(server, variant="xiangqi", level=1, colour="red", seed=6)
    play.play("h3e3")
    play.wait_settled(2)
    play.page.click("#resign")
    play.page.click("#resign")
    assert play.wait_settled(2)["outcome"] == "resigned"
    status = play.text("#status")
    play.page.reload()
    assert play.wait_settled(2)["outcome"] == "resigned"
    assert play.text("#status") == status
    ladder_said = play.text("#engine-info [data-field=move]")
    # a new tab (a shared link) has only the address: the game goes on there, and the
    # ladder's last move is asked again (the seed reproduces it)
    other = open_page(server)
    other.page.goto(play.page.url)
    assert other.wait_settled(2)["state"] == "your-turn"
    other.page.locator("#engine-info [data-field=move]").wait_for(timeout=WAIT_MS)
    assert other.text("#engine-info [data-field=move]") == ladder_said


def test_flip_the_board(server: Server, open_page: Opener) -> None:
    play = open_page(server, variant="xiangqi", level=1, colour="red", seed=2)
    assert play.page.locator("#board.orientation-white").count() == 1
    ladder_name, my_name = play.text("#top-name"), play.text("#bottom-name")
    play.page.click("#flip")
    play.page.locator("#board.orientation-black").wait_for(timeout=WAIT_MS)
    assert play.page.get_attribute("#flip", "aria-pressed") == "true"
    assert (play.text("#top-name"), play.text("#bottom-name")) == (my_name, ladder_name)
    # the player still moves on the flipped board (the driver clicks where h3 is drawn)
    play.play("h3e3")
    assert play.wait_settled(2)["moves"].split()[0] == "h3e3"
    play.wait_pieces("xiangqi", play.moves())
    assert play.page.locator("#board.orientation-black").count() == 1
    play.page.click("#flip")
    play.page.locator("#board.orientation-white").wait_for(timeout=WAIT_MS)
    assert play.text("#top-name") == ladder_name


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ("variant=chess&level=3", "“chess”"),
        ("variant=xiangqi&level=9", "level 9"),
        ("level=abc", "level abc"),
        ("colour=green", "“green”"),
        ("clock=abc", "“abc”"),
    ],
)
def test_wrong_address_is_said(server: Server, open_page: Opener, query: str, named: str) -> None:
    play = open_page(server)
    asked: list[str] = []

    def record(request: Request) -> None:
        if "/v1/move" in request.url or "/v1/position" in request.url:
            asked.append(request.url)

    play.page.on("request", record)
    play.page.goto(f"{server.url}/play?{query}")
    error = play.page.locator("#error[data-code=bad_address]")
    error.wait_for(state="visible", timeout=WAIT_MS)
    assert named in error.inner_text()
    assert play.data()["state"] == "error" and not asked  # no game started in its place
    play.page.click("#retry")  # "New game"
    assert play.wait_settled(0)["moves"] == ""
    assert "chess" not in play.page.url


def test_details_and_the_ladders_strength(server: Server, open_page: Opener) -> None:
    play = open_page(server, variant="xiangqi", level=3, colour="red", seed=3)
    # the developer's controls are behind "Details"
    assert not play.page.locator("#seed").is_visible()
    assert not play.page.locator("#strength-help").is_visible()
    play.page.click("#setup-more summary")
    assert play.page.locator("#seed").is_visible()
    # the ladder's strength and time per move, as GET /v1/levels gives them
    table: dict[str, Any] = httpx.get(f"{server.url}/v1/levels", timeout=30).json()
    info = next(i for i in table["levels"]["xiangqi"] if i["level"] == 3)
    assert play.text("#top-name") == "Level 3 · Black"
    strength = play.text("#top-strength")
    assert strength.startswith(f"Elo {round(info['rating']['elo'])}" if info["rating"] else
                               "unrated"), strength  # fmt: skip
    if info["expected_seconds"] is not None:
        assert strength.endswith("/move")
