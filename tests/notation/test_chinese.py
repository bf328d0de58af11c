"""ladder/notation/chinese.py: Chinese notation written in both scripts and read back, every tandem
case as WXF names it, crazyhouse drops; checked against an independent writer (the
``cchess`` package), the standard opening as books print it, round trips over random
games of the three variants and over the master games."""

from __future__ import annotations

import random

import pytest

from ladder.calibration.master_games import master_lines
from ladder.notation.by_name import read_move
from ladder.notation.chinese import chinese_move, chinese_moves, chinese_writer, parse_chinese
from ladder.notation.wxf import WxfError, wxf_move
from ladder.rules import Game
from tests.rules.helpers import at_most_two_alike_on_a_file, beside_cchess

VARIANTS = ["xiangqi", "atomic-xiangqi", "crazyhouse-xiangqi"]


def written(fen: str, variant: str = "xiangqi") -> dict[str, tuple[str, str]]:
    """Every legal move of ``fen`` -> (simplified, traditional), no two moves alike in
    either script, and each reads back as its move."""
    game = Game.from_fen(variant, fen)
    out = {m: (chinese_move(game, m), chinese_move(game, m, True)) for m in game.legal_moves()}
    for script in (0, 1):
        assert len({texts[script] for texts in out.values()}) == len(out), fen
    for move, texts in out.items():
        assert parse_chinese(game, texts[0]) == move == parse_chinese(game, texts[1]), texts
    return out


def test_the_standard_opening_as_books_print_it() -> None:
    """The central cannon against the screen horses, the line every book opens with."""
    moves = ["h3e3", "h10g8", "h1g3", "i10h10"]
    start = Game.from_fen("xiangqi").start_fen
    assert chinese_moves("xiangqi", start, moves) == [
        "炮二平五",
        "马８进７",
        "马二进三",
        "车９平８",
    ]
    assert chinese_moves("xiangqi", start, moves, traditional=True) == [
        "炮二平五",
        "馬８進７",
        "傌二進三",
        "車９平８",
    ]
    game = Game.from_fen("xiangqi")
    for text in ("炮二平五", "马８进７", "傌二進三", "車９平８"):
        game.push(parse_chinese(game, text))
    assert game.moves == moves


def test_every_piece_in_both_scripts() -> None:
    # Red: general, advisor, elephant, horse, chariot, cannon, soldier; then Black's
    red = written("5k3/9/9/9/9/9/4P4/1C2B4/4A4/R2K2N2 w")
    assert red["d1d2"] == ("帅六进一", "帥六進一") and red["e2f3"] == ("仕五进四", "仕五進四")
    assert red["e3g5"] == ("相五进三", "相五進三") and red["g1h3"] == ("马三进二", "傌三進二")
    assert red["a1a10"] == ("车九进九", "俥九進九") and red["b3b1"] == ("炮八退二", "炮八退二")
    assert red["e4e5"] == ("兵五进一", "兵五進一")
    black = written("r2k2n2/4a4/1c2b4/4p4/9/9/9/9/9/5K3 b")
    assert black["d10d9"] == ("将４进１", "將４進１") and black["e9f8"] == ("士５进６", "士５進６")
    assert black["e8g6"] == ("象５进７", "象５進７") and black["g10h8"] == ("马７进８", "馬７進８")
    assert black["a10a1"] == ("车１进９", "車１進９") and black["b8b10"] == ("炮２退２", "砲２退２")
    assert black["e7e6"] == ("卒５进１", "卒５進１")


@pytest.mark.parametrize(
    ("fen", "expected"),
    [
        ("5k3/9/9/9/R8/9/9/R8/9/4K4 w", {"a6a7": "前车进一", "a3a2": "后车退一"}),
        ("5k3/9/9/9/9/9/N8/9/N8/4K4 w", {"a4b6": "前马进八", "a2c3": "后马进七"}),
        ("5k3/9/9/9/9/9/9/4C4/4C4/3K5 w", {"e3d3": "前炮平六", "e2d2": "后炮平六"}),
        ("r3k4/9/r8/9/9/9/9/9/9/5K3 b", {"a8a7": "前车进１", "a10b10": "后车平２"}),
    ],
)
def test_two_like_pieces_on_a_file(fen: str, expected: dict[str, str]) -> None:
    out = written(fen)
    for move, text in expected.items():
        assert out[move][0] == text, (move, out[move])
    assert out[next(iter(expected))][1].startswith("前")
    assert any(text.startswith("後") for _, text in out.values())


@pytest.mark.parametrize(
    ("fen", "script", "expected"),
    [
        # three on a file: front, middle, rear (simplified)
        (
            "3k5/9/4P4/4P4/4P4/9/9/9/9/4K4 w",
            0,
            {"e8d8": "前兵平六", "e7d7": "中兵平六", "e6d6": "后兵平六"},
        ),
        # four: front, two, three, rear
        (
            "3k5/4P4/4P4/4P4/4P4/9/9/9/9/4K4 w",
            0,
            {"e9d9": "前兵平六", "e8d8": "二兵平六", "e7d7": "三兵平六", "e6d6": "后兵平六"},
        ),
        # five of Black's (traditional): front, 2, 3, 4, rear
        (
            "3k5/9/9/9/9/2p6/2p6/2p6/2p6/2p1K4 b",
            1,
            {
                "c1b1": "前卒平２",
                "c2b2": "２卒平２",
                "c3b3": "３卒平２",
                "c4b4": "４卒平２",
                "c5b5": "後卒平２",
            },
        ),
        # on two files: each pawn by its place and its file, without its name
        (
            "3k5/2P3P2/2P3P2/6P2/9/9/9/9/9/4K4 w",
            0,
            {
                "c9b9": "前七平八",
                "c8b8": "后七平八",
                "g9f9": "前三平四",
                "g8f8": "中三平四",
                "g7f7": "后三平四",
            },
        ),
    ],
    ids=["three", "four", "five", "two-files"],
)
def test_tandem_pawns_on_a_file_and_on_two_files(
    fen: str, script: int, expected: dict[str, str]
) -> None:
    """Tandem pawns, three, four and five on a file and on two files; ``script``: 0
    simplified, 1 traditional (:func:`written`'s pair)."""
    out = written(fen)
    assert {move: out[move][script] for move in expected} == expected


def test_the_designators_are_wxfs() -> None:
    """One decision names a tandem piece: the Chinese place is the WXF one spelled."""
    places = {"前": "+", "后": "-"}
    game = Game.from_fen("xiangqi", "5k3/9/9/9/9/9/N8/9/N8/4K4 w")
    for move in game.legal_moves():
        text, wxf = chinese_move(game, move), wxf_move(game, move)
        if text[0] in places:
            assert wxf[1] == places[text[0]], (text, wxf)


def test_past_the_standard_three_chariots_on_a_file() -> None:
    out = written("5k3/9/9/9/9/R8/9/R8/9/R3K4[] w - - 0 1", "crazyhouse-xiangqi")
    assert out["a5a6"] == ("前车九进一", "前俥九進一")
    assert out["a3b3"] == ("中车九平八", "中俥九平八")
    assert out["a1b1"] == ("后车九平八", "後俥九平八")


def test_drops() -> None:
    red = written("5k3/9/9/9/9/9/9/9/9/4K4[ARar] w - - 0 1", "crazyhouse-xiangqi")
    assert red["A@c1"] == ("仕打七一", "仕打七一")
    assert red["R@e5"] == ("车打五五", "俥打五五") and red["R@a10"] == ("车打九十", "俥打九十")
    black = written("5k3/9/9/9/9/9/9/9/9/4K4[ARar] b - - 0 1", "crazyhouse-xiangqi")
    assert black["A@a6"] == ("士打１５", "士打１５")
    assert black["R@a1"] == ("车打１１０", "車打１１０")


def test_variants_players_type_are_read() -> None:
    game = Game.from_fen("xiangqi")
    for text in ("炮二平五", "炮2平5", "包二平五", "炮 二 平 五", "砲二平五"):
        assert parse_chinese(game, text) == "h3e3", text
        assert read_move(game, text) == "h3e3", text
    game.push("h3e3")
    for text in ("马８进７", "馬8進7", "马八进七", "傌８进７"):
        assert parse_chinese(game, text) == "h10g8", text
    # a piece named by its file where the standard names it by its place, if unique
    game = Game.from_fen("xiangqi", "5k3/9/9/9/9/9/N8/9/N8/4K4 w")
    assert parse_chinese(game, "马九退八") == "a4b2"  # the standard's 前马退八


@pytest.mark.parametrize(
    ("token", "message"),
    [
        ("炮九平五", "no legal move"),
        ("马二平三", "no legal move"),
        ("前炮平五", "no legal move"),
        ("炮二飞五", "not Chinese notation"),
        ("炮二", "not Chinese notation"),
        ("abcd", "not Chinese notation"),
        ("炮打", "not Chinese notation"),
    ],
)
def test_what_names_no_move_is_a_clear_error(token: str, message: str) -> None:
    with pytest.raises(WxfError, match=message):
        parse_chinese(Game.from_fen("xiangqi"), token)


def test_an_ambiguous_token_says_so() -> None:
    game = Game.from_fen("xiangqi", "5k3/9/9/9/9/9/N8/9/N8/4K4 w")
    with pytest.raises(WxfError, match="ambiguous"):
        parse_chinese(game, "马九进七")  # a4c5 and a2c3: the standard's 前马/后马 tell them apart


def test_the_same_moves_as_cchess_writes_them() -> None:
    """Random games on cchess's board and ours: our simplified text is cchess's, where
    cchess names tandems as the standard does (at most two like pieces on a file)."""
    compared = tandems = 0
    for game, move, text in beside_cchess(39, 6):
        if at_most_two_alike_on_a_file(game):
            assert chinese_move(game, move) == text, (text, game.fen())
            compared += 1
            tandems += text[0] in "前后"
    assert compared > 500 and tandems > 10, (compared, tandems)


@pytest.mark.parametrize("variant", VARIANTS)
def test_random_games_round_trip(variant: str) -> None:
    """Every move of seeded random games, written in both scripts, reads back as itself;
    at every tenth position, every legal move does, no two alike."""
    rng = random.Random(f"chinese {variant}")
    for _ in range(3):
        game = Game.from_fen(variant)
        while game.outcome() is None and game.ply < 160:
            if game.ply % 10 == 0:
                written(game.fen(), variant)
            game.push(rng.choice(game.legal_moves()))
        for traditional in (False, True):
            texts = chinese_moves(variant, game.start_fen, game.moves, traditional)
            again = Game.from_fen(variant)
            for text in texts:
                again.push(parse_chinese(again, text))
            assert again.moves == game.moves


def _master_games_round_trip(every: int) -> int:
    """Every ``every``-th master game written (scripts alternating) and read back; the
    moves read. A game the rules checker refuses on stays canonical from that move."""
    read = 0
    for i, line in enumerate(master_lines()[::every]):
        start = Game.from_fen("xiangqi")
        texts = chinese_writer(traditional=i % 2 == 1).replay("xiangqi", start.start_fen, line)
        game = Game.from_fen("xiangqi")
        for text, move in zip(texts.moves, line, strict=True):
            if text == move:  # refused by the rules (or the game over): canonical from here
                break
            assert parse_chinese(game, text) == move, (text, game.fen())
            game.push(move)
            read += 1
    return read


def test_master_games_round_trip_a_sample() -> None:
    assert _master_games_round_trip(every=20) > 4000


@pytest.mark.slow
def test_master_games_round_trip_all() -> None:
    assert _master_games_round_trip(every=1) > 95_000
