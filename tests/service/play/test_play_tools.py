"""What a player expects of the /play page beyond playing moves, in a real browser
against the real ``ladder serve``: legal captures visible on screen (pixels, not only
the DOM), stepping through the game by buttons, keys and the move list, the ladder's
evaluation hidden until asked for, resigning, a draw offer judged by the ladder's own
evaluation, a slow level's clock against its expected time, and the game as PGN that
an independent reader (cchess) replays."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any, cast

import cchess  # type: ignore[import-untyped]
import httpx
from PIL import Image
from playwright.sync_api import expect

from ladder.match.output.pgn import read_pgn, replay

from ..helpers import Server
from .driver import Opener, PlayPage, ladder_move, position

#: The player's strength where the test needs real moves (a fraction of a second each).
PLAYER_LEVEL = 5
#: The page's capture ring colour (play.css, --accent).
ACCENT = (31, 111, 139)


def ring_and_core(before: bytes, after: bytes) -> tuple[float, float]:
    """Two screenshots of one point's cell: the share of the pixels on the piece's rim
    (a ring from 0.82 to 0.98 of the half cell) that turned to the accent colour, and
    the share of the piece's middle (within 0.5) that changed at all."""
    a = Image.open(io.BytesIO(before)).convert("RGB")
    b = Image.open(io.BytesIO(after)).convert("RGB")
    assert a.size == b.size
    w, h = a.size
    cx, cy, half = w / 2, h / 2, min(w, h) / 2
    # RGB images: a (r, g, b) tuple per pixel, row by row
    pixels_a = cast(tuple[tuple[int, ...], ...], a.get_flattened_data())
    pixels_b = cast(tuple[tuple[int, ...], ...], b.get_flattened_data())

    def distance(p: tuple[int, ...], q: tuple[int, ...]) -> int:
        return sum(abs(i - j) for i, j in zip(p, q, strict=True))

    ring = turned = core = changed = 0
    for y in range(h):
        for x in range(w):
            r = ((x + 0.5 - cx) ** 2 + (y + 0.5 - cy) ** 2) ** 0.5 / half
            pa, pb = pixels_a[y * w + x], pixels_b[y * w + x]
            diff = distance(pa, pb)
            if 0.82 <= r <= 0.98:
                ring += 1
                turned += int(diff > 60 and distance(pb, ACCENT) < distance(pa, ACCENT))
            elif r < 0.5:
                core += 1
                changed += int(diff > 60)
    return turned / ring, changed / core


def test_legal_capture_ringed_on_screen(server: Server, open_page: Opener, artifacts: Path) -> None:
    """Pick the h3 cannon at the start: h10 (a horse) is a legal capture, and the ring
    round it is on the screen, over the piece, which stays visible inside it."""
    play = open_page(server, variant="xiangqi", level=1, colour="red", seed=1)
    legal = position(server.url, "xiangqi", [])["legal_moves"]
    assert "h3h10" in legal
    clip = play.point_clip("h10")
    before = play.page.screenshot(clip=clip)
    play.click_point("h3")
    play.wait_marked("move-dest", [m[2:] for m in legal if m.startswith("h3")])
    assert play.marked("oc") == ["h10"]  # (the DOM's part: chessgroundx's capture class)
    after = play.page.screenshot(clip=clip)
    play.screenshot(artifacts / "capture-ring-desktop.png")
    ring, core = ring_and_core(before, after)
    assert ring > 0.6, f"only {ring:.0%} of the rim shows the capture ring"
    assert core < 0.05, f"{core:.0%} of the piece under the ring changed"
    # and a quiet destination's dot is not ringed that way
    clip = play.point_clip("h5")
    assert play.marked("move-dest").count("h5") == 1
    ring, _ = ring_and_core(
        before=play.page.screenshot(clip=clip), after=play.page.screenshot(clip=clip)
    )
    assert ring == 0


def wait_view(play: PlayPage, ply: int) -> None:
    play.page.wait_for_function(
        "n => document.getElementById('app').dataset.viewPly === String(n)", arg=ply
    )


def test_step_through_the_game_and_back(server: Server, open_page: Opener) -> None:
    """Buttons, the arrow keys, Home/End and the move list step through the game; the
    board shows each position (and takes no move there); End goes back, and the game
    goes on with every move kept. The ladder's evaluation is hidden until asked for."""
    play = open_page(server, variant="xiangqi", level=1, colour="red", seed=4)
    moves = play.play_service_moves("xiangqi", 6, level=PLAYER_LEVEL, seed=400)
    last = ladder_move(server.url, "xiangqi", moves[:-1], 1, seed=4)
    shown = "opening book" if last["book"] else "hidden"  # a book move has no score to hide
    assert shown in play.text("#engine-info [data-field=score]")
    assert play.page.locator("#moves .meta").count() == 0

    play.page.click("#moves-heading")  # focus off the board: the arrows step the game
    play.page.keyboard.press("ArrowLeft")
    play.page.keyboard.press("ArrowLeft")
    wait_view(play, len(moves) - 2)
    play.wait_pieces("xiangqi", moves[:-2])
    play.wait_marked("last-move", sorted(re.findall(r"[a-i]\d{1,2}", moves[-3])))
    assert play.data()["viewing"] == "true" and play.data()["ply"] == str(len(moves))
    assert play.page.locator(f"#moves .move.shown[data-ply='{len(moves) - 2}']").count() == 1
    play.click_point("e4")  # a Red soldier: no destinations offered in the past
    play.wait_marked("move-dest", [])
    assert "ply 4 of 6" in play.text("#view-status")

    play.page.keyboard.press("Home")
    wait_view(play, 0)
    play.wait_pieces("xiangqi", [])
    play.page.click("#forward")
    wait_view(play, 1)
    play.wait_pieces("xiangqi", moves[:1])
    play.page.click("#moves .move[data-ply='3']")
    wait_view(play, 3)
    play.wait_pieces("xiangqi", moves[:3])
    play.page.click("#moves-heading")
    play.page.keyboard.press("ArrowRight")
    wait_view(play, 4)
    play.page.keyboard.press("End")
    wait_view(play, len(moves))
    assert play.data()["viewing"] == "false"
    play.wait_pieces("xiangqi", moves)

    # the game goes on from where it was, every move kept
    more = play.play_service_moves("xiangqi", 8, level=PLAYER_LEVEL, seed=400)
    assert more[:6] == moves and len(more) == 8
    # the evaluation, once asked for
    play.page.check("#show-score")
    more = play.play_service_moves("xiangqi", 16, level=PLAYER_LEVEL, seed=400)  # past the book
    reply = ladder_move(server.url, "xiangqi", more[:-1], 1, seed=4)
    score = play.text("#engine-info [data-field=score]")
    assert "hidden" not in score
    if reply["book"]:
        assert "opening book" in score
    else:
        assert (reply["score"]["cp"] is None) == ("not scored" in score)
    searched = [
        p
        for p in range(2, 17, 2)
        if not ladder_move(server.url, "xiangqi", more[: p - 1], 1, 4)["book"]
    ]
    assert searched, "these moves were meant to leave the book"
    # one score per searched ladder move; a book move has none
    assert (
        play.page.eval_on_selector_all(
            "#moves .move:has(.meta)", "ms => ms.map(m => Number(m.dataset.ply))"
        )
        == searched
    )


def test_resign_and_export_pgn(server: Server, open_page: Opener, tmp_path: Path) -> None:
    """Resigning takes two clicks and ends the game; the PGN, in ICCS, is replayed by
    cchess to the same position, and in WXF by the project's own reader."""
    play = open_page(server, variant="xiangqi", level=1, colour="red", seed=8)
    moves = play.play_service_moves("xiangqi", 4, level=PLAYER_LEVEL, seed=800)
    play.page.click("#resign")
    assert play.data()["state"] == "your-turn"  # one click only asks
    assert "again" in play.text("#resign")
    play.page.click("#resign")
    play.page.wait_for_function("() => document.getElementById('app').dataset.state === 'over'")
    assert play.data()["outcome"] == "resigned"
    assert "You resigned" in play.text("#status") and "0-1" in play.text("#status")
    assert play.page.is_disabled("#undo") and play.page.is_disabled("#offer-draw")

    iccs = play.download("#pgn-iccs")
    tags = dict(re.findall(r'^\[(\w+) "(.*)"\]$', iccs, re.M))
    assert (tags["Result"], tags["Format"], tags["Variant"]) == ("0-1", "ICCS", "xiangqi")
    assert tags["White"] == "You" and tags["Termination"] == "Resigned"
    assert tags["TimeControl"] == "-"  # no clock
    path = tmp_path / "game.pgn"
    path.write_text(iccs)
    theirs = cchess.Game.read_from(str(path))
    read = [m for line in theirs.dump_iccs_moves() for m in line]
    assert len(read) == len(moves)
    board = theirs.init_board.copy()
    for move in read:
        assert board.move_iccs(move) is not None
        board.next_turn()
    final = position(server.url, "xiangqi", moves)["fen"]
    assert board.to_fen().split()[0] == final.split()[0]

    wxf = play.download("#pgn-notation")
    (game,) = read_pgn(wxf)
    assert game.headers["Format"] == "WXF"
    assert replay(game).moves == moves


def verdict(reply: dict[str, Any]) -> bool:
    """Whether the ladder accepts a draw after its move `reply`: its score for itself
    at most -0.50, or a mate against it (docs/play.md)."""
    score = reply["score"]
    if score["mate"] is not None:
        return bool(score["mate"] < 0)
    return score["cp"] is not None and score["cp"] <= -50


def test_draw_offer_judged_by_the_ladders_evaluation(server: Server, open_page: Opener) -> None:
    """The ladder declines a draw it has no evaluation for, declines one when it is not
    worse, and accepts one when its last score says it is losing."""
    # Past the books (h3e3 a10a9), Red to move: the page has no move of the ladder's.
    start = ["h3e3", "a10a9"]
    play = open_page(
        server, variant="xiangqi", level=5, colour="red", seed=6, moves=",".join(start)
    )
    play.page.click("#offer-draw")
    assert "declines" in play.text("#offer-answer") and "no evaluation" in play.text(
        "#offer-answer"
    )
    assert play.page.is_disabled("#offer-draw")  # once per move

    seen = set()
    for mine in ("a4a5", "b3b10"):  # a quiet move; then the cannon takes a horse
        play.page.goto(
            f"{server.url}/play?variant=xiangqi&level=5&colour=red&seed=6&moves={','.join(start)}"
        )
        play.wait_settled(2)
        play.play(mine)
        play.wait_settled(4)
        reply = ladder_move(server.url, "xiangqi", [*start, mine], 5, seed=6)
        assert play.moves() == [*start, mine, reply["move"]]
        accept = verdict(reply)
        seen.add(accept)
        play.page.click("#offer-draw")
        answer = play.text("#offer-answer")
        if accept:
            play.page.wait_for_function(
                "() => document.getElementById('app').dataset.state === 'over'"
            )
            assert play.data()["outcome"] == "draw-agreed" and "1/2-1/2" in play.text("#status")
            assert "accepts" in answer
        else:
            assert "declines" in answer and play.data()["state"] == "your-turn"
            score = play.text("#engine-info [data-field=score]")
            assert "hidden" in score or "opening book" in score
    assert seen == {True, False}, "these moves were meant to give one of each verdict"


#: Records every text the ladder's clock shows, with the expected time it names.
CLOCK_RECORDER = """
window.__clock = [];
document.addEventListener('DOMContentLoaded', () => {
  new MutationObserver(() => {
    const box = document.getElementById('thinking');
    if (!box.hidden) window.__clock.push([document.getElementById('think-time').textContent,
                                          box.dataset.expected]);
  }).observe(document.getElementById('thinking'),
             {subtree: true, childList: true, characterData: true, attributes: true});
});
"""


def test_slow_level_shows_its_clock(server: Server, open_page: Opener) -> None:
    """Level 8's move (out of the book) shows the time it has taken against the level's
    expected time (GET /v1/levels), and the clock goes when the move comes; level 1's
    move shows none. The levels say whether they are rated."""
    levels = httpx.get(f"{server.url}/v1/levels", timeout=30).json()["levels"]["xiangqi"]
    expected = {info["level"]: info["expected_seconds"] for info in levels}
    assert expected[8] >= 0.5 > expected[1]  # (the page's threshold: play.js SLOW_SECONDS)
    play = open_page(server)
    play.page.add_init_script(CLOCK_RECORDER)
    for level, moves in ((8, 3), (1, 5)):
        address = f"variant=xiangqi&level={level}&colour=black&seed=9&moves=h3e3,a10a9"
        play.page.goto(f"{server.url}/play?{address}" + (",b3b10,a9a10" if level == 1 else ""))
        play.wait_settled(moves)
        assert play.page.locator("#thinking").is_hidden()
        shown = play.page.evaluate("window.__clock")
        if level == 1:
            assert shown == []
            continue
        assert shown, "no clock while level 8 thought"
        for text, named in shown:
            assert re.fullmatch(r"\d+\.\d s of about \d+(\.\d)? s( \(the machine is busy\))?", text)
            assert named == f"{expected[8]:.1f}"
    # each level of each variant is offered as rated or unrated, as the shipped file says
    every = httpx.get(f"{server.url}/v1/levels", timeout=30).json()["levels"]
    for variant, table in every.items():
        play.page.select_option("#variant", variant)
        options = play.page.locator("#strength option").all_inner_texts()
        offered = [o for o in options if o.startswith("Level")]
        assert len(offered) == len(table), options
        for option, info in zip(offered, table, strict=True):
            rating = info["rating"]
            assert ("unrated" in option) == (rating is None), (variant, option, rating)
            if rating is not None:
                # as `ladder levels` prints it (half to even, as the page does)
                assert f"Elo {rating['elo']:.0f} (" in option, (option, rating)
        if all(info["rating"] is None for info in table):
            assert "not rated yet" in (play.page.text_content("#strength-help") or "")
        else:
            assert "not rated yet" not in (play.page.text_content("#strength-help") or "")


def test_hint_drawn_as_an_arrow(server: Server, open_page: Opener) -> None:
    """A hint at the chosen level is that level's move (same moves, same seed), drawn
    as an arrow on the board and written in WXF; it goes with the next move."""
    play = open_page(server, variant="xiangqi", level=1, colour="red", seed=3, moves="h3e3,a10a9")
    play.page.select_option("#hint-level", "5")
    play.page.click("#hint")
    best = ladder_move(server.url, "xiangqi", ["h3e3", "a10a9"], 5, seed=3)["move"]
    play.page.wait_for_function(
        "m => document.getElementById('board').dataset.arrows === m", arg=best
    )
    # The arrow: chessgroundx draws it at the next animation frame, after data-arrows.
    expect(play.page.locator("cg-container svg.cg-shapes line")).to_have_count(1)
    wxf = position(server.url, "xiangqi", ["h3e3", "a10a9", best])["wxf"][2]
    assert f"level 5: {wxf} ({best})" in play.text("#hint-text")
    assert play.page.is_disabled("#hint")  # one hint per move
    play.play(best)
    play.wait_settled(4)
    assert play.page.get_attribute("#board", "data-arrows") == ""
    expect(play.page.locator("cg-container svg.cg-shapes line")).to_have_count(0)
