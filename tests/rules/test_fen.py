"""FEN parsing, printing and validation (every validation error has a case here)."""

from __future__ import annotations

import pytest

from ladder.rules import Game, RulesError
from ladder.rules.variants import CRAZYHOUSE_START, XIANGQI_START

from .helpers import make_fen

K2 = {"e1": "K", "d10": "k"}  # two generals, not facing


def test_start_positions_round_trip() -> None:
    assert Game.from_fen("xiangqi").fen() == XIANGQI_START
    assert Game.from_fen("atomic-xiangqi").fen() == XIANGQI_START
    # FSF prints hands in its own piece order (elephants before advisors).
    g = Game.from_fen("crazyhouse-xiangqi")
    assert g.fen() == "rn2k2nr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RN2K2NR[BBAAbbaa] w - - 0 1"
    assert Game.from_fen("crazyhouse-xiangqi", g.fen()).fen() == g.fen()
    assert Game.from_fen("crazyhouse-xiangqi", CRAZYHOUSE_START).fen() == g.fen()


def test_synonyms_are_accepted_and_output_canonical() -> None:
    g = Game.from_fen("xiangqi", "rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR r")
    assert g.fen() == XIANGQI_START
    g = Game.from_fen("crazyhouse-xiangqi", make_fen(K2, hand="EHeh"))
    assert g.board_fen().endswith("[BNbn]")


def test_missing_trailing_fields_default() -> None:
    g = Game.from_fen("xiangqi", make_fen(K2).rsplit(" ", 4)[0])
    assert g.fen() == make_fen(K2)


def test_crazyhouse_without_brackets_has_empty_hands() -> None:
    g = Game.from_fen("crazyhouse-xiangqi", make_fen(K2))
    assert g.board_fen().endswith("[]")
    assert g.hands() == {"red": {}, "black": {}}


def test_empty_hand_accepted_in_xiangqi() -> None:
    assert Game.from_fen("xiangqi", make_fen(K2, hand="")).fen() == make_fen(K2)


def test_counters_are_kept() -> None:
    g = Game.from_fen("xiangqi", make_fen(K2, turn="b", halfmove=17, fullmove=42))
    assert g.fen().endswith(" b - - 17 42")
    assert g.turn == "black"
    assert g.halfmove_clock == 17


BAD_FENS = [
    # (variant, fen, words in the reason)
    ("xiangqi", "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/RNBAKABNR w - - 0 1", "9 ranks"),
    ("xiangqi", "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/9/RNBAKABNR w", "11 ranks"),
    ("xiangqi", "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABN w", "8 files"),
    (
        "xiangqi",
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNRR w",
        "more than 9 files",
    ),
    (
        "xiangqi",
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C2/9/RNBAKABNR w",
        "rank 3 (the 8th rank field) has more than 9 files",
    ),
    (
        "xiangqi",
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNX w",
        "unknown piece letter 'X'",
    ),
    ("xiangqi", "rnbakabnr/9/1c5c1/p1p1p1p1p/09/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", "count 0"),
    ("xiangqi", make_fen({"e1": "K"}), "Black has no general"),
    ("xiangqi", make_fen({"d10": "k"}), "Red has no general"),
    ("xiangqi", make_fen({"e1": "K", "d1": "K", "d10": "k"}), "Red has 2 generals"),
    ("xiangqi", make_fen({"e4": "K", "d10": "k"}), "Red general on e4 is outside its palace"),
    ("xiangqi", make_fen({"e1": "K", "d7": "k"}), "Black general on d7 is outside its palace"),
    ("xiangqi", make_fen({**K2, "e1": "K", "e3": "A"}), "advisor points"),
    ("xiangqi", make_fen({**K2, "d2": "B"}), "elephant points"),
    ("xiangqi", make_fen({**K2, "c8": "b"}), "elephant points"),
    ("atomic-xiangqi", make_fen({**K2, "c6": "A"}), "advisor points"),
    ("crazyhouse-xiangqi", make_fen({**K2, "c6": "A"}), "across the river"),
    ("crazyhouse-xiangqi", make_fen({**K2, "a5": "b"}), "across the river"),
    ("xiangqi", make_fen({**K2, "a3": "P"}), "soldier can never reach"),
    ("xiangqi", make_fen({**K2, "b4": "P"}), "soldier can never reach"),
    ("xiangqi", make_fen({**K2, "d7": "p"}), "soldier can never reach"),
    ("crazyhouse-xiangqi", make_fen({**K2, "b5": "P"}), "soldier can never reach"),
    ("xiangqi", make_fen({**K2, "a1": "R", "b1": "R", "c1": "R"}), "Red has 3 chariots"),
    (
        "xiangqi",
        make_fen({**K2, "a6": "P", "b6": "P", "c6": "P", "d6": "P", "e6": "P", "f6": "P"}),
        "6 soldiers",
    ),
    (
        "crazyhouse-xiangqi",
        make_fen({**K2, "a1": "R", "b1": "R", "c1": "R"}, hand="Rr"),
        "5 chariots on the board and in hands",
    ),
    ("xiangqi", make_fen(K2, hand="R"), "xiangqi has no hands"),
    ("atomic-xiangqi", make_fen(K2, hand="p"), "no hands"),
    ("crazyhouse-xiangqi", make_fen(K2, hand="K"), "general can never be in hand"),
    ("crazyhouse-xiangqi", make_fen(K2, hand="Ax"), "unknown piece letter 'x'"),
    ("crazyhouse-xiangqi", make_fen(K2, hand="2A"), "unknown piece letter '2'"),
    ("crazyhouse-xiangqi", make_fen(K2).replace(" w", "[A w"), "in brackets"),
    ("crazyhouse-xiangqi", make_fen(K2).replace(" w", "[A][a] w"), "in brackets"),
    ("xiangqi", make_fen(K2, turn="x"), "side to move 'x'"),
    ("xiangqi", make_fen(K2).replace(" - - ", " KQ - "), "castling field"),
    ("xiangqi", make_fen(K2).replace(" - - ", " - e3 "), "en-passant field"),
    ("xiangqi", make_fen(K2).replace(" 0 1", " -1 1"), "halfmove clock '-1'"),
    ("xiangqi", make_fen(K2).replace(" 0 1", " x 1"), "halfmove clock 'x'"),
    ("xiangqi", make_fen(K2).replace(" 0 1", " 0 0"), "move number must be at least 1"),
    ("xiangqi", make_fen(K2).replace(" 0 1", " 0 1.5"), "move number '1.5'"),
    ("xiangqi", make_fen(K2).replace(" 0 1", " 0 " + "9" * 20), "move number must be at most"),
    ("xiangqi", make_fen(K2).replace(" 0 1", " 100000001 1"), "halfmove clock must be at most"),
    ("xiangqi", make_fen(K2) + " 7", "at most 6"),
    ("xiangqi", "9/9/9/9/9/9/9/9/9/9", "at least the board and the side"),
    ("xiangqi", "", "at least the board"),
    ("xiangqi", "x" * 300, "characters long"),
    ("xiangqi", make_fen(K2).replace(" w", "\tw\x00"), "control"),
    ("xiangqi", make_fen(K2).replace("9", "\uff19", 1), "non-ASCII"),
    # The side not to move may not be in check, nor may the generals face each other.
    ("xiangqi", make_fen({"e1": "K", "e10": "k"}), "Black, not to move, is in check"),
    ("xiangqi", make_fen({**K2, "e5": "r"}, turn="b"), "Red, not to move, is in check"),
]


@pytest.mark.parametrize(("variant", "fen", "words"), BAD_FENS)
def test_invalid_fen(variant: str, fen: str, words: str) -> None:
    with pytest.raises(RulesError) as err:
        Game.from_fen(variant, fen)
    assert err.value.field == "fen"
    assert words in err.value.reason, err.value.reason


@pytest.mark.parametrize("fen", [None, 3, b"bytes", ["list"]])
def test_non_string_fen(fen: object) -> None:
    if fen is None:  # None means the start position
        assert Game.from_fen("xiangqi", fen).fen() == XIANGQI_START  # type: ignore[arg-type]
        return
    with pytest.raises(RulesError, match="must be a string"):
        Game.from_fen("xiangqi", fen)  # type: ignore[arg-type]


@pytest.mark.parametrize("variant", ["chess", "", None, 5, "Xiangqi", "mistboard-xiangqi"])
def test_unknown_variant(variant: object) -> None:
    with pytest.raises(RulesError) as err:
        Game.from_fen(variant)  # type: ignore[arg-type]
    assert err.value.field == "variant"


def test_reachable_placements_are_accepted() -> None:
    # Advisors on all five palace points and elephants on the seven points are fine ...
    Game.from_fen(
        "xiangqi",
        make_fen(
            {
                "e1": "K",
                "d1": "A",
                "e2": "A",
                "a3": "B",
                "g5": "B",
                "d10": "k",
                "f8": "a",
                "c6": "b",
            }
        ),
    )
    # ... soldiers on home points and across the river, any file there ...
    Game.from_fen(
        "xiangqi",
        make_fen(
            {**K2, "a4": "P", "e5": "P", "b6": "P", "i10": "P", "c7": "p", "b5": "p", "i1": "p"}
        ),
    )
    # ... and in crazyhouse advisors/elephants anywhere on their own half.
    Game.from_fen(
        "crazyhouse-xiangqi",
        make_fen({**K2, "a1": "A", "i5": "B", "c6": "a", "b10": "b"}, hand="AABB"),
    )


def test_move_counters_near_the_bound_and_with_leading_zeros() -> None:
    from ladder.rules import Game
    from ladder.rules.errors import MAX_FEN_COUNTER

    high = make_fen(K2).replace(" 0 1", f" {MAX_FEN_COUNTER} {MAX_FEN_COUNTER}")
    assert Game.from_fen("xiangqi", high).fen() == high  # the bound itself is accepted
    zeros = make_fen(K2).replace(" 0 1", " 000 00000001")
    assert Game.from_fen("xiangqi", zeros).fen().endswith(" 0 1")
