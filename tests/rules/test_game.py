"""Game: every outcome reason, the game-end rules' edge cases, history and errors."""

from __future__ import annotations

import random
import re

import pytest

from ladder.rules import Game, GameOverError, Outcome, Reason, RulesError
from ladder.rules.variants import XIANGQI_START
from ladder.variants import VARIANT_IDS

from .helpers import make_fen, pieces_on_board, replay_engine_position


def game(
    pieces: dict[str, str], turn: str = "w", halfmove: int = 0, variant: str = "xiangqi"
) -> Game:
    return Game.from_fen(variant, make_fen(pieces, turn, halfmove=halfmove))


def outcome_of(g: Game) -> tuple[str, str | None, Reason]:
    o = g.outcome()
    assert o is not None
    return o.result, o.winner, o.reason


MATE = {"d1": "K", "e10": "k", "a10": "R", "b9": "R"}
STALEMATE = {"f1": "K", "d10": "k", "a9": "R", "e5": "R"}


@pytest.mark.parametrize("variant", ["xiangqi", "atomic-xiangqi", "crazyhouse-xiangqi"])
def test_checkmate_loses(variant: str) -> None:
    g = game(MATE, turn="b", variant=variant)
    assert g.is_check() and g.legal_moves() == []
    assert outcome_of(g) == ("1-0", "red", Reason.CHECKMATE)


@pytest.mark.parametrize("variant", ["xiangqi", "atomic-xiangqi", "crazyhouse-xiangqi"])
def test_stalemate_loses(variant: str) -> None:
    g = game(STALEMATE, turn="b", variant=variant)
    assert not g.is_check() and g.legal_moves() == []
    assert outcome_of(g) == ("1-0", "red", Reason.STALEMATE)


def test_game_goes_on() -> None:
    g = Game.from_fen("xiangqi")
    assert g.outcome() is None and not g.is_check()
    assert g.turn == "red" and g.ply == 0 and g.moves == []
    assert g.start_fen == XIANGQI_START


def test_sixty_plies_draw() -> None:
    g = game({"d1": "K", "e10": "k", "a1": "R", "i10": "r"}, halfmove=58)
    g.push("a1a2")
    assert g.outcome() is None
    g.push("i10i9")
    assert g.halfmove_clock == 60
    assert outcome_of(g) == ("1/2-1/2", None, Reason.SIXTY_PLIES)
    with pytest.raises(GameOverError, match="already over"):  # told apart by its type
        g.push("a2a1")
    with pytest.raises(RulesError, match="illegal move") as illegal:  # past the end: legal only
        g.push("a2b4", after_end=True)
    assert not isinstance(illegal.value, GameOverError)
    g.push("a2a1", after_end=True)  # a GUI's game, judged by other rules, plays on
    assert g.moves[-1] == "a2a1" and g.turn == "black"


def test_sixty_plies_counter_from_fen_already_reached() -> None:
    g = game({"d1": "K", "e10": "k", "a1": "R"}, halfmove=75)
    assert outcome_of(g)[2] == Reason.SIXTY_PLIES


def test_checkmate_on_the_sixtieth_ply_wins() -> None:
    g = game({"d1": "K", "e10": "k", "a8": "R", "b9": "R"}, halfmove=59)
    g.push("a8a10")
    assert g.halfmove_clock == 60
    assert outcome_of(g) == ("1-0", "red", Reason.CHECKMATE)


def test_stalemate_on_the_sixtieth_ply_wins() -> None:
    g = game({"f1": "K", "d10": "k", "a9": "R", "h5": "R"}, halfmove=59)
    g.push("h5e5")
    assert outcome_of(g) == ("1-0", "red", Reason.STALEMATE)


def test_only_captures_reset_the_count() -> None:
    g = game({"d1": "K", "e10": "k", "a4": "P", "a1": "R", "i1": "N", "i10": "r"}, halfmove=10)
    g.push("a4a5")  # a soldier move does not reset
    assert g.halfmove_clock == 11
    g.push("i10i9")
    g.push("a1b1")
    g.push("i9i1")  # capture
    assert g.halfmove_clock == 0
    assert g.last_capture_index() == 4


CHASE = {"d1": "K", "e10": "k", "b1": "R", "c7": "c"}


def test_repetition_is_a_draw_and_chasing_is_not_punished() -> None:
    g = game(CHASE)
    for move in ["b1c1", "c7b7", "c1b1", "b7c7"] * 2:
        assert g.outcome() is None
        g.push(move)
        assert not g.is_check()
    assert outcome_of(g) == ("1/2-1/2", None, Reason.REPETITION)


def test_two_occurrences_are_not_enough() -> None:
    g = game(CHASE)
    for move in ["b1c1", "c7b7", "c1b1", "b7c7"]:
        g.push(move)
    assert g.outcome() is None


PERPETUAL = {"d1": "K", "e10": "k", "a9": "R"}


def test_perpetual_check_loses() -> None:
    g = game(PERPETUAL)
    for move in ["a9a10", "e10e9", "a10a9", "e9e10"] * 2:
        assert g.outcome() is None
        g.push(move)
    assert outcome_of(g) == ("0-1", "black", Reason.PERPETUAL_CHECK)


def test_sixty_plies_come_before_a_perpetual_check_on_the_same_ply() -> None:
    # From a count of 52, the third occurrence is also the 60th ply without a capture.
    g = game(PERPETUAL, halfmove=52)
    for move in ["a9a10", "e10e9", "a10a9", "e9e10"] * 2:
        assert g.outcome() is None
        g.push(move)
    assert g.halfmove_clock == 60
    assert outcome_of(g) == ("1/2-1/2", None, Reason.SIXTY_PLIES)


def test_perpetual_check_by_black_loses() -> None:
    g = game({"d10": "k", "e1": "K", "a2": "r"}, turn="b")
    for move in ["a2a1", "e1e2", "a1a2", "e2e1"] * 2:
        g.push(move)
    assert outcome_of(g) == ("1-0", "red", Reason.PERPETUAL_CHECK)


def test_perpetual_check_by_both_sides_is_a_draw() -> None:
    # Found by a random search (atomic-xiangqi, wide checks): every move of both sides in
    # the cycle gives check. FSF agrees: draw.
    fen = "rnbakrb2/4a4/1cc6/2p3p1p/p3p4/9/P1P1P1P1P/1C1R5/9/RNBAKABN1 w - - 21 12"
    g = Game.from_fen("atomic-xiangqi", fen)
    for move in ["b3c3", "c8e8", "c3b3", "e8c8"] * 2:
        assert g.outcome() is None
        g.push(move)
        assert g.is_check()
    assert outcome_of(g) == ("1/2-1/2", None, Reason.REPETITION)


def test_checking_only_some_moves_is_a_draw() -> None:
    # Red checks with a8a10 but not with a10a8: not every move, so an ordinary draw.
    g = game({"d1": "K", "e10": "k", "a8": "R"})
    for move in ["a8a10", "e10e9", "a10a8", "e9e10"] * 2:
        g.push(move)
    assert outcome_of(g) == ("1/2-1/2", None, Reason.REPETITION)


def test_outcome_dataclass() -> None:
    assert Outcome.win(0, Reason.CHECKMATE) == Outcome("1-0", "red", Reason.CHECKMATE)
    assert Outcome.draw(Reason.REPETITION).winner is None
    assert str(Reason.GENERAL_EXPLODED) == "general-exploded"


def test_push_pop_restore() -> None:
    g = Game.from_fen("xiangqi")
    before = (g.fen(), g.legal_moves(), g.is_check())
    g.push("h3e3")
    g.push("h8e8")
    assert g.pop() == "h8e8"
    assert g.pop() == "h3e3"
    assert (g.fen(), g.legal_moves(), g.is_check()) == before
    with pytest.raises(RulesError, match="no move to take back"):
        g.pop()


def test_copy_is_independent() -> None:
    g = Game.from_fen("xiangqi", None, ["h3e3"])
    c = g.copy()
    c.push("h8e8")
    assert g.moves == ["h3e3"] and c.moves == ["h3e3", "h8e8"]
    assert g.fen() != c.fen()


def test_engine_position_after_a_capture() -> None:
    moves = ["h3e3", "h8e8", "e3e7", "f10e9"]
    g = Game.from_fen("xiangqi", None, moves)
    assert g.last_capture_index() == 3
    assert g.engine_position() == (Game.from_fen("xiangqi", None, moves[:3]).fen(), ("f10e9",))
    assert Game.from_fen("xiangqi").engine_position() == (XIANGQI_START, ())
    copy = g.copy()
    g.pop()
    g.pop()  # the capture taken back: from the start again
    assert g.engine_position() == (XIANGQI_START, ("h3e3", "h8e8"))
    assert copy.engine_position()[1] == ("f10e9",)


def test_engine_position_with_drops_is_the_whole_game() -> None:
    moves = ["h3e3", "h8e8", "e3e7", "A@e9"]  # a capture, then a drop
    g = Game.from_fen("crazyhouse-xiangqi", None, moves)
    assert g.last_capture_index() == 3
    assert g.engine_position() == (g.start_fen, tuple(moves))


_DEST = re.compile(r"([a-i]\d+)$")


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_engine_position_follows_the_replay_rule_at_every_ply(variant: str) -> None:
    """Random games biased toward captures, with take-backs and copies: at every ply the
    engine position is the one the slow replay rule gives (tests/rules/helpers.py)."""
    rng = random.Random(variant)
    for _ in range(20):
        g = Game.from_fen(variant)
        # (FEN, ply) after the last move that took a piece off the board, per ply.
        bases = [(g.fen(), 0)]
        while g.ply < 120 and g.outcome() is None:
            if g.ply and rng.random() < 0.1:
                g.pop()
                bases.pop()
            else:
                legal = g.legal_moves()
                takes = [m for m in legal if "@" not in m and g.piece_at(_DEST.findall(m)[0])]
                move = rng.choice(takes if takes and rng.random() < 0.5 else legal)
                before = pieces_on_board(g.fen())
                g.push(move)
                took = pieces_on_board(g.fen()) < before
                bases.append((g.fen(), g.ply) if took else bases[-1])
            base_fen, base = (g.start_fen, 0) if g.variant.drops else bases[-1]
            assert g.engine_position() == (base_fen, tuple(g.moves[base:])), g.moves
        assert g.copy().engine_position() == g.engine_position()
        assert g.engine_position() == replay_engine_position(variant, g.start_fen, g.moves)


def test_moves_may_be_a_string() -> None:
    assert Game.from_fen("xiangqi", None, "h3e3 h8e8").moves == ["h3e3", "h8e8"]


@pytest.mark.parametrize(
    ("moves", "ply", "words"),
    [
        (["h3e3", "h8e8", "e3e3x"], 3, "malformed"),
        (["h3e3", "h3e3"], 2, "there is no piece on h3"),
        (["h3e3", "e3e7"], 2, "not Black's"),
        (["a1a5"], 1, "cannot move to a5"),
        (["e1e3"], 1, "cannot move to e3"),
        (["a4a3"], 1, "cannot move to a3"),
        (["a1a4"], 1, "holds Red's own piece"),
        (["e5e6"], 1, "there is no piece on e5"),
        (["h3e3", None], 2, "must be a string"),
    ],
)
def test_bad_move_in_list_names_its_ply(moves: list[object], ply: int, words: str) -> None:
    with pytest.raises(RulesError) as err:
        Game.from_fen("xiangqi", None, moves)  # type: ignore[arg-type]
    assert err.value.field == "moves"
    assert err.value.ply == ply
    assert words in err.value.reason, err.value.reason


@pytest.mark.parametrize(
    ("variant", "moves", "points", "ucci"),
    [
        (
            "xiangqi",
            ["a1a6"],
            ("a1", "a6", "a1", "a6"),
            "illegal move 'a0a5': a chariot on a0 cannot move to a5 (not its movement, or blocked)",
        ),
        (
            "xiangqi",
            ["h3e3", "h3e3"],
            ("h3", "e3", "h3"),
            "illegal move 'h2e2': there is no piece on h2",
        ),
        ("xiangqi", ["a1a1"], ("a1", "a1"), "move 'a0a0' does not move: same start and end point"),
        ("crazyhouse-xiangqi", ["X@e3"], ("e3",), "drop 'X@e2': unknown piece letter 'X'"),
        (
            "xiangqi",
            ["h3e3", "H3E3"],
            (),
            "malformed move 'H3E3': expected e.g. 'h3e3', 'b10c8' or a drop 'A@e3'",
        ),
    ],
)
def test_a_refusal_carries_its_points_as_data(
    variant: str, moves: list[str], points: tuple[str, ...], ucci: str
) -> None:
    """A refused move's reason names its points as data (``points``), so that a GUI's
    notation (UCCI's ranks 0..9) is written from them, not from the message's words."""
    with pytest.raises(RulesError) as err:
        Game.from_fen(variant, None, moves)
    assert err.value.points == points
    assert err.value.reason_in(lambda point: point[0] + str(int(point[1:]) - 1)) == ucci
    assert err.value.reason_in(str) == err.value.reason


def test_move_that_leaves_general_attacked() -> None:
    fen = make_fen({"e1": "K", "e3": "R", "e8": "r", "d10": "k"})
    with pytest.raises(RulesError, match="leave Red's general in check") as err:
        Game.from_fen("xiangqi", fen, ["e3d3"])
    assert err.value.ply == 1


def test_move_list_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("ladder.rules.game.MAX_MOVES", 3)
    with pytest.raises(RulesError, match="more than 3 moves") as err:
        Game.from_fen("xiangqi", None, ["h3e3", "h8e8", "b3b4", "b8b7"])
    assert err.value.ply == 4
    with pytest.raises(RulesError, match="list of move strings"):
        Game.from_fen("xiangqi", None, 5)  # type: ignore[arg-type]


def test_is_legal_and_gives_check() -> None:
    g = Game.from_fen("xiangqi")
    assert g.is_legal("h3e3") and not g.is_legal("h3e4")
    assert not g.is_legal("garbage") and not g.is_legal(None)  # type: ignore[arg-type]
    assert not g.gives_check("h3e3")
    g = Game.from_fen("xiangqi", None, ["h3e3", "h8e8"])
    assert g.gives_check("e3e7")
    with pytest.raises(RulesError, match="illegal move"):
        g.gives_check("e3e9")


def test_a_move_found_legal_is_played_only_in_the_position_it_was_found_legal_in() -> None:
    # push plays what is_legal just accepted without checking it again: that answer is
    # the current position's only, so after any other move or a take-back it is checked.
    g = Game.from_fen("xiangqi")
    assert g.is_legal("h3e3")
    g.push("b3e3")
    with pytest.raises(RulesError, match="illegal move"):
        g.push("h3e3")  # Black to move now: Red's cannon cannot move
    g.pop()
    assert not g.is_legal("h3e9")
    with pytest.raises(RulesError, match="illegal move"):
        g.push("h3e9")
    assert g.is_legal("h3e3")
    g.push("h3e3")
    assert g.moves == ["h3e3"] and g.turn == "black"


def test_piece_at() -> None:
    g = Game.from_fen("xiangqi")
    assert g.piece_at("e1") == "K" and g.piece_at("b10") == "n" and g.piece_at("e5") is None
    with pytest.raises(RulesError):
        g.piece_at("z9")


@pytest.mark.parametrize("variant", ["xiangqi", "atomic-xiangqi"])
def test_engine_position_after_captures_from_a_set_up_position(variant: str) -> None:
    """The FEN after a capture (made when first asked for) carries the capture's move
    number and side to move, in games set up mid-game with Black to move (the replay
    rule's answer at every ply, take-backs included)."""
    start = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 7 37"
    rng = random.Random(f"set-up-{variant}")
    captures = 0
    for _ in range(10):
        g = Game.from_fen(variant, start)
        while g.ply < 40 and g.outcome() is None:
            if g.ply and rng.random() < 0.1:
                g.pop()
            else:
                legal = g.legal_moves()
                taking = [m for m in legal if g.piece_at(_DEST.search(m)[1])]  # type: ignore[index]
                g.push(rng.choice(taking or legal))
                captures += bool(taking)
            if rng.random() < 0.5:
                assert g.engine_position() == replay_engine_position(variant, start, g.moves)
    assert captures > 50
