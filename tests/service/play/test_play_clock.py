"""The /play page's game clock (ladder/service/play/clock.js): chosen before the game or
given in the address; the ladder moves on its clock through POST /v1/move's
`remaining_ms`, its time being the request's round trip; a fallen flag loses; undo is
off on a clock; a reload keeps the times."""

from __future__ import annotations

import re
from itertools import pairwise

import pytest

from ..helpers import Server
from .driver import WAIT_MS, Opener, PlayPage, ladder_move
from .test_play_page import play_game

#: The player's strength in the whole game on a clock: the ladder's strongest.
STRONG = 8
CLOCK_TEXT = re.compile(r"^\d+:\d\d(\.\d)?$")


def clock_ms(play: PlayPage, where: str) -> int:
    text = play.text(f"#{where}-clock")
    assert CLOCK_TEXT.match(text), text
    return int(play.page.get_attribute(f"#{where}-clock", "data-ms") or "-1")


def test_lost_on_time(server: Server, open_page: Opener) -> None:
    """`?clock=0.1+0`: six seconds each. The ladder (Red) moves on its clock, the player
    (Black) lets the flag fall and loses; undo is off; a reload keeps the ending."""
    play = open_page(server)
    asked = play.bodies_sent("/v1/move")
    play.page.goto(f"{server.url}/play?variant=xiangqi&level=1&colour=black&seed=8&clock=0.1%2B0")
    play.wait_settled(1)
    (body,) = asked
    assert body["clock"]["increment_ms"] == 0 and 0 < body["clock"]["remaining_ms"] <= 6000
    assert play.page.get_attribute("#bottom-clock", "data-side") == "black"
    assert play.page.locator("#bottom-clock.running").count() == 1
    assert 0 < clock_ms(play, "top") <= 6000  # the ladder's, less its round trip
    assert play.page.locator("#undo").is_disabled()  # no take-backs on a clock
    # the flag falls: the game is over
    play.page.wait_for_function(
        "() => document.getElementById('app').dataset.state === 'over'", timeout=WAIT_MS
    )
    state = play.data()
    assert state["state"] == "over" and state["outcome"] == "time"
    assert play.text("#status") == "Time forfeit: Level 1 wins (1-0)."
    assert play.text("#bottom-clock") == "0:00.0" and clock_ms(play, "bottom") == 0
    assert "Your time ran out" in play.text("#offer-answer")
    assert "clock=0.1%2B0" in play.page.url
    pgn = play.download("#pgn-iccs")  # the PGN standard's form: seconds + increment
    assert '[TimeControl "6+0"]' in pgn and '[Termination "Time forfeit"]' in pgn
    play.page.reload()
    state = play.wait_settled(1)
    assert state["outcome"] == "time" and play.text("#bottom-clock") == "0:00.0"


def test_clock_chosen_in_the_form(server: Server, open_page: Opener) -> None:
    """The form offers none, 5+3, 10+5, 15+10; a clocked game shows both clocks, runs
    the player's on their turn and adds the increment after their move."""
    play = open_page(server, variant="xiangqi", level=1, colour="red", seed=9)
    assert play.page.locator("#bottom-clock").is_hidden()  # no clock by default
    options = play.page.eval_on_selector_all("#clock option", "os => os.map(o => o.value)")
    assert options == ["none", "5+3", "10+5", "15+10"]
    asked = play.bodies_sent("/v1/move")
    play.page.select_option("#clock", "5+3")
    play.page.click("#setup button[type=submit]")
    play.page.wait_for_function("() => !document.getElementById('bottom-clock').hidden")
    play.wait_settled(0)
    assert clock_ms(play, "top") == 300_000 and clock_ms(play, "bottom") <= 300_000
    play.play("h3e3")
    play.wait_settled(2)
    assert asked[-1]["clock"] == {"remaining_ms": asked[-1]["clock"]["remaining_ms"],
                                  "increment_ms": 3000}  # fmt: skip
    assert 295_000 < asked[-1]["clock"]["remaining_ms"] <= 300_000
    # after its move each side got 3 s: over its five minutes less the time it took
    assert 300_000 < clock_ms(play, "top") <= 303_000
    assert clock_ms(play, "bottom") <= 303_000
    assert "clock=5%2B3" in play.page.url


@pytest.mark.slow
def test_whole_game_on_a_clock_won(server: Server, open_page: Opener) -> None:
    """5+3: the test plays the service's level-8 moves (a fixed seed) against level 1
    and wins; every ladder move was asked with its clock, whose time goes down by each
    round trip and up by the increment; no flag fell."""
    play = open_page(server)
    asked = play.bodies_sent("/v1/move")
    play.page.goto(f"{server.url}/play?variant=xiangqi&level=1&colour=red&seed=12&clock=5%2B3")

    def choose(moves: list[str], n: int) -> tuple[str, str]:
        return ladder_move(server.url, "xiangqi", moves, STRONG, seed=1200)["move"], "click"

    play_game(play, "xiangqi", 12, choose)
    state = play.data()
    assert state["outcome"] != "time"
    assert f"you win ({'1-0'})" in play.text("#status"), play.text("#status")
    clocks = [body["clock"] for body in asked]
    assert len(clocks) == len(state["moves"].split()) // 2
    assert all(c["increment_ms"] == 3000 for c in clocks)
    remaining = [c["remaining_ms"] for c in clocks]
    assert 299_000 < remaining[0] <= 300_000
    # each request's time left: the last one's, less its round trip, plus 3 s
    assert all(b <= a + 3000 for a, b in pairwise(remaining))
    assert min(remaining) > 0 and clock_ms(play, "bottom") > 0
