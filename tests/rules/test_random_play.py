"""ladder.rules.random_play: long random games that have not ended."""

from __future__ import annotations

from ladder.rules import Game
from ladder.rules.random_play import unfinished_random_game


def test_a_long_crazyhouse_game_is_legal_and_unfinished() -> None:
    moves = unfinished_random_game("crazyhouse-xiangqi", 300, seed=5)
    assert len(moves) == 300
    game = Game.from_fen("crazyhouse-xiangqi", None, moves)  # replays: every move legal
    assert game.outcome() is None and game.legal_moves()
    assert unfinished_random_game("crazyhouse-xiangqi", 300, seed=5) == moves
    assert unfinished_random_game("crazyhouse-xiangqi", 300, seed=6) != moves
