"""The one error type of the rules checker, and the input bounds it enforces.

Every problem with caller input (an unknown variant, a malformed or impossible FEN, a
malformed or illegal move, too much input) is reported as :class:`RulesError`, a
``ValueError`` subclass, and nothing else escapes the checker's public functions for
any input. Its fields say what was wrong and where, so an HTTP service can turn it into
a 4xx answer without parsing the message.
"""

from __future__ import annotations

from typing import Final

#: Longest FEN accepted, in characters.
MAX_FEN_LENGTH: Final = 256
#: Longest move list accepted by :meth:`ladder.rules.Game.from_fen`, in plies.
MAX_MOVES: Final = 1000
#: Longest single move string accepted (``b10c10`` is 6).
MAX_MOVE_LENGTH: Final = 8
#: Largest halfmove clock and move number a FEN may give: far beyond any game (a FEN the
#: checker wrote, fed back with moves again and again, takes 100,000 requests of 1,000
#: plies to pass it), and well inside the engine's ``int`` (it doubles the move number;
#: 20 digits would overflow it).
MAX_FEN_COUNTER: Final = 100_000_000


class RulesError(ValueError):
    """Bad input to the rules checker.

    Attributes:
        field: which input was wrong: ``"variant"``, ``"fen"``, ``"moves"`` or ``"move"``.
        reason: a human sentence naming the problem (and the point/rank, where it has one).
        ply: for a move inside a move list, its 1-based position in that list; else None.
    """

    def __init__(self, field: str, reason: str, ply: int | None = None) -> None:
        self.field = field
        self.reason = reason
        self.ply = ply
        where = f"{field}" if ply is None else f"{field}[ply {ply}]"
        super().__init__(f"{where}: {reason}")


class GameOverError(RulesError):
    """A move after the game's end (its reason and result are in the message): a
    caller that answers "game over" apart from "illegal move" tells them by type."""


def check_text(
    value: object, field: str, max_length: int, what: str, ply: int | None = None
) -> str:
    """Return ``value`` if it is a short, printable ASCII string, else raise RulesError."""
    if not isinstance(value, str):
        raise RulesError(field, f"{what} must be a string, not {type(value).__name__}", ply)
    if len(value) > max_length:
        raise RulesError(
            field, f"{what} is {len(value)} characters long; at most {max_length}", ply
        )
    for i, ch in enumerate(value):
        if not (" " <= ch <= "~"):
            raise RulesError(
                field,
                f"{what} contains a control or non-ASCII character {ch!r} at column {i + 1}",
                ply,
            )
    return value
