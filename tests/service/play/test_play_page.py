"""The /play page in a real browser (Debian's chromium, Playwright) against the real
``ladder serve``: whole games clicked, tapped, dragged and keyed through in every rule
set against level 1, each shown position checked against the service's own answers;
screenshots at desktop and phone sizes in test-artifacts/play/.

The player's moves are the service's level-5 moves (so the games are short and end),
except where a test needs a drop, an exploding capture or a key press.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from ladder.rules import Game
from tests.bridge.helpers import LADDER, RATED_LEVELS

from ..helpers import OUT_OF_BOOK, Server, start_server
from .driver import PHONE, WAIT_MS, Opener, PlayPage, ladder_move, position, removed_points

MINUS = "\u2212"  # the page writes negative scores with a real minus sign
#: A game longer than this (plies) is not the short game these tests mean to play.
MAX_PLIES = 300
#: The player's strength: well above level 1, and a search of a fraction of a second.
PLAYER_LEVEL = 5
REASON_WORDS = {
    "checkmate": "Checkmate",
    "stalemate": "No legal move",
    "general-exploded": "general exploded",
    "perpetual-check": "Perpetual check",
    "repetition": "repetition",
    "sixty-plies": "Sixty plies",
}


def general_at(variant: str, moves: list[str]) -> str:
    """The point of the general of the side to move."""
    game = Game.from_fen(variant, None, moves)
    letter = "K" if game.turn == "red" else "k"
    return next(
        f"{f}{r}" for f in "abcdefghi" for r in range(1, 11) if game.piece_at(f"{f}{r}") == letter
    )


def score_text(score: dict[str, int | None]) -> str:
    """The score as the page writes it."""
    if score["mate"] is not None:
        m = score["mate"]
        return f"mate in {m}" if m > 0 else f"mated in {-m}"
    if score["cp"] is not None:
        cp = score["cp"]
        return f"{'+' if cp >= 0 else MINUS}{abs(cp) / 100:.2f}"
    return "no score"


def check_shown(play: PlayPage, variant: str, moves: list[str], level: int, seed: int) -> None:
    """What the page shows of the position after `moves` is what the service says."""
    pos = position(play.url, variant, moves)
    state = play.data()
    assert state["moves"].split() == moves
    assert state["fen"] == pos["fen"]
    assert state["check"] == str(pos["check"]).lower()
    # (chessgroundx draws its squares on the next animation frame: wait for them)
    play.wait_marked("check", [general_at(variant, moves)] if pos["check"] else [])
    last = moves[-1]
    expected_last = [last[2:]] if "@" in last else sorted(re.findall(r"[a-i]\d{1,2}", last))
    play.wait_marked("last-move", expected_last)
    if variant == "atomic-xiangqi":
        assert play.blast_marks() == removed_points(variant, moves)
    # The ladder's last move, with its score, search and time, as the service gives it
    # for the same seed and level.
    ladder_ply = len(moves) if state["state"] == "your-turn" else None
    if ladder_ply:
        reply = ladder_move(play.url, variant, moves[: ladder_ply - 1], level, seed)
        assert reply["move"] == moves[ladder_ply - 1]
        info = play.page.locator("#engine-info")
        assert reply["move"] in info.locator("[data-field=move]").inner_text()
        score = info.locator("[data-field=score]").inner_text()
        # (the search's figures are behind "Details": read, not seen)
        search = info.locator("[data-field=search]").text_content() or ""
        cell = play.page.locator(f"#moves .move[data-ply='{ladder_ply}']")
        if reply["book"]:  # a book move is said to be one, scores shown or not
            assert "opening book" in score and "opening book" in search
            assert cell.locator(".book").inner_text() == "book"
        else:
            assert cell.locator(".book").count() == 0
            assert f"depth {reply['depth']}" in search and f"{reply['nodes']:,} nodes" in search
            if play.page.is_checked("#show-score"):
                assert score_text(reply["score"]) in score
                assert cell.locator(".meta").count() == 1
            else:  # the ladder's evaluation is hidden during the game unless asked for
                assert "hidden" in score
                assert play.page.locator("#moves .move .meta").count() == 0
        time = info.locator("[data-field=time]").text_content() or ""
        assert re.fullmatch(r"\d+ ms", time)


def check_ending(play: PlayPage, variant: str, moves: list[str]) -> None:
    """The end as the service sees it: position, outcome, reason, WXF move list, blasts."""
    pos = position(play.url, variant, moves)
    assert pos["outcome"] is not None
    state = play.data()
    assert state["state"] == "over"
    assert state["fen"] == pos["fen"]
    assert state["outcome"] == pos["outcome"]["reason"]
    status = play.text("#status")
    assert REASON_WORDS[pos["outcome"]["reason"]] in status
    assert pos["outcome"]["result"] in status
    assert play.page.locator("#moves .move b").all_inner_texts() == pos["wxf"]
    # the mating move is marked "mate", not "check"
    last_tags = play.page.locator("#moves .move").last.locator(".check").all_inner_texts()
    assert last_tags == (["mate"] if pos["outcome"]["reason"] == "checkmate" else
                         ["check"] if pos["check"] else [])  # fmt: skip
    if variant == "atomic-xiangqi":
        expected = [
            b for b in (removed_points(variant, moves[:p]) for p in range(1, len(moves) + 1)) if b
        ]
        assert play.page.evaluate("window.__bursts") == expected


def exploding_captures(variant: str, moves: list[str]) -> list[str]:
    """Legal non-cannon captures (in atomic-xiangqi: they explode)."""
    game = Game.from_fen(variant, None, moves)
    out = []
    for m in game.legal_moves():
        if "@" in m:
            continue
        frm, to = re.findall(r"[a-i]\d{1,2}", m)
        if game.piece_at(to) and (game.piece_at(frm) or "").lower() != "c":
            out.append(m)
    return sorted(out)


def play_game(
    play: PlayPage,
    variant: str,
    seed: int,
    choose: Callable[[list[str], int], tuple[str, str]],
    screenshot: Path | None = None,
) -> list[str]:
    """Play the page's game to its end; `choose(moves, n)` gives the player's n-th move
    (from 0) and how to make it. A screenshot of the game in progress at the 4th move."""
    state = play.wait_settled(0)
    moves = play.moves()
    n = 0
    while state["state"] != "over":
        assert len(moves) < MAX_PLIES, "the game did not end"
        move, how = choose(moves, n)
        play.play(move, how)
        state = play.wait_settled(len(moves) + 1)
        played = play.moves()
        assert played[: len(moves) + 1] == [*moves, move]
        moves = played
        check_shown(play, variant, moves, level=1, seed=seed)
        n += 1
        if n == 4 and screenshot is not None:
            play.screenshot(screenshot)
    check_ending(play, variant, moves)
    return moves


def test_xiangqi_game_desktop(server: Server, open_page: Opener, artifacts: Path) -> None:
    """Settings from the form; a whole game by mouse: tap-tap, one drag, one by keys."""
    play = open_page(server)
    play.page.goto(f"{server.url}/play")
    play.wait_settled(0)
    play.page.select_option("#variant", "xiangqi")
    play.page.select_option("#strength", "level:1")
    play.page.check("input[name=colour][value=red]")
    play.fill_seed("1")
    play.page.check("#show-score")  # (kept for the next games in this browser)
    play.page.click("#setup button[type=submit]")
    play.page.wait_for_function("() => document.getElementById('app').dataset.seed === '1'")

    def choose(moves: list[str], n: int) -> tuple[str, str]:
        move = ladder_move(server.url, "xiangqi", moves, PLAYER_LEVEL, seed=100)["move"]
        return move, {0: "keys", 1: "drag"}.get(n, "click")

    moves = play_game(play, "xiangqi", 1, choose, artifacts / "xiangqi-desktop-game.png")
    play.screenshot(artifacts / "xiangqi-desktop-end.png")
    assert len(moves) >= 3


def test_atomic_game_phone(server: Server, open_page: Opener, artifacts: Path) -> None:
    """A whole game on a phone-sized touch screen, as Black, with an exploding capture."""
    play = open_page(server, PHONE, variant="atomic-xiangqi", level=1, colour="black", seed=2)
    assert play.page.locator("#board.orientation-black").count() == 1
    exploded: list[str] = []

    def choose(moves: list[str], n: int) -> tuple[str, str]:
        captures = exploding_captures("atomic-xiangqi", moves)
        if captures and not exploded:
            exploded.append(captures[0])
            return captures[0], "tap"
        return ladder_move(server.url, "atomic-xiangqi", moves, PLAYER_LEVEL, seed=200)[
            "move"
        ], "tap"

    moves = play_game(play, "atomic-xiangqi", 2, choose, artifacts / "atomic-phone-game.png")
    play.screenshot(artifacts / "atomic-phone-end.png")
    assert exploded and exploded[0] in moves
    ply = moves.index(exploded[0]) + 1
    tag = play.page.locator(f"#moves .move[data-ply='{ply}'] .blast-tag")
    assert tag.get_attribute("title") == "removed " + " ".join(
        removed_points("atomic-xiangqi", moves[:ply])
    )


def test_crazyhouse_game_drops(server: Server, open_page: Opener, artifacts: Path) -> None:
    """A whole game as Black with drops from the hand: dragged, clicked and keyed."""
    play = open_page(server, variant="crazyhouse-xiangqi", level=1, colour="black", seed=3)
    assert play.page.locator("#pocket-bottom piece.a-piece[data-color=black]").count() == 1
    drops = {0: "drag", 1: "click", 2: "keys"}

    def choose(moves: list[str], n: int) -> tuple[str, str]:
        if n in drops:
            legal = position(server.url, "crazyhouse-xiangqi", moves)["legal_moves"]
            letter = "ABA"[n]
            drop = next(m for m in legal if m.startswith(letter + "@"))
            if n == 1:  # a piece picked up from the hand shows the legal drop points only
                play.hand_piece(letter).click()
                points = sorted(m[2:] for m in legal if m.startswith(letter + "@"))
                play.wait_marked("move-dest", points)
                play.hand_piece(letter).click()  # a second tap puts it back
                play.wait_marked("move-dest", [])
            return drop, drops[n]
        return ladder_move(server.url, "crazyhouse-xiangqi", moves, PLAYER_LEVEL, seed=300)[
            "move"
        ], "click"

    moves = play_game(
        play, "crazyhouse-xiangqi", 3, choose, artifacts / "crazyhouse-desktop-game.png"
    )
    play.screenshot(artifacts / "crazyhouse-desktop-end.png")
    assert sum("@" in m for m in moves[1::2]) >= 3


def test_wide_check_undo_reload(server: Server, open_page: Opener) -> None:
    """atomic-xiangqi's wide check is shown; undo takes back the player's move and the
    ladder's answer; the address keeps the game across a reload."""
    # After these moves Black is in check only in the wide sense: Red's chariot on d2
    # can take the advisor on d10, whose blast takes the general on e10, but nothing
    # attacks e10 itself (the checker accepts the position with Red to move).
    moves = ["a1a2", "a7a6", "a2d2"]
    game = Game.from_fen("atomic-xiangqi", None, moves)
    assert game.is_check()
    fen = game.fen().split()
    Game.from_fen("atomic-xiangqi", " ".join([fen[0], "w", *fen[2:]]))  # no direct attack
    play = open_page(
        server, variant="atomic-xiangqi", level=1, colour="black", seed=5, moves=",".join(moves)
    )
    assert play.data()["moves"].split() == moves
    play.wait_marked("check", ["e10"])
    assert "Check" in play.text("#status")

    mine = ladder_move(server.url, "atomic-xiangqi", moves, PLAYER_LEVEL, seed=500)["move"]
    play.play(mine)
    after = play.wait_settled(4)["moves"].split()
    assert after[:4] == [*moves, mine] and len(after) == 5
    play.page.click("#undo")
    play.page.wait_for_function("() => document.getElementById('app').dataset.ply === '3'")
    assert play.wait_settled(3)["moves"].split() == moves
    play.wait_marked("check", ["e10"])
    assert play.page.locator("#moves .move").count() == 3

    play.play(mine)
    assert play.wait_settled(4)["moves"].split() == after  # same seed: same answer
    play.page.reload()
    state = play.wait_settled(5)
    assert state["moves"].split() == after
    assert state["fen"] == position(server.url, "atomic-xiangqi", after)["fen"]


@pytest.mark.parametrize(
    "variant",
    [
        "xiangqi",
        # (the same page code; the whole games above play these rule sets)
        pytest.param("atomic-xiangqi", marks=pytest.mark.slow),
        pytest.param("crazyhouse-xiangqi", marks=pytest.mark.slow),
    ],
)
def test_every_level(server: Server, open_page: Opener, variant: str) -> None:
    """Each of the eight levels can be chosen and plays: the page asks for that level."""
    play = open_page(server)
    asked = play.bodies_sent("/v1/move")
    play.page.goto(f"{server.url}/play")
    play.wait_settled(0)
    play.page.select_option("#variant", variant)
    options = play.page.locator("#strength option").all_inner_texts()
    names = [o.split(" · ")[0] for o in options]
    assert [n for n in names if n.startswith("Level")] == [f"Level {n}" for n in range(1, 9)]
    play.page.check("input[name=colour][value=black]")
    play.fill_seed("11")
    for level in range(1, 9):
        play.page.select_option("#strength", f"level:{level}")
        play.page.click("#setup button[type=submit]")
        play.page.wait_for_function(
            "n => document.getElementById('game-title').textContent.endsWith(`Level ${n}`)",
            arg=level,
        )
        state = play.wait_settled(1)
        first = state["moves"].split()[0]
        assert asked[-1] == {"variant": variant, "moves": [], "level": level, "seed": 11}
        assert first in play.text("#engine-info [data-field=move]")


def test_busy_shown_and_retried(open_page: Opener, artifacts: Path) -> None:
    """503 busy is said plainly with its retry time, and the page tries again by itself.
    One engine, no queue; the engine is held by another client's request while it is
    stopped (SIGSTOP), so the page's request finds every engine busy. Then that client
    goes away (the service cancels its search) and the engine goes on (SIGCONT)."""
    server = start_server("--max-queue", "0", engines=1)
    try:
        play = open_page(server, variant="xiangqi", level=1, colour="red", seed=7)
        (engine,) = server.engine_pids()
        os.kill(engine, signal.SIGSTOP)
        # (past the books: a book move would need no engine, and an idle stopped engine
        # is found frozen by the pool's idle check and replaced)
        blocked = {"variant": "xiangqi", "moves": OUT_OF_BOOK, "level": 8, "seed": 1}
        body = json.dumps(blocked).encode()
        blocker = server.connect()
        blocker.sendall(
            b"POST /v1/move HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        server.wait_health(lambda health: health["engines_busy"] == 1, WAIT_MS / 1000)
        play.play("a4a5")  # out of the book: the reply needs an engine
        error = play.page.locator("#error[data-code=busy]")
        error.wait_for(state="visible", timeout=WAIT_MS)
        text = error.inner_text()
        assert "busy" in text and "503" in text and re.search(r"Trying again in \d+ s", text)
        play.screenshot(artifacts / "busy-desktop.png")
        blocker.close()
        os.kill(engine, signal.SIGCONT)
        state = play.wait_settled(1, through_errors=True)
        assert state["moves"].split()[0] == "a4a5" and len(state["moves"].split()) == 2
        assert play.page.locator("#error").is_hidden()
        play.page.context.close()  # before the server goes: the page would call it again
    finally:
        for pid in server.engine_pids():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
        server.stop()


def test_refused_game_is_said(server: Server, open_page: Opener) -> None:
    """A game the service refuses (an address with an illegal move) is said plainly,
    with the service's reason, and "New game" starts over."""
    play = open_page(server)
    play.page.goto(f"{server.url}/play?variant=xiangqi&level=1&colour=red&moves=h3e3,h3e3")
    error = play.page.locator("#error[data-code=illegal_move]")
    error.wait_for(state="visible", timeout=WAIT_MS)
    text = error.inner_text()
    assert "moves[1]" in text and "422" in text and "h3e3" in text
    assert play.data()["state"] == "error"
    # the status line does not say it is still checking under the error
    assert "Checking" not in play.page.locator("#status").inner_text()
    play.page.click("#retry")
    assert play.wait_settled(0)["moves"] == ""
    assert play.page.locator("#error").is_hidden()
    # a seed the page refuses: no game, so nothing to step through or export (the step
    # buttons threw "Cannot read properties of null", a page error the driver fails on)
    play.page.goto(f"{server.url}/play?variant=xiangqi&level=1&colour=red&seed=abc")
    play.page.locator("#error[data-code=page]").wait_for(state="visible", timeout=WAIT_MS)
    for button in ("first", "back", "forward", "last", "pgn-notation", "pgn-iccs"):
        assert play.page.locator(f"#{button}").is_disabled(), button
    play.page.keyboard.press("ArrowLeft")
    assert "Loading" not in play.page.locator("#status").inner_text()


def test_any_elo_once_the_levels_are_measured(
    tmp_path: Path, open_page: Opener, artifacts: Path
) -> None:
    """With every level rated, the page offers Elo steps between level 1's and level
    8's; choosing one asks the service for that `elo` and keeps it in the address."""
    rated = tmp_path / "rated.toml"
    # levels rated 100..800; level 3's figures end in .5, which Python rounds to even
    rated.write_text(
        RATED_LEVELS.replace("elo = 300.0\n", "elo = 300.5\n").replace(
            "elo_lo = 260.0\n", "elo_lo = 262.5\n"
        )
    )
    listed = subprocess.run(
        [LADDER, "levels", "--levels", str(rated)], capture_output=True, text=True, check=True
    ).stdout
    assert "300 [262,340]" in listed, listed
    server = start_server("--levels", str(rated), engines=1)
    try:
        play = open_page(server)
        asked = play.bodies_sent("/v1/move")
        play.page.goto(f"{server.url}/play")
        play.wait_settled(0)
        texts = play.page.locator("#strength option").all_inner_texts()
        assert texts[0].startswith("Level 1 · Elo 100 (60\u2013140, 200 games)"), texts
        # the page prints a rating as `ladder levels` does
        assert texts[2].startswith("Level 3 · Elo 300 (262\u2013340, 200 games)"), texts
        # a rated level's long option keeps inside the setup box (it once stretched it
        # past the panel's edge)
        select, box = (play.page.locator(x).bounding_box() for x in ("#strength", "#setup"))
        assert select is not None and box is not None
        assert select["x"] + select["width"] <= box["x"] + box["width"], (select, box)
        assert "with its 95 % interval" in (play.page.text_content("#strength-help") or "")
        values = play.page.eval_on_selector_all("#strength option", "os => os.map(o => o.value)")
        assert [v for v in values if v.startswith("elo:")] == [
            f"elo:{e}" for e in range(100, 900, 100)
        ]
        play.page.check("input[name=colour][value=black]")
        play.fill_seed("5")
        play.page.select_option("#strength", "elo:400")
        play.page.click("#setup button[type=submit]")
        play.page.wait_for_function(
            "() => document.getElementById('game-title').textContent.includes('Elo 400')"
        )
        state = play.wait_settled(1)
        assert asked[-1] == {"variant": "xiangqi", "moves": [], "elo": 400, "seed": 5}
        assert "elo=400" in play.page.url
        play.page.reload()
        assert play.wait_settled(1)["moves"] == state["moves"]  # the same game comes back
        play.screenshot(artifacts / "elo-desktop.png")
        play.page.context.close()
    finally:
        server.stop()
