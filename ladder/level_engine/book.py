"""The opening books: where every level's first moves come from.

A level does not vary its opening by playing a weaker search: it draws its first moves
from a book, weighted by how often each move was played, with the move's seed (the same
seed, the same move). Out of the book it plays by its own rule
(:func:`ladder.level_engine.level_move.choose`).

- **xiangqi**: the grandmaster games (``data/master-games.jsonl.gz``): every position of
  their first plies that at least ``min_games`` games reached, with every move at least
  that many of them played there, weighted by that count. The book was pruned when it
  was built (``scripts/make_book.py``): a move that loses more than the stated margin
  against a deep search of its position is not in it, so nothing is searched at play time.
- **atomic-xiangqi**, **crazyhouse-xiangqi**: the engine's own balanced openings (the 300
  of each opening suite, ``ladder/openings/<variant>.txt``: random plies kept when a
  search scored the result within ±60 cp), as a tree weighted by how many openings pass
  through each move.

A book file (``ladder/openings/book-<variant>.json``) is JSON::

    {"variant": "xiangqi", "source": "...", "plies": 16, "positions": {
        "<board FEN> <side>": [["h3e3", 412], ["b3e3", 37], ...], ...}}

The position key is the FEN's first two fields (the board, with the hands in a variant
with drops, and the side to move): a transposition is the same position.
"""

from __future__ import annotations

import functools
import hashlib
import json
import random
from dataclasses import dataclass
from pathlib import Path

from ladder.package_data import data_path
from ladder.rules import Game

__all__ = ["Book", "BookError", "book_digest", "book_path", "load_book", "position_key"]


class BookError(ValueError):
    """A book file is malformed."""


def position_key(game: Game) -> str:
    """The book's key of ``game``'s current position: board (and hands) and side."""
    return " ".join(game.fen().split()[:2])


def book_path(variant: str) -> Path:
    """The shipped book of ``variant``."""
    return data_path("openings") / f"book-{variant}.json"


@dataclass(frozen=True)
class Book:
    """One variant's book: per position, the moves and their weights."""

    variant: str
    source: str
    plies: int
    positions: dict[str, tuple[tuple[str, int], ...]]

    def moves(self, game: Game) -> tuple[tuple[str, int], ...]:
        """The book's moves at ``game``'s position (empty out of the book or past its
        plies), each legal there."""
        if game.ply >= self.plies or game.variant.name != self.variant:
            return ()
        entries = self.positions.get(position_key(game), ())
        legal = set(game.legal_moves()) if entries else set()
        return tuple((m, w) for m, w in entries if m in legal)

    def pick(self, game: Game, seed: int) -> str | None:
        """A book move at ``game``'s position drawn by weight with ``seed`` (its own
        stream of it, so the choice among lines out of the book stays independent); None
        out of the book."""
        entries = self.moves(game)
        if not entries:
            return None
        rng = random.Random(f"book:{seed}")
        return rng.choices([m for m, _ in entries], weights=[w for _, w in entries])[0]

    def to_json(self) -> str:
        return json.dumps(
            {
                "variant": self.variant,
                "source": self.source,
                "plies": self.plies,
                "positions": {k: [list(e) for e in v] for k, v in sorted(self.positions.items())},
            },
            indent=0,
            sort_keys=True,
        )


def parse_book(text: str, where: str) -> Book:
    """A :class:`Book` from a book file's text; :class:`BookError` naming ``where``."""
    try:
        data = json.loads(text)
        positions = {
            str(key): tuple((str(m), int(w)) for m, w in entries)
            for key, entries in data["positions"].items()
        }
        book = Book(str(data["variant"]), str(data["source"]), int(data["plies"]), positions)
    except (ValueError, KeyError, TypeError) as exc:
        raise BookError(f"{where}: not a book file: {exc}") from exc
    if any(w <= 0 for entries in positions.values() for _, w in entries):
        raise BookError(f"{where}: every book move needs a positive weight")
    return book


@functools.cache
def book_digest(variant: str) -> str | None:
    """The first 12 hex digits of the SHA-256 of ``variant``'s shipped book file (None
    without one): what a game played from it depends on."""
    where = book_path(variant)
    return hashlib.sha256(where.read_bytes()).hexdigest()[:12] if where.exists() else None


@functools.cache
def load_book(variant: str, path: Path | None = None) -> Book | None:
    """``variant``'s book (the shipped one unless ``path``); None when there is none."""
    where = path or book_path(variant)
    if not where.exists():
        return None
    book = parse_book(where.read_text(), str(where))
    if book.variant != variant:
        raise BookError(f"{where}: a book of {book.variant}, not {variant}")
    return book
