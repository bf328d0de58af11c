"""Perft: count the leaf nodes of the legal-move tree, the standard move-generator test."""

from __future__ import annotations

from ladder.rules.errors import RulesError
from ladder.rules.game import Game
from ladder.rules.movegen import Position


def _perft(pos: Position, depth: int) -> int:
    moves = pos.legal_moves()
    if depth == 1:
        return len(moves)
    total = 0
    make = pos.make
    unmake = pos.unmake
    for m in moves:
        undo = make(m)
        total += _perft(pos, depth - 1)
        unmake(m, undo)
    return total


def perft(game: Game, depth: int) -> int:
    """Number of legal move sequences of length ``depth`` from the game's position.

    Game-end rules (repetition, sixty plies) are ignored, as usual for perft; a position
    without a general (atomic) has no moves. ``perft(game, 0)`` is 1.
    """
    if not isinstance(depth, int) or isinstance(depth, bool) or not 0 <= depth <= 10:
        raise RulesError("depth", f"perft depth must be an integer 0..10, not {depth!r}")
    if depth == 0:
        return 1
    return _perft(game.position.copy(), depth)


def divide(game: Game, depth: int) -> dict[str, int]:
    """Perft split by first move (``{move: count}``), for finding generator bugs."""
    out: dict[str, int] = {}
    for move in game.legal_moves():
        g = Game(game.variant, game.position.copy(), game.start_fen)
        g.push(move)
        out[move] = perft(g, depth - 1)
    return out
