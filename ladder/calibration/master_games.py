"""The grandmaster games (``data/master-games.jsonl.gz`` in the repository; data/README.md
gives their provenance): what the xiangqi opening book, the weak levels' error profile
and the human reference are built from. A checkout's file, not package data: the book
built from it is what the package ships."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from ladder.package_data import CHECKOUT_ROOT

__all__ = ["MASTER_GAMES", "iccs_to_move", "master_lines"]

MASTER_GAMES = (CHECKOUT_ROOT or Path.cwd()) / "data" / "master-games.jsonl.gz"


def iccs_to_move(iccs: str) -> str:
    """ICCS coordinates (ranks 0-9) as the engine's move (ranks 1-10): h2e2 -> h3e3."""
    return f"{iccs[0]}{int(iccs[1]) + 1}{iccs[2]}{int(iccs[3]) + 1}"


def master_lines(path: Path = MASTER_GAMES) -> list[list[str]]:
    """Every game's moves, in the engine's notation."""
    with gzip.open(path, "rt") as fh:
        return [[iccs_to_move(m) for m in json.loads(line)["iccs"]] for line in fh]
