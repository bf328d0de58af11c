"""Legal moves in xiangqi: perft from the start, and every piece's rule in hand-made
positions (docs/rules.md "Common to all three"; pages 002/004)."""

from __future__ import annotations

import gzip
import itertools
import json
import random
from pathlib import Path

import pytest

from ladder.rules import Game, perft
from ladder.rules.fen import position_fen
from ladder.rules.movegen import DROP_BASE, Position, attacked
from ladder.rules.notation import move_str, parse_move
from ladder.rules.perft import divide
from ladder.variants import VARIANT_IDS

from .helpers import make_fen, moves_from

K2 = {"e1": "K", "d10": "k"}
DATA = Path(__file__).resolve().parents[2] / "data"


@pytest.mark.parametrize(("depth", "nodes"), [(1, 44), (2, 1_920), (3, 79_666)])
def test_xiangqi_perft(depth: int, nodes: int) -> None:
    assert perft(Game.from_fen("xiangqi"), depth) == nodes


@pytest.mark.slow
def test_xiangqi_perft_depth_4() -> None:
    assert perft(Game.from_fen("xiangqi"), 4) == 3_290_240


def test_divide_sums_to_perft() -> None:
    g = Game.from_fen("xiangqi")
    split = divide(g, 2)
    assert len(split) == 44 and sum(split.values()) == 1_920


def test_perft_depth_zero_and_bad_depth() -> None:
    from ladder.rules import RulesError

    g = Game.from_fen("xiangqi")
    assert perft(g, 0) == 1
    for bad in (-1, 11, 1.5, "2", True):
        with pytest.raises(RulesError):
            perft(g, bad)  # type: ignore[arg-type]


def legal(pieces: dict[str, str], turn: str = "w", variant: str = "xiangqi") -> list[str]:
    return Game.from_fen(variant, make_fen(pieces, turn)).legal_moves()


def test_general_steps_orthogonally_inside_palace() -> None:
    assert moves_from(legal({"d1": "K", "f10": "k"}), "d1") == {"d2", "e1"}
    # d2 would face the black general on the open d-file
    assert moves_from(legal({"e2": "K", "d10": "k"}), "e2") == {"e1", "e3", "f2"}
    assert moves_from(legal({"e2": "K", "d10": "k", "d5": "p"}), "e2") == {"e1", "e3", "d2", "f2"}


def test_advisor_diagonal_inside_palace() -> None:
    assert moves_from(legal({**K2, "e2": "A"}), "e2") == {"d1", "f1", "d3", "f3"}
    assert moves_from(legal({**K2, "d3": "A"}), "d3") == {"e2"}


def test_elephant_two_diagonal_eye_and_river() -> None:
    assert moves_from(legal({**K2, "e3": "B"}), "e3") == {"c1", "g1", "c5", "g5"}
    # blocked eye (own or enemy piece)
    assert moves_from(legal({**K2, "e3": "B", "f4": "p", "d2": "N"}), "e3") == {"g1", "c5"}
    # never across the river
    assert moves_from(legal({**K2, "c5": "B"}), "c5") == {"a3", "e3"}


def test_horse_and_its_leg() -> None:
    all_eight = {"d7", "f7", "d3", "f3", "c6", "c4", "g6", "g4"}
    assert moves_from(legal({**K2, "e5": "N"}), "e5") == all_eight
    # a piece on the upper leg point hobbles both upward moves
    assert moves_from(legal({**K2, "e5": "N", "e6": "p"}), "e5") == all_eight - {"d7", "f7"}


def test_chariot_slides_and_captures_first_piece() -> None:
    dests = moves_from(legal({**K2, "a1": "R", "a4": "p", "c1": "N"}), "a1")
    assert dests == {"a2", "a3", "a4", "b1"}


def test_cannon_boundary_cases() -> None:
    # clear path, no screen: no capture, only quiet moves
    base = {"e1": "K", "d10": "k", "a1": "C"}
    assert moves_from(legal(base), "a1") == {f"a{r}" for r in range(2, 11)} | {"b1", "c1", "d1"}
    # exactly one screen: exactly the capture beyond it (not the screen itself)
    one = {**base, "a4": "P", "a8": "r"}
    assert moves_from(legal(one), "a1") >= {"a2", "a3", "a8"}
    assert "a4" not in moves_from(legal(one), "a1")
    assert "a9" not in moves_from(legal(one), "a1")
    # two screens: no capture in that direction
    two = {**base, "a4": "P", "a6": "p", "a8": "r"}
    assert "a8" not in moves_from(legal(two), "a1")
    # the screen may be an enemy piece; cannot capture own piece beyond it
    own = {**base, "a4": "p", "a8": "R"}
    assert "a8" not in moves_from(legal(own), "a1")


def test_soldier_forward_then_sideways_after_river() -> None:
    assert moves_from(legal({**K2, "c4": "P"}), "c4") == {"c5"}
    assert moves_from(legal({**K2, "c5": "P"}), "c5") == {"c6"}
    assert moves_from(legal({**K2, "c6": "P"}), "c6") == {"c7", "b6", "d6"}
    assert moves_from(legal({**K2, "a10": "P"}), "a10") == {"b10"}
    assert moves_from(legal({**K2, "c7": "p"}, "b"), "c7") == {"c6"}
    assert moves_from(legal({**K2, "c5": "p"}, "b"), "c5") == {"c4", "b5", "d5"}


def test_flying_general_rule() -> None:
    # The horse on e5 is the only piece between the generals: it may not move at all.
    pos = {"e1": "K", "e10": "k", "e5": "N"}
    assert moves_from(legal(pos), "e5") == set()
    # The general may not step onto the open file of the other general.
    assert moves_from(legal({"e1": "K", "d10": "k", "e5": "N"}), "e1") == {"e2", "f1"}


def test_pinned_piece_and_check_evasion() -> None:
    # Red chariot on e3 is pinned against its general by the black chariot on e8.
    pos = {"e1": "K", "e3": "R", "e8": "r", "d10": "k"}
    assert moves_from(legal(pos), "e3") == {"e2", "e4", "e5", "e6", "e7", "e8"}
    # In check from a horse: step away, block its leg, or capture it.
    g = Game.from_fen("xiangqi", make_fen({"e1": "K", "g2": "n", "a2": "R", "f10": "k"}))
    assert g.is_check()
    # (not e1f1: it would face the black general on the open f-file)
    assert set(g.legal_moves()) == {"e1d1", "e1e2", "a2f2", "a2g2"}


def test_horse_check_blocked_by_leg() -> None:
    g = Game.from_fen("xiangqi", make_fen({"e1": "K", "g2": "n", "f2": "R", "d10": "k"}))
    assert not g.is_check()


# ---------------------------------------------------------------- one move at a time


def _random_positions(variant: str, games: int) -> list[Position]:
    """Positions of capture-biased random games of ``variant``, every third ply and every
    one in check (each a copy)."""
    out = []
    for seed in range(games):
        rng = random.Random(f"{variant}-{seed}")
        game = Game.from_fen(variant)
        while game.outcome() is None and game.ply < 160:
            if game.ply % 3 == 0 or game.is_check():
                out.append(game.position.copy())
            legal = game.legal_moves()
            caps = [m for m in legal if "@" in m or game.position.is_capture(parse_move(m))]
            game.push(rng.choice(caps if caps and rng.random() < 0.4 else legal))
        out.append(game.position.copy())  # the ending (mate, stalemate, a general gone)
    return out


def _master_positions(games: int) -> list[Position]:
    """Every fifth position of the first ``games`` grandmaster games (data/README.md)."""
    out = []
    with gzip.open(DATA / "master-games.jsonl.gz", "rt") as lines:
        for line in itertools.islice(lines, games):
            game = Game.from_fen("xiangqi")
            for ply, iccs in enumerate(json.loads(line)["iccs"]):
                if ply % 5 == 0:
                    out.append(game.position.copy())
                move = f"{iccs[0]}{int(iccs[1]) + 1}{iccs[2]}{int(iccs[3]) + 1}"
                game.push(move, after_end=True)  # some play on past our rules' end
    return out


def _assert_one_move_tests_agree(positions: list[Position]) -> None:
    """``is_legal_move`` of every move int, legal or not (drops of every type included),
    and ``has_legal_move`` answer as membership in ``legal_moves()`` does, with the check
    given (as a game gives it) and found out."""
    candidates = range((DROP_BASE + 8) * 90)
    for pos in positions:
        legal = set(pos.legal_moves())
        us = pos.turn
        alive = pos.kings[0] >= 0 and pos.kings[1] >= 0
        check = alive and attacked(pos.board, pos.kings[us], us)
        for in_check in (None, check):
            wrong = [m for m in candidates if pos.is_legal_move(m, in_check) != (m in legal)]
            assert not wrong, (position_fen(pos), in_check, [move_str(m) for m in wrong[:5]])
            assert pos.has_legal_move(in_check) == bool(legal), position_fen(pos)


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_one_move_legality_agrees_with_the_generator_in_random_games(variant: str) -> None:
    positions = _random_positions(variant, 12)
    assert sum(bool(p.legal_moves()) for p in positions) > 150
    _assert_one_move_tests_agree(positions)


def test_one_move_legality_agrees_with_the_generator_in_grandmaster_games() -> None:
    _assert_one_move_tests_agree(_master_positions(12))
