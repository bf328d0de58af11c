"""Opening suites and the game schedule (pairs with colours reversed, seeded order).

A suite is a text file, one opening a line (``ladder/openings/<variant>.txt``, made by
``scripts/make_openings.py``)::

    # comment
    h3e3 h10g8 h1g3 i10h10            <- moves from the variant's start position
    <FEN> | h3e3 h10g8                <- a start FEN, then moves (either may be empty)

Trailing ``# ...`` on a line is a comment (the generator writes the shallow engine
evaluation there). Every opening is replayed through the rules checker on loading.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from pathlib import Path

from ladder.package_data import data_path
from ladder.rules import Game, RulesError

__all__ = [
    "OPENINGS_DIR",
    "GameSlot",
    "Opening",
    "OpeningError",
    "default_suite",
    "load_openings",
    "parse_openings",
    "schedule",
    "suite_digest",
]

OPENINGS_DIR = data_path("openings")


class OpeningError(ValueError):
    """An opening suite that cannot be used."""


@dataclass(frozen=True)
class Opening:
    """A start position (None: the variant's) and the moves played from it."""

    fen: str | None
    moves: tuple[str, ...]
    comment: str = ""

    def line(self) -> str:
        """The suite-file line for this opening."""
        body = " ".join(self.moves)
        if self.fen is not None:
            body = f"{self.fen} | {body}".rstrip()
        return f"{body}  # {self.comment}" if self.comment else body


def parse_openings(variant: str, text: str, source: str = "<openings>") -> list[Opening]:
    """Parse and check a suite's text (every opening must be legal and not finished)."""
    out: list[Opening] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        body, _, comment = raw.partition("#")
        body = body.strip()
        if not body:
            continue
        fen: str | None = None
        moves_text = body
        if "|" in body:
            fen_text, _, moves_text = body.partition("|")
            fen = fen_text.strip() or None
        elif "/" in body:
            fen, moves_text = body, ""
        moves = tuple(moves_text.split())
        try:
            game = Game.from_fen(variant, fen, moves)
        except RulesError as exc:
            raise OpeningError(f"{source}:{number}: {exc}") from exc
        if game.outcome() is not None:
            raise OpeningError(f"{source}:{number}: the game is already over")
        out.append(Opening(fen, moves, comment.strip()))
    if not out:
        raise OpeningError(f"{source}: no openings")
    return out


def default_suite(variant: str) -> Path:
    """The suite shipped for ``variant``."""
    return OPENINGS_DIR / f"{variant}.txt"


def load_openings(variant: str, path: Path | str | None = None) -> list[Opening]:
    """The openings of a suite file (default: the shipped suite of ``variant``)."""
    p = Path(path) if path is not None else default_suite(variant)
    try:
        text = p.read_text()
    except OSError as exc:
        raise OpeningError(f"cannot read opening suite {p}: {exc}") from exc
    return parse_openings(variant, text, str(p))


def suite_digest(openings: list[Opening]) -> str:
    """A short fingerprint of a suite (part of a match's identity, for resuming)."""
    h = hashlib.sha256("\n".join(f"{o.fen}|{' '.join(o.moves)}" for o in openings).encode())
    return h.hexdigest()[:16]


@dataclass(frozen=True)
class GameSlot:
    """One scheduled game: its number, its pair, the opening, who has Red."""

    game_no: int
    pair_no: int
    opening_no: int
    a_is_red: bool


def schedule(n_openings: int, games: int, seed: int) -> list[GameSlot]:
    """``games`` (rounded up to pairs) in pairs: pair ``k`` plays one opening twice,
    player A Red in the first game and Black in the second.

    Openings are used in a seeded random order, a fresh shuffle for each pass through
    the suite. The schedule depends only on ``(n_openings, seed)`` and grows as a
    prefix when ``games`` grows, so a resumed or extended match plays the same games.
    """
    if n_openings < 1:
        raise OpeningError("no openings")
    pairs = (max(games, 0) + 1) // 2
    rng = random.Random(f"openings:{seed}")
    order: list[int] = []
    slots: list[GameSlot] = []
    for pair in range(pairs):
        if not order:
            order = list(range(n_openings))
            rng.shuffle(order)
            order.reverse()
        opening = order.pop()
        slots.append(GameSlot(2 * pair, pair, opening, True))
        slots.append(GameSlot(2 * pair + 1, pair, opening, False))
    return slots
