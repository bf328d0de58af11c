"""Random legal games that have not ended: the long games the service's bounds are
measured and tested with (scripts/measure_play_bounds.py, tests/service/play)."""

from __future__ import annotations

import random

from ladder.rules.game import Game


def unfinished_random_game(variant: str, plies: int, seed: int) -> list[str]:
    """`plies` random legal moves from `variant`'s start after which the game has not
    ended (crazyhouse-xiangqi's drops and captures keep it away from repetitions and the
    sixty-ply rule; in the other rule sets a long one may not exist: ValueError)."""
    rng = random.Random(seed)
    game = Game.from_fen(variant)
    while game.ply < plies:
        moves = game.legal_moves()
        rng.shuffle(moves)
        for move in moves:
            game.push(move)
            if game.outcome() is None and game.legal_moves():
                break
            game.pop()
        else:
            raise ValueError(f"no move keeps the {variant} game going at ply {game.ply}")
    return game.moves
