"""The frozen position sets the weak levels are measured on (``data/positions-<variant>.jsonl.gz``;
``scripts/make_position_sets.py`` builds them, ``scripts/measure_mistakes.py --sets``
measures on them; data/README.md gives their provenance).

Each set is a kind of position a beginner meets, found in the committed calibration
record's games (``calibration/games-<variant>.jsonl.gz``, which are full of weak players'
positions), judged by the rules checker alone (:mod:`ladder.level_engine.beginner`):

- ``check``: the side to move is in check (atomic-xiangqi: the wide sense), some move
  loses at once and some does not: a real choice;
- ``threat``: not in check, the opponent threatens to win at once
  (:func:`ladder.level_engine.beginner.faces_threat`: a mate in one; in atomic a check nothing would
  answer), and some move parries it;
- ``free``: the side to move can win 300 cp or more net by one capture (a two-ply
  exchange: :func:`ladder.level_engine.beginner.best_threat`); the reference engine confirms the
  free
  piece when it is measured;
- ``general``: one position a game, whatever it is;
- ``drops`` (crazyhouse-xiangqi): the side to move has a piece in hand.

Every position has a ``half``: ``tune`` (the rules are tuned on it) or ``report`` (the
figures docs/ladder.md shows), alternating in the order the positions were found.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ladder.level_engine.beginner import best_threat, faces_threat, loses_at_once, parries
from ladder.package_data import CHECKOUT_ROOT
from ladder.rules import Game

__all__ = [
    "DATA",
    "FREE_CP",
    "HALVES",
    "KINDS",
    "SetPosition",
    "kinds_of",
    "load_sets",
    "sets_path",
]

DATA = (CHECKOUT_ROOT or Path.cwd()) / "data"
#: A capture that wins this much net (two plies) takes a free piece.
FREE_CP = 300
KINDS = ("check", "threat", "free", "general", "drops")
HALVES = ("tune", "report")


@dataclass(frozen=True)
class SetPosition:
    """One position of a set: its FEN, its kind, its half, and where it came from (the
    record game's match id and game number, and the ply)."""

    variant: str
    kind: str
    half: str
    fen: str
    source: str

    def game(self) -> Game:
        return Game.from_fen(self.variant, self.fen)

    def row(self) -> dict[str, str]:
        return {"kind": self.kind, "half": self.half, "fen": self.fen, "source": self.source}


def sets_path(variant: str, folder: Path = DATA) -> Path:
    return folder / f"positions-{variant}.jsonl.gz"


def load_sets(variant: str, folder: Path = DATA) -> Iterator[SetPosition]:
    """Every position of ``variant``'s sets, in the order they were found."""
    with gzip.open(sets_path(variant, folder), "rt") as fh:
        for line in fh:
            row = json.loads(line)
            yield SetPosition(variant, row["kind"], row["half"], row["fen"], row["source"])


def kinds_of(game: Game, wanted: set[str]) -> list[str]:
    """The kinds among ``wanted`` (not ``general``, which any position is) that ``game``'s
    position qualifies for."""
    out: list[str] = []
    if game.outcome() is not None:
        return out
    legal = game.legal_moves()
    if "check" in wanted and game.is_check():
        losing = sum(loses_at_once(game, move) for move in legal)
        if 0 < losing < len(legal):
            out.append("check")
    if "threat" in wanted and faces_threat(game) and any(parries(game, m) for m in legal):
        out.append("threat")
    if "free" in wanted:
        threat = best_threat(game)
        if threat is not None and threat.gain_cp >= FREE_CP:
            out.append("free")
    if "drops" in wanted and game.variant.drops:
        hands = game.hands() or {}
        if sum(hands.get(game.turn, {}).values()):
            out.append("drops")
    return out
