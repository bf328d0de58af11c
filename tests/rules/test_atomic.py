"""atomic-xiangqi (docs/rules.md; page 000): the explosion, the cannon shot, both generals'
rules, wide check, and the worked blast example."""

from __future__ import annotations

import pytest

from ladder.rules import Game, Outcome, Reason, RulesError

from .helpers import make_fen

A = "atomic-xiangqi"


def game(pieces: dict[str, str], turn: str = "w", variant: str = A) -> Game:
    return Game.from_fen(variant, make_fen(pieces, turn))


def test_worked_example_chariot_takes_cannon_next_to_general() -> None:
    # docs/rules.md worked fact: Rxd8 next to the general on d9 removes it (Red wins), the
    # elephant on e8 (orthogonal to d8) goes too, the advisor on e9 (diagonal) stays.
    g = game({"e1": "K", "d4": "R", "d9": "k", "d8": "c", "e8": "b", "e9": "a"})
    assert "d4d8" in g.legal_moves()
    g.push("d4d8")
    assert g.piece_at("d9") is None and g.piece_at("e8") is None
    assert g.piece_at("d8") is None and g.piece_at("d4") is None
    assert g.piece_at("e9") == "a"
    assert g.outcome() == Outcome("1-0", "red", Reason.GENERAL_EXPLODED)
    assert g.legal_moves() == []
    with pytest.raises(RulesError, match="already over"):
        g.push("e1e2")


def test_blast_spares_soldiers_but_not_other_pieces() -> None:
    g = game({"e1": "K", "f10": "k", "a5": "R", "c5": "n", "c6": "p", "c4": "P", "d5": "r"})
    g.push("a5c5")
    assert g.fen().startswith("5k3/9/9/9/2p6/9/2P6/9/9/4K4 b")
    assert g.halfmove_clock == 0


def test_blast_takes_own_pieces_too() -> None:
    g = game({"e1": "K", "f10": "k", "a7": "R", "c7": "n", "c8": "N", "c6": "p"})
    g.push("a7c7")
    assert g.piece_at("c8") is None and g.piece_at("c6") == "p"


def test_captured_and_capturing_soldiers_are_removed() -> None:
    g = game({"e1": "K", "f10": "k", "a6": "R", "c6": "p", "c7": "P", "c5": "P"})
    g.push("a6c6")  # captured soldier goes; the bystander soldiers c7/c5 stay
    assert [g.piece_at(p) for p in ("a6", "c6", "c7", "c5")] == [None, None, "P", "P"]
    g = game({"e1": "K", "f10": "k", "d7": "P", "c7": "n", "c8": "c", "c6": "p"})
    g.push("d7c7")  # the capturing soldier explodes with its target; c8 goes, c6 stays
    assert [g.piece_at(p) for p in ("d7", "c7", "c8", "c6")] == [None, None, None, "p"]


def test_cannon_shot_is_a_trade() -> None:
    g = game({"e1": "K", "f10": "k", "a3": "C", "a4": "P", "a7": "n", "b7": "r", "a8": "c"})
    g.push("a3a7")
    assert [g.piece_at(p) for p in ("a3", "a4", "a7", "b7", "a8")] == [None, "P", None, "r", "c"]
    assert g.halfmove_clock == 0


def test_no_capture_next_to_own_general() -> None:
    pos = {"e1": "K", "d5": "R", "d1": "n", "f10": "k"}
    g = game(pos)
    assert "d5d1" not in g.legal_moves()
    with pytest.raises(RulesError, match="would blow it up"):
        g.push("d5d1")
    assert "d5d1" in game(pos, variant="xiangqi").legal_moves()


def test_cannon_capture_next_to_own_general_is_legal() -> None:
    g = game({"e1": "K", "d5": "C", "d3": "A", "d1": "n", "f10": "k"})
    g.push("d5d1")
    assert [g.piece_at(p) for p in ("d5", "d3", "d1", "e1")] == [None, "A", None, "K"]


def test_general_never_captures() -> None:
    pos = {"e1": "K", "e2": "n", "f10": "k"}
    assert "e1e2" not in game(pos).legal_moves()
    with pytest.raises(RulesError, match="general never captures"):
        game(pos).push("e1e2")
    assert "e1e2" in game(pos, variant="xiangqi").legal_moves()


def test_removing_enemy_general_is_legal_even_if_it_exposes_own() -> None:
    # The red chariot on c2 is pinned by the black chariot on a2, but taking the
    # elephant next to the black general blows the general up: legal, and it wins.
    pos = {"d2": "K", "c2": "R", "a2": "r", "d10": "k", "c10": "b", "d5": "p"}
    assert "c2c10" not in game(pos, variant="xiangqi").legal_moves()
    g = game(pos)
    g.push("c2c10")
    assert g.outcome() == Outcome("1-0", "red", Reason.GENERAL_EXPLODED)


def test_blast_that_exposes_own_general_is_illegal() -> None:
    # Capturing on d2 blows up the red advisor on e2, the only piece between the red
    # general and the black chariot on e7.
    pos = {"e1": "K", "e2": "A", "e7": "r", "d5": "R", "d2": "n", "f10": "k"}
    assert "d5d2" not in game(pos).legal_moves()
    assert "d5d2" in game(pos, variant="xiangqi").legal_moves()


def test_blast_that_makes_generals_face_is_illegal() -> None:
    pos = {"e1": "K", "e10": "k", "e5": "n", "d5": "c", "a5": "R"}
    assert "a5d5" not in game(pos).legal_moves()
    assert "a5d5" in game(pos, variant="xiangqi").legal_moves()


def test_wide_check_chariot_on_advisor_file() -> None:
    pos = {"d1": "K", "e10": "k", "f10": "a", "f5": "R", "i9": "r"}
    g = game(pos, turn="b")
    assert g.is_check()  # wide sense: Rxf10 would blow up the general
    assert not game(pos, turn="b", variant="xiangqi").is_check()
    # Only direct attacks restrict legality: Black may ignore it ... and lose.
    g.push("i9i8")
    g.push("f5f10")
    assert g.outcome() == Outcome("1-0", "red", Reason.GENERAL_EXPLODED)


def test_gives_check_in_wide_sense() -> None:
    g = game({"d1": "K", "e10": "k", "f10": "a", "a5": "R"})
    assert g.gives_check("a5f5")
    assert not g.gives_check("a5b5")


def test_cannon_on_advisor_is_not_wide_check() -> None:
    # A cannon capture does not explode, so it threatens only its target.
    g = game({"d1": "K", "e10": "k", "f10": "a", "f5": "C", "f7": "P"}, turn="b")
    assert not g.is_check()


def test_wide_check_through_a_soldier_next_to_the_general() -> None:
    # The captured piece beside the general may be a soldier: the blast still takes it.
    g = game({"d1": "K", "e8": "k", "e7": "p", "a7": "R"}, turn="b")
    assert g.is_check()


def test_wide_check_by_horse() -> None:
    g = game({"d1": "K", "e10": "k", "f10": "a", "h9": "N"}, turn="b")
    assert g.is_check()


def test_perpetual_wide_check_loses() -> None:
    g = game({"d1": "K", "e10": "k", "d10": "a", "f10": "a", "f5": "R", "i9": "r"})
    for move in ["f5d5", "i9i8", "d5f5", "i8i9"] * 2:
        assert g.outcome() is None
        g.push(move)
        if g.turn == "black":
            assert g.is_check()
    assert g.outcome() == Outcome("0-1", "black", Reason.PERPETUAL_CHECK)


def test_checkmate_in_atomic() -> None:
    g = game({"d1": "K", "e10": "k", "a10": "R", "b9": "R"}, turn="b")
    assert g.legal_moves() == []
    assert g.outcome() == Outcome("1-0", "red", Reason.CHECKMATE)
