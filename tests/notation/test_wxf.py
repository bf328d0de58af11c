"""ladder/notation/wxf.py: standard WXF written and read (every tandem case, drops), checked
against an independent writer (the ``cchess`` package's Chinese notation), and the other
move forms xiangqi tools write: ICCS, XBoard's SAN (a game XBoard saved), Chinese."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from ladder.match.output.pgn import read_pgn, replay
from ladder.notation.by_name import read_move
from ladder.notation.chinese import parse_chinese
from ladder.notation.wxf import (
    WxfError,
    WxfWriter,
    _board,
    named,
    named_move,
    parse_san,
    parse_wxf,
    wxf_move,
    wxf_moves,
)
from ladder.rules import Game
from tests.rules.helpers import at_most_two_alike_on_a_file, beside_cchess

XBOARD_SAVED = Path(__file__).parents[1] / "match" / "data" / "xboard-saved.pgn"


def written(fen: str, variant: str = "xiangqi", read: bool = True) -> dict[str, str]:
    """Every legal move of ``fen`` -> its WXF, no two alike; with ``read``, each reads
    back as that move."""
    game = Game.from_fen(variant, fen)
    out = {m: wxf_move(game, m) for m in game.legal_moves()}
    assert len(set(out.values())) == len(out), f"two moves with one WXF in {fen}"
    for move, text in out.items() if read else ():
        assert parse_wxf(game, text) == move
    return out


# --- the issue's book lines ---------------------------------------------------------------


def test_the_rear_cannon_and_the_front_chariot_of_the_issue() -> None:
    game = Game.from_fen(
        "xiangqi", "1nbaka1nr/9/r1c1b4/p3p1p1p/1C7/6P2/P1c1P3P/BC6R/9/RN1AKABN1 w - - 0 1"
    )
    assert parse_wxf(game, "C-+7") == "b3b10" and wxf_move(game, "b3b10") == "C-+7"
    assert wxf_move(game, "b6e6") == "C+=5"
    assert parse_wxf(game, "C8+7") == "b3b10"  # what earlier versions wrote still reads
    game = Game.from_fen("xiangqi", "r1ba5/4akN2/r3b4/9/PR4P2/2B3B2/2P1P1P2/2N6/9/R2AKA3 b")
    assert parse_wxf(game, "R+-1") == "a8a9" and wxf_move(game, "a8a9") == "R+-1"
    assert parse_wxf(game, "r+-1") == "a8a9" and parse_wxf(game, "R-.2") == "a10b10"  # ".": WXF


# --- every tandem case --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fen", "expected"),
    [
        # chariots, horses, cannons: + front, - rear (Red's front is up)
        ("5k3/9/9/9/R8/9/9/R8/9/4K4 w", {"a6a7": "R++1", "a3a2": "R--1", "a6b6": "R+=8"}),
        ("5k3/9/9/9/9/9/N8/9/N8/4K4 w", {"a4b6": "H++8", "a2c3": "H-+7", "a2b4": "H-+8"}),
        ("5k3/9/9/9/9/9/9/4C4/4C4/3K5 w", {"e3d3": "C+=6", "e2d2": "C-=6", "e3e4": "C++1"}),
        # Black's front is down the board, its files count from a
        ("r3k4/9/r8/9/9/9/9/9/9/5K3 b", {"a8a7": "R++1", "a10b10": "R-=2"}),
    ],
)
def test_tandem_pieces(fen: str, expected: dict[str, str]) -> None:
    out = written(fen)
    for move, text in expected.items():
        assert out[move] == text, (move, out[move])


def test_tandem_pawns_on_one_file_two_three_four_five() -> None:
    two = written("3k5/9/9/4P4/4P4/9/9/9/9/4K4 w")
    assert two["e7e8"] == "P++1" and "e6e7" not in two  # the rear pawn is blocked
    assert two["e7d7"] == "P+=6" and two["e6d6"] == "P-=6"
    three = written("3k5/9/4P4/4P4/4P4/9/9/9/9/4K4 w")
    assert (three["e8d8"], three["e7d7"], three["e6d6"]) == ("P+=6", "P5=6", "P-=6")
    four = written("3k5/9/4P4/4P4/4P4/4P4/9/9/9/4K4 w")
    assert (four["e8d8"], four["e7d7"], four["e6d6"]) == ("++=6", "P+=6", "P-=6")
    assert "e5e6" not in four  # the rearmost (--) is blocked; it has no move here
    five = written("3k5/4P4/4P4/4P4/4P4/4P4/9/9/9/4K4 w")
    assert [five[m] for m in ("e9d9", "e8d8", "e7d7", "e6d6")] == ["++=6", "P+=6", "P5=6", "P-=6"]
    black = written("3k5/9/9/9/9/4p4/4p4/4p4/9/5K3 b")  # Black's front is lower
    assert (black["e3d3"], black["e4d4"], black["e5d5"]) == ("P+=4", "P5=4", "P-=4")


def test_tandem_pawns_on_two_files() -> None:
    out = written("3k5/2P3P2/2P3P2/6P2/9/9/9/9/9/4K4 w")
    assert [out[m] for m in ("c9b9", "c8b8", "g9f9", "g8f8", "g7f7")] == [
        "7+=8",
        "7-=8",
        "3+=4",
        "33=4",
        "3-=4",
    ]
    assert out["g9g10"] == "3++1"


def test_advisors_and_elephants_keep_their_file_unless_ambiguous() -> None:
    # xiangqi: two advisors on file 4 (d1, d3), two elephants on file 5 (e3 is no
    # elephant point, so: c1/c5 on file 7): their move alone tells them apart
    out = written("5k3/9/9/9/9/2B6/9/3A5/9/2BAK4 w")
    assert out["d3e2"] == "A6-5" and out["d1e2"] == "A6+5"
    assert out["c5e3"] == "E7-5" and out["c1e3"] == "E7+5"
    # crazyhouse: advisors free in their half; two on one file that both go forward
    # to file 5 are told apart like the others
    out = written(
        "5k3/9/9/9/9/9/3A5/9/3A5/4K4[] w - - 0 1",
        "crazyhouse-xiangqi",
    )
    assert out["d4e5"] == "A++5" and out["d2e3"] == "A-+5"


def test_drops() -> None:
    out = written("5k3/9/9/9/9/9/9/9/9/4K4[Aa] w - - 0 1", "crazyhouse-xiangqi")
    assert out["A@c1"] == "A@71" and out["A@e5"] == "A@55"
    out = written("5k3/9/9/9/9/9/9/9/9/4K4[Aa] b - - 0 1", "crazyhouse-xiangqi")
    assert out["A@a6"] == "A@15" and out["A@c10"] == "A@31"


@pytest.mark.parametrize("variant", ["xiangqi", "atomic-xiangqi", "crazyhouse-xiangqi"])
def test_every_move_of_random_games_round_trips(variant: str) -> None:
    rng = random.Random(variant)
    for _ in range(6):
        game = Game.from_fen(variant)
        while game.outcome() is None and game.ply < 160:
            written(game.fen(), variant, read=False)
            game.push(rng.choice(game.legal_moves()))
        texts = wxf_moves(variant, game.start_fen, game.moves)
        again = Game.from_fen(variant)
        for text in texts:
            again.push(parse_wxf(again, text))
        assert again.moves == game.moves


@pytest.mark.parametrize("variant", ["xiangqi", "crazyhouse-xiangqi"])
def test_a_piece_alone_on_its_file_is_named_as_the_whole_board_names_it(variant: str) -> None:
    # named() reads most moves off the rules checker's points; named_move() takes the
    # whole board: every legal move of random games (tandems, drops, freed advisors).
    rng = random.Random(variant)
    for _ in range(4):
        game = Game.from_fen(variant)
        while game.outcome() is None and game.ply < 160:
            red = game.turn == "red"
            for move in game.legal_moves():
                assert named(game, move) == named_move(_board(game), game.legal_moves, move, red)
            game.push(rng.choice(game.legal_moves()))


# --- against an independent writer: cchess ---------------------------------------------------

_CN_TO_WXF = {
    **dict.fromkeys("帅将帥將", "K"),
    **dict.fromkeys("仕士", "A"),
    **dict.fromkeys("相象", "E"),
    **dict.fromkeys("马馬", "H"),
    **dict.fromkeys("车車", "R"),
    **dict.fromkeys("炮砲", "C"),
    **dict.fromkeys("兵卒", "P"),
    "进": "+",
    "退": "-",
    "平": "=",
    "前": "+",
    "后": "-",
    **{d: str(n + 1) for n, d in enumerate("一二三四五六七八九")},
    **{chr(0xFF11 + n): str(n + 1) for n in range(9)},
}


def _cchess_wxf(text: str) -> str:
    """cchess's Chinese text mapped character by character to WXF (前炮 -> C+)."""
    if text[0] in "前后":
        text = text[1] + text[0] + text[2:]
    return "".join(_CN_TO_WXF[ch] for ch in text)


def test_the_same_moves_as_cchess_writes_them() -> None:
    compared = tandems = 0
    for game, move, text in beside_cchess(24, 12):
        assert parse_chinese(game, text) == move, text  # our reader, their writer
        if at_most_two_alike_on_a_file(game):
            ours = wxf_move(game, move)
            assert ours == _cchess_wxf(text), (text, ours, game.fen())
            compared += 1
            tandems += text[0] in "前后"
    assert compared > 1000 and tandems > 20, (compared, tandems)


# --- the other notations --------------------------------------------------------------------


def test_a_game_xboard_saved_replays() -> None:
    """XBoard's SAN-like xiangqi notation (``Cxb0``, ``Cfxd0``, ``C0g1``, ``cxc4``):
    the game XBoard saved under Xvfb against maxqi (tests/bridge/test_xboard_gui.py
    plays and reads a fresh one)."""
    (pgn,) = read_pgn(XBOARD_SAVED.read_text())
    game = replay(pgn)
    assert game.ply == len(pgn.moves) == 56
    outcome = game.outcome()
    assert outcome is not None and outcome.result == pgn.headers["Result"] == "0-1"


def test_read_move_takes_every_form() -> None:
    game = Game.from_fen("xiangqi")
    for token in ("h3e3", "H2-E2", "h2-e2", "C2=5", "C2.5", "c2=5", "炮二平五", "Che2"):
        assert read_move(game, token) == "h3e3", token
    assert read_move(game, "h2e2", iccs=True) == "h3e3"
    assert parse_san(game, "Hg2") == "h1g3"
    game.push("h3e3")
    for token in ("H8+7", "马８进７", "馬8進7", "Hg7"):
        assert read_move(game, token) == "h10g8", token


@pytest.mark.parametrize("token", ["C2=4x", "Z2=5", "C9=5", "炮九平五", "Cxz9", "", "P+=5"])
def test_what_names_no_move_is_a_clear_error(token: str) -> None:
    game = Game.from_fen("xiangqi")
    with pytest.raises(WxfError, match=r"no|not"):
        read_move(game, token)


def test_writer_takes_alias_spellings_and_writes_a_refused_plys_best() -> None:
    """The game loop hands the writer an engine's own text (``h@e5``: a drop's alias
    letter) before the rules checker stores it canonically; a record's refused ply still
    gets its best move in WXF, as the replay before the writer gave it."""
    game = Game.from_fen("crazyhouse-xiangqi", None, ["h3h10", "i10h10"])
    writer = WxfWriter()
    writer.write(game, "h@e5", best="e@e3")
    assert writer.moves == [wxf_move(game, "N@e5")]
    assert writer.bests == {0: wxf_move(game, "B@e3")}
    refused = WxfWriter().replay(
        "xiangqi", Game.from_fen("xiangqi").start_fen, ["h3e3", "a10a5"], {1: "h10g8"}
    )
    assert refused.moves == ["C2=5", "a10a5"] and refused.bests == {1: "H8+7"}
