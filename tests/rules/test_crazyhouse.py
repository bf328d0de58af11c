"""crazyhouse-xiangqi (docs/rules.md; page 003): start, hands, drops and drop zones,
advisors/elephants on their own half, and the worked drop counts."""

from __future__ import annotations

import pytest

from ladder.rules import Game, Outcome, Reason, RulesError
from ladder.rules.board import ADVISOR, CANNON, CHARIOT, DROP_ZONES, ELEPHANT, HORSE, SOLDIER

from .helpers import make_fen, moves_from

Z = "crazyhouse-xiangqi"


def game(pieces: dict[str, str], hand: str = "", turn: str = "w", halfmove: int = 0) -> Game:
    return Game.from_fen(Z, make_fen(pieces, turn, hand, halfmove))


def drops(g: Game, letter: str) -> set[str]:
    return {m[2:] for m in g.legal_moves() if m.startswith(f"{letter}@")}


def test_start_position_and_first_move_may_be_a_drop() -> None:
    g = Game.from_fen(Z)
    assert g.hands() == {"red": {"A": 2, "B": 2}, "black": {"A": 2, "B": 2}}
    legal = g.legal_moves()
    assert len(legal) == 108  # 42 board moves + 33 advisor + 33 elephant drops
    g.push("B@e3")
    assert g.hands() == {"red": {"A": 2, "B": 1}, "black": {"A": 2, "B": 2}}
    assert g.piece_at("e3") == "B"


@pytest.mark.parametrize("colour", [0, 1])
def test_worked_drop_zone_sizes(colour: int) -> None:
    # docs/rules.md: on an empty own half, 45 points for an advisor or elephant, 90 for a
    # chariot, horse or cannon, 10 + 45 for a soldier.
    zones = DROP_ZONES[colour]
    assert len(zones[ADVISOR]) == len(zones[ELEPHANT]) == 45
    assert len(zones[CHARIOT]) == len(zones[HORSE]) == len(zones[CANNON]) == 90
    assert len(zones[SOLDIER]) == 10 + 45


def test_worked_drop_counts_with_only_the_generals() -> None:
    # The same counts as legal drops, less the points the two generals stand on.
    g = game({"e1": "K", "d10": "k"}, hand="ABNRCP")
    counts = {letter: len(drops(g, letter)) for letter in "ABNRCP"}
    assert counts == {"A": 44, "B": 44, "N": 88, "R": 88, "C": 88, "P": 54}
    g = game({"e1": "K", "d10": "k"}, hand="abnrcp", turn="b")
    counts = {letter: len(drops(g, letter)) for letter in "ABNRCP"}
    assert counts == {"A": 44, "B": 44, "N": 88, "R": 88, "C": 88, "P": 54}


def test_soldier_drop_zone() -> None:
    g = game({"e1": "K", "d10": "k", "a4": "P"}, hand="P")
    zone = drops(g, "P")
    assert {"a5", "c4", "i5", "b6", "b10", "e8"} <= zone
    assert not {"b5", "a3", "b4", "d5", "a4"} & zone  # non-home points / occupied
    with pytest.raises(RulesError, match="ten home points"):
        g.push("P@b5")


def test_advisor_and_elephant_drop_only_on_own_half() -> None:
    g = game({"e1": "K", "d10": "k"}, hand="AB")
    assert "A@a1" in g.legal_moves() and "B@i5" in g.legal_moves()
    with pytest.raises(RulesError, match="own half"):
        g.push("A@e6")


def test_advisor_moves_anywhere_on_own_half() -> None:
    g = game({"e1": "K", "d10": "k", "c2": "A"})
    assert moves_from(g.legal_moves(), "c2") == {"b1", "d1", "b3", "d3"}
    g = game({"e1": "K", "d10": "k", "e5": "A"})  # the river keeps it from d6/f6
    assert moves_from(g.legal_moves(), "e5") == {"d4", "f4"}


def test_elephant_off_its_old_points_and_its_eye() -> None:
    g = game({"e1": "K", "d10": "k", "d3": "B"})
    assert moves_from(g.legal_moves(), "d3") == {"b1", "b5", "f1", "f5"}
    g = game({"e1": "K", "d10": "k", "d3": "B", "e4": "P"})
    assert moves_from(g.legal_moves(), "d3") == {"b1", "b5", "f1"}


def test_captured_piece_joins_captors_hand_changing_colour() -> None:
    g = game({"e1": "K", "d10": "k", "c1": "R", "c7": "n"}, hand="P")
    g.push("c1c7")
    assert g.hands() == {"red": {"N": 1, "P": 1}, "black": {}}
    assert g.board_fen().endswith("[NP]")
    assert g.halfmove_clock == 0
    g.pop()
    assert g.hands() == {"red": {"P": 1}, "black": {}}


def test_drop_gives_check_directly_and_as_a_screen() -> None:
    g = game({"d1": "K", "e10": "k"}, hand="N")
    assert g.gives_check("N@d8")
    g = game({"d1": "K", "e10": "k", "e3": "C"}, hand="P")
    assert g.gives_check("P@e6")


def test_drop_may_not_become_screen_for_enemy_cannon() -> None:
    g = game({"e1": "K", "d10": "k", "e8": "c"}, hand="R")
    assert "R@e5" not in g.legal_moves()
    assert "R@d5" in g.legal_moves()
    with pytest.raises(RulesError, match="leave Red's general in check"):
        g.push("R@e5")


def test_drop_may_block_a_check() -> None:
    g = game({"e1": "K", "d10": "k", "e8": "r"}, hand="A")
    assert g.is_check()
    assert drops(g, "A") == {"e2", "e3", "e4", "e5"}


def test_drop_mate() -> None:
    g = game({"d1": "K", "e10": "k", "d5": "R", "f5": "R", "g8": "N"}, hand="PPP")
    g.push("P@e9")
    assert g.outcome() == Outcome("1-0", "red", Reason.CHECKMATE)


def test_dropped_soldier_across_river_moves_sideways_and_files_may_be_shared() -> None:
    g = game({"e1": "K", "d10": "k", "c4": "P", "i10": "r"}, hand="PP")
    g.push("P@c6")
    g.push("i10i9")
    assert moves_from(g.legal_moves(), "c6") == {"b6", "d6", "c7"}
    g.push("P@c5")  # three soldiers on the c-file
    assert [g.piece_at(p) for p in ("c4", "c5", "c6")] == ["P", "P", "P"]


def test_drops_count_for_sixty_plies_and_do_not_reset() -> None:
    g = game({"e1": "K", "d10": "k"}, hand="Aa", halfmove=58)
    g.push("A@a1")
    assert g.halfmove_clock == 59 and g.outcome() is None
    g.push("A@a10")
    assert g.outcome() == Outcome("1/2-1/2", None, Reason.SIXTY_PLIES)


@pytest.mark.parametrize(
    ("move", "words"),
    [
        ("R@e5", "no chariot in hand"),
        ("A@e1", "occupied"),
        ("P@a3", "ten home points"),
    ],
)
def test_illegal_drops_say_why(move: str, words: str) -> None:
    g = game({"e1": "K", "d10": "k"}, hand="AP")
    with pytest.raises(RulesError, match=words):
        g.push(move)


def test_no_drops_outside_crazyhouse() -> None:
    g = Game.from_fen("xiangqi")
    with pytest.raises(RulesError, match="drops are only allowed in crazyhouse"):
        g.push("A@e3")


def test_hands_are_part_of_the_position_key() -> None:
    a = game({"e1": "K", "d10": "k"}, hand="A").position.key()
    b = game({"e1": "K", "d10": "k"}, hand="a").position.key()
    assert a != b
