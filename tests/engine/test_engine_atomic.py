"""atomic-xiangqi (docs/rules.md): every rule in a concrete position, over UCI and pyffish."""

from __future__ import annotations

from types import ModuleType

import pytest

from .fsf_uci import UciEngine

ATOMIC = "atomic-xiangqi"


def after(fsf: UciEngine, fen: str, moves: list[str]) -> tuple[str, set[str]]:
    """Board FEN and legal moves after playing moves from fen."""
    fsf.variant(ATOMIC)
    fsf.position(fen, moves)
    return fsf.fen(), fsf.legal_moves()


def test_worked_fact_chariot_takes_cannon_next_to_general(fsf: UciEngine) -> None:
    """docs/rules.md worked fact: Rxd8 (cannon) next to the general on d9 removes the general and
    the elephant on e8 (orthogonal neighbours); the advisor on e9 (diagonal) stays; Red wins."""
    fen, legal = after(fsf, "9/3ka4/3cb4/9/9/9/9/3R5/9/4K4 w - - 0 1", ["d3d8"])
    assert fen == "9/4a4/9/9/9/9/9/9/9/4K4 b - - 0 1"
    assert legal == set()  # Black has no general: the game is over


def test_orthogonal_blast_diagonals_stay_soldiers_immune(fsf: UciEngine) -> None:
    """Rxe6: removes the chariot, the horse on e6, the black chariot on d6 and the red horse
    on f6 (either side); the soldier on e7 (bystander) stays; diagonal f7 and d5 stay."""
    fen, _ = after(fsf, "5k3/9/9/4pc3/3rnN3/3N5/9/9/4R4/3K5 w - - 0 1", ["e2e6"])
    assert fen == "5k3/9/9/4pc3/9/3N5/9/9/9/3K5 b - - 0 1"


def test_capturing_soldier_explodes_bystander_soldiers_stay(fsf: UciEngine) -> None:
    """Pxe7 (horse): the capturing soldier and the horse go, the elephant on e8 goes, the
    soldiers on d7 and f7 stay."""
    fen, _ = after(fsf, "3k5/9/4b4/3pnP3/4P4/9/9/9/9/5K3 w - - 0 1", ["e6e7"])
    assert fen == "3k5/9/9/3p1P3/9/9/9/9/9/5K3 b - - 0 1"


def test_captured_soldier_is_removed(fsf: UciEngine) -> None:
    fen, _ = after(fsf, "3k5/9/9/9/4p4/9/9/9/4R4/5K3 w - - 0 1", ["e2e6"])
    assert fen == "3k5/9/9/9/9/9/9/9/9/5K3 b - - 0 1"


def test_cannon_shot_is_a_trade(fsf: UciEngine) -> None:
    """Cxe7 over the screen on e4: only the cannon and the chariot on e7 go; the neighbours
    (horse d7, elephant e8) and the screen stay."""
    fen, _ = after(fsf, "3k5/9/4b4/3nr4/9/9/4P4/9/4C4/5K3 w - - 0 1", ["e2e7"])
    assert fen == "3k5/9/4b4/3n5/9/9/4P4/9/9/5K3 b - - 0 1"


OWN_GENERAL = "3k5/9/9/9/9/9/9/R3n1N1C/4K4/9 w - - 0 1"


def test_capture_next_to_own_general(fsf: UciEngine) -> None:
    """Red general e2, black horse e3: the chariot may not take it (the blast would take the
    general); the cannon may (no blast); the general itself never captures."""
    _, legal = after(fsf, OWN_GENERAL, [])
    assert "i3e3" in legal
    assert "a3e3" not in legal
    assert "e2e3" not in legal
    fen, _ = after(fsf, OWN_GENERAL, ["i3e3"])
    assert fen == "3k5/9/9/9/9/9/9/R5N2/4K4/9 b - - 0 1"


def test_diagonal_capture_next_to_own_general_is_legal(fsf: UciEngine) -> None:
    _, legal = after(fsf, "3k5/9/9/9/9/9/9/R2n5/4K4/9 w - - 0 1", [])
    assert "a3d3" in legal


def test_capture_next_to_enemy_general_wins_even_when_in_check(fsf: UciEngine) -> None:
    """Red is in check from the chariot on d5; Rxe9 (advisor) blows up the general on e10,
    which ends the game, so it is legal although it leaves Red's general attacked."""
    fen = "4k4/R3a4/9/9/9/3r5/9/9/9/3K5 w - - 0 1"
    _, legal = after(fsf, fen, [])
    assert legal == {"a9e9", "d1e1"}
    board, legal = after(fsf, fen, ["a9e9"])
    assert board == "9/9/9/9/9/3r5/9/9/9/3K5 b - - 0 1"
    assert legal == set()


def test_capture_next_to_enemy_general_wins_even_opening_the_file(fsf: UciEngine) -> None:
    """The horse on e8 is the only piece between the generals: it may not leave the file,
    except Nxd10, whose blast removes the general on e10."""
    _, legal = after(fsf, "3ak4/9/4N4/9/9/9/9/9/9/4K4 w - - 0 1", [])
    assert legal == {"e8d10", "e1d1", "e1e2", "e1f1"}


def test_flying_general_after_explosion(fsf: UciEngine) -> None:
    """Rxd6 would blast the horse on e6, the only piece between the generals: illegal.
    Cxd6 does not explode: legal."""
    fen = "4k4/9/9/9/R2rn4/9/3P5/9/3C5/4K4 w - - 0 1"
    _, legal = after(fsf, fen, [])
    assert "a6d6" not in legal
    assert "d2d6" in legal
    board, _ = after(fsf, fen, ["d2d6"])
    assert board == "4k4/9/9/9/R3n4/9/3P5/9/9/4K4 b - - 0 1"


def test_flying_general_general_steps_onto_open_file(fsf: UciEngine) -> None:
    """e2d2 would face the general on d10 down the open d-file."""
    _, legal = after(fsf, OWN_GENERAL, [])
    assert "e2d2" not in legal
    assert {"e2e1", "e2f2"} <= legal


def test_general_stays_in_palace(fsf: UciEngine) -> None:
    """The general's flying-general 'capture' never moves it out of the palace."""
    _, legal = after(fsf, "3k5/9/3n5/9/4p4/9/9/4K4/9/9 w - - 0 1", [])
    assert legal == {"e3d3", "e3f3", "e3e2"}


@pytest.mark.parametrize(("depth", "nodes"), [(1, 44), (2, 1_928), (3, 80_117)])
def test_start_position_perft(fsf: UciEngine, depth: int, nodes: int) -> None:
    """Regression values measured with the patched engine (xiangqi's 1,920 differs at depth 2:
    Cxb10/Cxh10 are trades here). For cross-checking with the rules checker."""
    fsf.variant(ATOMIC)
    fsf.position()
    assert fsf.perft(depth) == nodes


def test_wide_check_reported(pyffish: ModuleType) -> None:
    """Check, wide sense: a chariot bearing on the advisor beside the general is check."""
    # Red chariot on a9 attacks the advisor on e9, next to the general on e10.
    assert pyffish.gives_check(ATOMIC, "4k4/R3a4/9/9/9/9/9/9/9/3K5 b - - 0 1", [])
    # The same with a cannon (its shot does not explode): no check.
    assert not pyffish.gives_check(ATOMIC, "4k4/C1p1a4/9/9/9/9/9/9/9/3K5 b - - 0 1", [])
    # Diagonal neighbour: no check.
    assert not pyffish.gives_check(ATOMIC, "4k4/R2a5/9/9/9/9/9/9/9/3K5 b - - 0 1", [])
    # Direct attacks on the general are check, by a chariot or a cannon.
    assert pyffish.gives_check(ATOMIC, "R3k4/9/9/9/9/9/9/9/9/3K5 b - - 0 1", [])
    assert pyffish.gives_check(ATOMIC, "4k4/9/4p4/9/9/9/9/9/4C4/3K5 b - - 0 1", [])
    # After the move that creates the threat (Red: Rb9, a9-b9 bears on e9 too).
    assert pyffish.gives_check(ATOMIC, "4k4/4a4/R8/9/9/9/9/9/9/3K5 w - - 0 1", ["a8a9"])
    assert not pyffish.gives_check(ATOMIC, "4k4/4a4/R8/9/9/9/9/9/9/3K5 w - - 0 1", ["a8a7"])


def test_pyffish_agrees_with_engine(pyffish: ModuleType, fsf: UciEngine) -> None:
    for fen in (
        "4k4/R3a4/9/9/9/3r5/9/9/9/3K5 w - - 0 1",
        OWN_GENERAL,
        "4k4/9/9/9/R2rn4/9/3P5/9/3C5/4K4 w - - 0 1",
    ):
        _, legal = after(fsf, fen, [])
        assert set(pyffish.legal_moves(ATOMIC, fen, [])) == legal
    assert pyffish.get_fen(ATOMIC, "9/3ka4/3cb4/9/9/9/9/3R5/9/4K4 w - - 0 1", ["d3d8"]) == (
        "9/4a4/9/9/9/9/9/9/9/4K4 b - - 0 1"
    )
    # The general is gone: Black has lost (extinction), as an immediate game end.
    end, result = pyffish.is_immediate_game_end(
        ATOMIC, "9/3ka4/3cb4/9/9/9/9/3R5/9/4K4 w - - 0 1", ["d3d8"]
    )
    assert end
    assert result < 0


@pytest.mark.parametrize(
    ("fen", "move", "exploded"),
    [
        # The cannon shot must not blast the horse on d7 (stock FSF: it would).
        (
            "3k5/9/4b4/3nr4/9/9/4P4/9/4C4/5K3 w - - 0 1",
            "e2e7",
            "3k5/9/4b4/3n5/9/9/4P4/9/9/5K3 b - - 0 1",
        ),
        # Diagonal neighbours stay (stock FSF: all eight go).
        (
            "5k3/9/9/4pc3/3rnN3/3N5/9/9/4R4/3K5 w - - 0 1",
            "e2e6",
            "5k3/9/9/4pc3/9/3N5/9/9/9/3K5 b - - 0 1",
        ),
    ],
)
def test_stock_engine_cannot_play_atomic_xiangqi(
    fsf: UciEngine, stock_fsf: UciEngine, fen: str, move: str, exploded: str
) -> None:
    """Guard: the options are the patch's; stock FSF silently ignores them and plays other rules."""
    assert after(fsf, fen, [move])[0] == exploded
    assert after(stock_fsf, fen, [move])[0] != exploded
