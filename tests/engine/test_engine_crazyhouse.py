"""crazyhouse-xiangqi (docs/rules.md): drops, hands, advisors and elephants on their half."""

from __future__ import annotations

from types import ModuleType

from .fsf_uci import UciEngine

HOUSE = "crazyhouse-xiangqi"
FILES = "abcdefghi"


def points(ranks: range, files: str = FILES) -> set[str]:
    return {f"{f}{r}" for f in files for r in ranks}


RED_HALF = points(range(1, 6))
BOARD = points(range(1, 11))
RED_SOLDIER_ZONE = points(range(4, 6), "acegi") | points(range(6, 11))


def legal(fsf: UciEngine, fen: str | None, moves: list[str] = []) -> set[str]:  # noqa: B006
    fsf.variant(HOUSE)
    fsf.position(fen, moves)
    return fsf.legal_moves()


def drops(moves: set[str], letter: str) -> set[str]:
    return {m[2:] for m in moves if m.startswith(f"{letter}@")}


def test_start_position(fsf: UciEngine) -> None:
    fsf.variant(HOUSE)
    fsf.position()
    # FSF writes the hands in its own order ([AABBaabb] on input is the same position).
    start = "rn2k2nr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RN2K2NR[BBAAbbaa] w - - 0 1"
    assert fsf.fen() == start
    moves = fsf.legal_moves()
    assert len(moves) == 108
    # Red's first move may be a drop: advisors and elephants anywhere empty on Red's half.
    red_pieces = {"a1", "b1", "e1", "h1", "i1", "b3", "h3", "a4", "c4", "e4", "g4", "i4"}
    empty_red_half = RED_HALF - red_pieces
    assert drops(moves, "A") == drops(moves, "B") == empty_red_half


def test_drop_zones_worked_fact(fsf: UciEngine) -> None:
    """docs/rules.md worked fact: on an empty own half, 45 points for an advisor or elephant, 90 for
    a chariot, horse or cannon, 10 + 45 for a soldier. The generals stand on e1 and d10, so the
    zones minus those points are the legal drops."""
    moves = legal(fsf, "3k5/9/9/9/9/9/9/9/9/4K4[ABRNCP] w - - 0 1")
    occupied = {"e1", "d10"}
    assert len(RED_HALF) == 45 and len(BOARD) == 90 and len(RED_SOLDIER_ZONE) == 55
    assert drops(moves, "A") == drops(moves, "B") == RED_HALF - occupied
    assert drops(moves, "R") == drops(moves, "N") == drops(moves, "C") == BOARD - occupied
    assert drops(moves, "P") == RED_SOLDIER_ZONE - occupied


def test_black_soldier_zone(fsf: UciEngine) -> None:
    moves = legal(fsf, "3k5/9/9/9/9/9/9/9/9/4K4[p] b - - 0 1")
    zone = points(range(6, 8), "acegi") | points(range(1, 6))
    assert drops(moves, "P") == zone - {"e1"}


def test_advisor_anywhere_on_own_half(fsf: UciEngine) -> None:
    """Page 003: an advisor on c2 has four steps; on the river bank e5 it has two."""
    moves = legal(fsf, "3k5/9/9/9/9/9/9/9/2A6/4K4 w - - 0 1")
    assert {m for m in moves if m.startswith("c2")} == {"c2b1", "c2d1", "c2b3", "c2d3"}
    moves = legal(fsf, "3k5/9/9/9/9/4A4/9/9/9/5K3 w - - 0 1")
    assert {m for m in moves if m.startswith("e5")} == {"e5d4", "e5f4"}


def test_elephant_off_its_points_and_eye(fsf: UciEngine) -> None:
    """Page 003: an elephant dropped on d3 reaches b1, b5, f1, f5; a piece on e4 blocks f5."""
    moves = legal(fsf, "3k5/9/9/9/9/9/9/9/9/4K4[B] w - - 0 1", ["B@d3", "d10d9"])
    assert {m for m in moves if m.startswith("d3")} == {"d3b1", "d3b5", "d3f1", "d3f5"}
    moves = legal(fsf, "3k5/9/9/9/9/9/4P4/3B5/9/4K4 w - - 0 1")
    assert {m for m in moves if m.startswith("d3")} == {"d3b1", "d3b5", "d3f1"}


def test_dropped_soldier_across_river_moves_sideways(fsf: UciEngine) -> None:
    moves = legal(fsf, "3k5/9/9/9/9/9/9/9/9/4K4[P] w - - 0 1", ["P@g7", "d10d9"])
    assert {m for m in moves if m.startswith("g7")} == {"g7g8", "g7f7", "g7h7"}


def test_drop_checks(fsf: UciEngine, pyffish: ModuleType) -> None:
    """Page 003: a horse dropped on d8 checks the general on e10; a soldier dropped on e6 gives
    the cannon on e3 its screen."""
    fen = "4k4/9/9/9/9/9/9/4C4/9/3K5[NP] w - - 0 1"
    assert {"N@d8", "P@e6"} <= legal(fsf, fen)
    assert pyffish.gives_check(HOUSE, fen, ["N@d8"])
    assert pyffish.gives_check(HOUSE, fen, ["P@e6"])
    assert not pyffish.gives_check(HOUSE, fen, ["P@a6"])


def test_drop_mate(fsf: UciEngine, pyffish: ModuleType) -> None:
    """Page 003: with soldiers in hand, P@e9 mates the general on f9; Black then has no legal
    move and has lost; the engine finds the mate."""
    fen = "5n3/5k3/5n3/9/9/9/9/9/4R4/3K5[PPP] w - - 0 1"
    assert "P@e9" in legal(fsf, fen)
    assert legal(fsf, fen, ["P@e9"]) == set()
    assert pyffish.legal_moves(HOUSE, fen, ["P@e9"]) == []
    assert pyffish.game_result(HOUSE, fen, ["P@e9"]) < 0
    fsf.variant(HOUSE)
    fsf.position(fen)
    best, info = fsf.go_depth(4)
    assert best == "P@e9"
    assert any(" score mate 1 " in line for line in info)


def test_drop_blocks_check(fsf: UciEngine) -> None:
    """The chariot on e8 checks the general on e1: drops on e2..e7 block; the general may step
    to f1 (d1 would face the general on d10)."""
    moves = legal(fsf, "3k5/9/4r4/9/9/9/9/9/9/4K4[R] w - - 0 1")
    assert moves == {"e1f1"} | {f"R@e{r}" for r in range(2, 8)}


def test_drop_may_not_expose_own_general(fsf: UciEngine) -> None:
    """A piece dropped on e2..e7 would become the screen for the black cannon on e8."""
    moves = legal(fsf, "3k5/9/4c4/9/9/9/9/9/9/4K4[R] w - - 0 1")
    assert drops(moves, "R") == BOARD - {"e1", "d10", "e8"} - {f"e{r}" for r in range(2, 8)}


def test_captures_go_to_hand_changing_colour(fsf: UciEngine) -> None:
    """Page 003: the chariot takes the black horse on c7 and a red horse joins Red's hand."""
    fsf.variant(HOUSE)
    fsf.position("3k5/9/9/2n6/9/9/9/9/9/2R1K4[P] w - - 0 1", ["c1c7"])
    assert fsf.fen() == "3k5/9/9/2R6/9/9/9/9/9/4K4[NP] b - - 0 1"
    # An advisor captured by Black becomes a black advisor in Black's hand.
    fsf.position("3k5/9/9/9/9/9/9/9/r2A5/4K4 b - - 0 1", ["a2d2"])
    assert fsf.fen() == "3k5/9/9/9/9/9/9/9/3r5/4K4[a] w - - 0 2"
