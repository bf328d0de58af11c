"""Game-end rules common to the three rule sets (docs/rules.md "Common to all three")."""

from __future__ import annotations

import re
from types import ModuleType

import pytest

from .fsf_uci import UciEngine

XIANGQI, ATOMIC, HOUSE = "mistboard-xiangqi", "atomic-xiangqi", "crazyhouse-xiangqi"
ALL = [XIANGQI, ATOMIC, HOUSE]
MATE = 32000  # pyffish's VALUE_MATE: results are from the side to move's point of view


def with_hand(variant: str, fen: str) -> str:
    """The same position; crazyhouse-xiangqi gets empty hands."""
    if variant != HOUSE:
        return fen
    board, rest = fen.split(" ", 1)
    return f"{board}[] {rest}"


def final_score(info: list[str]) -> str:
    scores = [m.group(1) for line in info if (m := re.search(r" score (\w+ -?\d+)", line))]
    return scores[-1]


# --- Sixty plies without a capture -------------------------------------------------------

QUIET = "3k5/9/9/9/9/9/9/9/R8/4K4 w - - {} 30"


@pytest.mark.parametrize("variant", ALL)
def test_sixty_plies_draw(pyffish: ModuleType, variant: str) -> None:
    fen = with_hand(variant, QUIET.format(59))
    assert pyffish.is_optional_game_end(variant, fen, [])[0] is False
    assert pyffish.is_optional_game_end(variant, fen, ["a2a3"]) == (True, 0)
    # A capture resets the count.
    fen = with_hand(variant, "3k5/9/9/9/9/9/9/n8/R8/4K4 w - - 59 30")
    assert pyffish.is_optional_game_end(variant, fen, ["a2a3"])[0] is False


@pytest.mark.parametrize("variant", ALL)
def test_soldier_moves_do_not_reset_the_count(fsf: UciEngine, variant: str) -> None:
    fsf.variant(variant)
    fsf.position(with_hand(variant, "3k5/9/9/9/9/9/P8/9/9/4K4 w - - 7 20"), ["a4a5"])
    assert fsf.fen().split()[-2] == "8"


def test_drops_do_not_reset_the_count(
    fsf: UciEngine, stock_fsf: UciEngine, pyffish: ModuleType
) -> None:
    fen = "3k5/9/9/9/9/9/9/9/9/4K4[Rr] w - - 58 30"
    fsf.variant(HOUSE)
    fsf.position(fen, ["R@a2"])
    assert fsf.fen().split()[-2] == "59"
    assert pyffish.is_optional_game_end(HOUSE, fen, ["R@a2", "R@i9"]) == (True, 0)
    # Stock FSF resets the count on every drop (the option is the patch's).
    stock_fsf.variant(HOUSE)
    stock_fsf.position(fen, ["R@a2"])
    assert stock_fsf.fen().split()[-2] == "0"


# Black: general f10; f9 is covered by the soldier on f8, e10 by the chariot once on e2.
STALEMATE = "5k3/9/5P3/9/9/9/9/9/8R/3K5 w - - {} 40"


@pytest.mark.parametrize("variant", ALL)
def test_stalemate_loses(pyffish: ModuleType, variant: str) -> None:
    fen = with_hand(variant, STALEMATE.format(10))
    assert pyffish.legal_moves(variant, fen, ["i2e2"]) == []
    assert pyffish.game_result(variant, fen, ["i2e2"]) == -MATE


@pytest.mark.parametrize("variant", ALL)
def test_stalemate_on_the_sixtieth_ply_wins(
    fsf: UciEngine, stock_fsf: UciEngine, pyffish: ModuleType, variant: str
) -> None:
    """docs/rules.md: the count reaches 60 with the stalemating move: that wins, it is no draw."""
    fen = with_hand(variant, STALEMATE.format(59))
    assert pyffish.is_optional_game_end(variant, fen, ["i2e2"])[0] is False
    assert pyffish.game_result(variant, fen, ["i2e2"]) == -MATE
    # The engine scores the final position as lost for Black, stock FSF as a draw.
    for engine in (fsf, stock_fsf):
        engine.variant(variant)
        engine.position(fen, ["i2e2"])
    assert fsf.go_depth(1)[0] == "(none)"
    assert final_score(fsf.go_depth(1)[1]) == "mate 0"
    assert final_score(stock_fsf.go_depth(1)[1]) == "cp 0"


# --- Repetition ----------------------------------------------------------------------------

# Red's chariot checks the general on ranks 9 and 10 while it steps between e9 and e10.
PERPETUAL = "9/4k4/R8/9/9/9/9/9/9/3K5 w - - 0 1"
PERPETUAL_MOVES = ["a8a9", "e9e10", "a9a10", "e10e9", "a10a9", "e9e10", "a9a10", "e10e9", "a10a9"]


@pytest.mark.parametrize("variant", ALL)
def test_perpetual_check_loses(pyffish: ModuleType, variant: str) -> None:
    fen = with_hand(variant, PERPETUAL)
    assert pyffish.is_optional_game_end(variant, fen, PERPETUAL_MOVES[:-1])[0] is False
    # Third occurrence, Black to move: Red checked with every move and loses.
    assert pyffish.is_optional_game_end(variant, fen, PERPETUAL_MOVES) == (True, MATE)


@pytest.mark.parametrize("variant", ALL)
def test_sixty_plies_come_before_a_perpetual_check_on_the_same_ply(
    pyffish: ModuleType, variant: str
) -> None:
    """The same perpetual check from a count of 51: its third occurrence is also the 60th
    ply without a capture, and the sixty-ply draw is decided first (docs/rules.md)."""
    fen = with_hand(variant, PERPETUAL.replace(" 0 1", " 51 1"))
    assert pyffish.is_optional_game_end(variant, fen, PERPETUAL_MOVES) == (True, 0)


CHASE = "5k3/9/9/9/7n1/9/9/9/9/3K2R2 w - - 0 1"
CHASE_MOVES = ["g1h1", "h6g8", "h1g1", "g8h6"] * 2


@pytest.mark.parametrize("variant", ALL)
def test_chasing_is_a_draw(pyffish: ModuleType, variant: str) -> None:
    """Red's chariot attacks the undefended horse on every move: an ordinary repetition."""
    fen = with_hand(variant, CHASE)
    assert pyffish.is_optional_game_end(variant, fen, CHASE_MOVES[:-1])[0] is False
    assert pyffish.is_optional_game_end(variant, fen, CHASE_MOVES) == (True, 0)


def test_builtin_xiangqi_would_punish_the_chase(pyffish: ModuleType) -> None:
    """Guard: the built-in xiangqi (AXF chasing rules) differs, so ours must not fall back to it."""
    assert pyffish.is_optional_game_end("xiangqi", CHASE, CHASE_MOVES) == (True, -MATE)


@pytest.mark.parametrize("variant", ALL)
def test_neither_side_checks_is_a_draw(pyffish: ModuleType, variant: str) -> None:
    fen = with_hand(variant, "3k5/9/9/9/9/9/9/9/R8/4K4 w - - 0 1")
    moves = ["a2a3", "d10d9", "a3a2", "d9d10"] * 2
    assert pyffish.is_optional_game_end(variant, fen, moves) == (True, 0)


# atomic-xiangqi, check in the wide sense: each chariot bears on the horse next to the enemy
# general (a capture there would blow the general up).
WIDE = "9/4k4/R3n4/9/9/9/9/4N3r/4K4/9 w - - 0 1"


def test_atomic_both_sides_check_is_a_draw(pyffish: ModuleType) -> None:
    moves = ["a8b8", "i3h3", "b8a8", "h3i3"] * 2
    assert all(pyffish.gives_check(ATOMIC, WIDE, moves[: i + 1]) for i in range(len(moves)))
    assert pyffish.is_optional_game_end(ATOMIC, WIDE, moves) == (True, 0)


WIDE_ONE_SIDED = "9/4k4/R3n4/9/9/8r/9/4N4/4K4/9 w - - 0 1"
WIDE_ONE_SIDED_MOVES = ["a8b8", "i5i6", "b8a8", "i6i5"] * 2


def test_atomic_perpetual_wide_check_loses(pyffish: ModuleType) -> None:
    """Red's every move bears on the horse beside Black's general (no direct attack): Red loses."""
    moves = WIDE_ONE_SIDED_MOVES
    assert pyffish.is_optional_game_end(ATOMIC, WIDE_ONE_SIDED, moves[:-1])[0] is False
    assert pyffish.is_optional_game_end(ATOMIC, WIDE_ONE_SIDED, moves) == (True, -MATE)


def test_engine_search_knows_perpetual_wide_check(fsf: UciEngine, stock_fsf: UciEngine) -> None:
    """Black's i6i5 completes the third occurrence: the patched engine scores it as a win for
    Black (Red gave perpetual wide check); stock FSF does not see these checks (a draw)."""
    for engine in (fsf, stock_fsf):
        engine.variant(ATOMIC)
        engine.position(WIDE_ONE_SIDED, WIDE_ONE_SIDED_MOVES[:-1])
        engine.send("go depth 2 searchmoves i6i5")
    patched = final_score(fsf.read_until(lambda line: line.startswith("bestmove")))
    stock = final_score(stock_fsf.read_until(lambda line: line.startswith("bestmove")))
    assert patched.startswith("mate ") and int(patched.split()[1]) > 0
    assert not stock.startswith("mate ")
