"""The one error type of the rules checker, and the input bounds it enforces.

Every problem with caller input (an unknown variant, a malformed or impossible FEN, a
malformed or illegal move, too much input) is reported as :class:`RulesError`, a
``ValueError`` subclass, and nothing else escapes the checker's public functions for
any input. Its fields say what was wrong and where, so an HTTP service can turn it into
a 4xx answer without parsing the message.
"""

from __future__ import annotations

from collections.abc import Callable
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
        points: the points the reason names (canonical: ``a1`` .. ``i10``), as data:
            :meth:`reason_in` writes them in another notation (a GUI's ranks 0..9).
    """

    def __init__(
        self, field: str, reason: str, ply: int | None = None, *, points: tuple[str, ...] = ()
    ) -> None:
        """With ``points``, ``reason`` is a template with a ``{}`` slot for each of them
        (any other brace doubled: :func:`literal`)."""
        self.field = field
        self.template = reason
        self.points = points
        self.reason = reason.format(*points) if points else reason
        self.ply = ply
        where = f"{field}" if ply is None else f"{field}[ply {ply}]"
        super().__init__(f"{where}: {self.reason}")

    def reason_in(self, point: Callable[[str], str]) -> str:
        """The reason with each of its points written by ``point``."""
        return self.template.format(*map(point, self.points)) if self.points else self.template


def literal(text: str) -> str:
    """``text`` as it is inside a :class:`RulesError` template (its braces doubled)."""
    return text.replace("{", "{{").replace("}", "}}")


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
    if value.isascii() and value.isprintable():  # the usual case: one pass in C
        return value
    for i, ch in enumerate(value):
        if not (" " <= ch <= "~"):
            raise RulesError(
                field,
                f"{what} contains a control or non-ASCII character {ch!r} at column {i + 1}",
                ply,
            )
    return value
