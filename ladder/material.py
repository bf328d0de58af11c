"""Material: the site's piece values, and the material on a board.

The values are the ones the Mistboard xiangqi page gives for its own computer opponents
(chariot 9, cannon 4.5, horse 4, advisor 2, elephant 2, soldier 1), in centipawns. The
greedy baseline (:mod:`ladder.match.players.baselines`) counts with them, and the weak levels'
first look (:func:`ladder.level_engine.second_look.first_look`) sees captures by them.
"""

from __future__ import annotations

__all__ = ["PIECE_VALUES", "balance", "material"]

#: Centipawns by FEN letter (either case); the general is not counted.
PIECE_VALUES: dict[str, int] = {"r": 900, "c": 450, "n": 400, "a": 200, "b": 200, "p": 100, "k": 0}


def material(board_fen: str, red: bool) -> int:
    """The material of one side (``red`` or black) on the board part of a FEN, pieces in
    hand (after ``[``) not counted."""
    board = board_fen.split("[")[0]
    return sum(
        PIECE_VALUES.get(ch.lower(), 0) for ch in board if ch.isalpha() and ch.isupper() == red
    )


def balance(board_fen: str, red: bool) -> int:
    """One side's (``red`` or black) material on the board less the other's."""
    return material(board_fen, red) - material(board_fen, not red)
