"""The PGN's note on a varied move (``varied: the engine's best was …``): the engine's
best move in WXF as :func:`ladder.notation.wxf.wxf_moves` writes it after the game's moves up to
that ply, canonical where it is no legal move there or the game was refused before it;
written from one replay of the game (it was one replay per varied move)."""

from __future__ import annotations

from collections.abc import Callable

from ladder.match.game.play import GameRecord, MoveRecord
from ladder.match.output.pgn import format_pgn, read_pgn
from ladder.notation.chinese import chinese_moves
from ladder.notation.wxf import wxf_moves

MOVES = ["h3e3", "h10g8", "h1g3", "i10h10", "i1h1", "b10c8", "b3b7", "c7c6"]
# per non-book move (the first two are book): the engine's best, or a bad one
BESTS = ["b1c3", None, "a1a3", "e7e6", "zz", "a1a1"]


def record(moves: list[str], bests: list[str | None]) -> GameRecord:
    infos = [
        MoveRecord(seconds=0.01, cp=12, depth=5, nodes=3000)
        if best is None
        else MoveRecord(seconds=0.01, cp=12, depth=5, nodes=3000, chosen="varied", best=best)
        for best in bests
    ]
    return GameRecord(
        match_id="m", game_no=0, pair_no=0, opening_no=0, variant="xiangqi", red="a",
        black="b", red_slot="A", start_fen="rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/"
        "1C5C1/9/RNBAKABNR w - - 0 1", book_plies=2, moves=moves, infos=infos,
        result="1/2-1/2", winner=None, reason="max-plies", search_seconds={"red": 0, "black": 0},
        wall_seconds=1.0, worker="host:1", finished_at=0.0,
    )  # fmt: skip


def varied_notes(rec: GameRecord, notation: str = "wxf") -> dict[int, str]:
    text = format_pgn(rec, date="2026.12.02", notation=notation)
    comments = next(iter(read_pgn(text))).comments
    marker = "varied: the engine's best was "
    return {p: c.split(marker)[1] for p, c in enumerate(comments) if c and marker in c}


def bests_written(
    rec: GameRecord, write: Callable[[str, str, list[str]], list[str]]
) -> dict[int, str]:
    """Ply -> the best move of each varied move of ``rec``, as ``write`` (``wxf_moves``,
    ``chinese_moves``) writes it after the game's moves up to that ply."""
    return {
        ply: write("xiangqi", rec.start_fen, [*rec.moves[:ply], info.best])[-1]
        for ply, info in enumerate(rec.infos, start=rec.book_plies)
        if info.best is not None
    }


def test_varied_note_is_the_best_move_in_wxf_at_its_ply() -> None:
    rec = record(MOVES, list(BESTS))
    expected = bests_written(rec, wxf_moves)
    assert varied_notes(rec) == expected
    # illegal or malformed bests stay as given; a legal one is WXF
    assert expected[6] == "zz" and expected[7] == "a1a1" and expected[2] != "b1c3"


def test_varied_note_after_a_refused_move_is_canonical() -> None:
    moves = [*MOVES[:3], "a1a1", *MOVES[4:]]  # ply 3 refused: canonical from there on
    rec = record(moves, list(BESTS))
    notes = varied_notes(rec)
    assert notes[2] == wxf_moves("xiangqi", rec.start_fen, [*moves[:2], "b1c3"])[-1] != "b1c3"
    assert (notes[4], notes[5], notes[6], notes[7]) == ("a1a3", "e7e6", "zz", "a1a1")


def test_varied_note_in_chinese_notation() -> None:
    """With `notation="chinese"` the engine's best is written in Chinese, as the moves."""
    rec = record(MOVES, list(BESTS))
    expected = bests_written(rec, chinese_moves)
    assert varied_notes(rec, "chinese") == expected
    assert expected[2] == "马八进七" and expected[6] == "zz"
