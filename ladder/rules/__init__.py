"""Mistboard's rules checker: an independent pure-Python implementation of docs/rules.md.

Three rule sets (``xiangqi``, ``atomic-xiangqi``, ``crazyhouse-xiangqi``); FEN and move
notation as Fairy-Stockfish writes them; legal moves, check, and the game outcome. It does
not use Fairy-Stockfish: its value is that it is a second, independent reading of the
rules (the tests compare the two).

Typical use::

    from ladder.rules import Game
    game = Game.from_fen("atomic-xiangqi", moves=["h3e3", "h8e8"])
    game.legal_moves()      # ['a1a2', ...]
    game.push("e3e7")
    game.outcome()          # Outcome(result='1-0', winner='red', reason=...) or None

Every bad input raises :class:`RulesError` (a ``ValueError``), and nothing else.
"""

from ladder.rules.errors import MAX_FEN_LENGTH, MAX_MOVES, GameOverError, RulesError
from ladder.rules.game import Game, Outcome, Reason
from ladder.rules.notation import normalize_move
from ladder.rules.perft import divide, perft

__all__ = [
    "MAX_FEN_LENGTH",
    "MAX_MOVES",
    "Game",
    "GameOverError",
    "Outcome",
    "Reason",
    "RulesError",
    "divide",
    "normalize_move",
    "perft",
]
