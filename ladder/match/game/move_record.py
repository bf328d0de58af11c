"""One move of a match game as the game loop records it: :class:`MoveRecord`, a typed
record in place of the dict each move had, and its stored form (the same keys as
before, only those that are set, so the results databases written before read back)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

__all__ = ["MoveRecord"]

#: Fields left out of the stored form at 0 or empty as well as at None.
_UNSET_WHEN_FALSE = {"restarts", "chosen", "best"}


@dataclass(slots=True)
class MoveRecord:
    """A move a player chose (a book move has none).

    Not frozen: the game loop makes one a move, and a frozen dataclass sets each of its
    ten fields through ``object.__setattr__`` (20 k of the loop's instructions a move
    against about 3 k; scripts/bench_loop_instructions.py)."""

    seconds: float = 0.0  #: the search's time (a baseline's choice: its own)
    cp: int | None = None  #: the mover's score, centipawns
    mate: int | None = None  #: or mate in N (negative: being mated)
    depth: int | None = None
    nodes: int | None = None
    restarts: int = 0  #: engine restarts this move needed (a crash or hang, recovered)
    chosen: str | None = None  #: "random" (a baseline's random move) or "varied" (a level's)
    best: str | None = None  #: the engine's best move, where the variety rule played another
    clock: float | None = None  #: the mover's clock after the move, seconds
    comment: str | None = None  #: a game read from a PGN file: the move's comment as written

    def to_dict(self) -> dict[str, Any]:
        """The stored form: the fields that are set (``seconds`` always)."""
        out: dict[str, Any] = {"seconds": self.seconds}
        for name in _OPTIONAL:
            value = getattr(self, name)
            if value is not None and (value or name not in _UNSET_WHEN_FALSE):
                out[name] = value
        return out

    @classmethod
    def from_dict(cls, stored: dict[str, Any]) -> MoveRecord:
        return cls(**stored)


#: The fields after ``seconds``, in order (found once: ``fields()`` on every move was a
#: tenth of the driver's work a game).
_OPTIONAL = tuple(f.name for f in fields(MoveRecord)[1:])
