"""Seeds: the one derivation of a seed from its parts, and a move's seed derived when read.

A match derives its game seeds, ``derive_seed(match seed, match id, game number)``, and
each game's move seeds, ``derive_seed(game seed, ply)``; the bridge one per position,
``derive_seed(game seed, start FEN, *moves)``. A level move draws its choice with
``random.Random(seed)`` (:mod:`ladder.level_engine.level_move`), so a match's or a GUI's
move is the service's move for the same position, level and seed.
"""

from __future__ import annotations

import hashlib

__all__ = ["MoveSeed", "derive_seed"]


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from any parts (stable across processes and machines)."""
    digest = hashlib.sha256(":".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


class MoveSeed:
    """The seed of one move, ``derive_seed(*parts)``, derived when a player first reads
    it (:meth:`value`). Only a level player reads its seed: an engine player's move is
    spared the hash, a twentieth of the game loop's CPU a move at 200 nodes
    (docs/match.md)."""

    __slots__ = ("_parts", "_value")

    def __init__(self, *parts: object) -> None:
        self._parts = parts
        self._value: int | None = None

    @classmethod
    def fixed(cls, value: int) -> MoveSeed:
        """A seed given as it is (a measurement's own numbering)."""
        seed = cls()
        seed._value = value
        return seed

    def value(self) -> int:
        """The seed (derived on the first call)."""
        if self._value is None:
            self._value = derive_seed(*self._parts)
        return self._value

    def __repr__(self) -> str:
        if self._parts:
            return f"MoveSeed{self._parts!r}"
        return f"MoveSeed.fixed({self._value})"
