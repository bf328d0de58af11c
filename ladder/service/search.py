"""What the service asks of an engine (a job) and what it gets back (lines, best move),
and the variety rule of the weakest levels."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from ladder.levels import Variety

#: A mate counts as this many centipawns (minus the distance) when comparing lines.
MATE_CP = 100_000


@dataclass(frozen=True)
class SearchJob:
    """One search: everything here has passed the rules checker (canonical strings)."""

    section: str            #: the variants.ini section (UCI_Variant value)
    fen: str                #: canonical FEN of the position at the last capture
    moves: tuple[str, ...]  #: canonical moves since then
    nodes: int              #: `go nodes` limit
    multipv: int = 1
    hash_mb: int = 16


@dataclass(frozen=True)
class Line:
    """One principal variation as the engine last reported it."""

    multipv: int
    pv: tuple[str, ...]
    cp: int | None
    mate: int | None
    depth: int
    nodes: int

    @property
    def move(self) -> str:
        """The line's first move."""
        return self.pv[0]

    def value(self) -> int:
        """The score as one comparable number of centipawns (mates far above any cp)."""
        if self.mate is not None:
            return MATE_CP - abs(self.mate) if self.mate > 0 else -MATE_CP + abs(self.mate)
        return self.cp if self.cp is not None else 0


@dataclass(frozen=True)
class SearchResult:
    """The engine's answer."""

    bestmove: str | None    #: None for `(none)`
    ponder: str | None
    lines: dict[int, Line] = field(default_factory=dict)
    nodes: int = 0
    depth: int = 0
    time_s: float = 0.0


@dataclass(frozen=True)
class Choice:
    """The move the service plays, and the line that backs it."""

    move: str
    ponder: str | None
    line: Line | None


def choose(result: SearchResult, variety: Variety | None, seed: int,
           legal: frozenset[str]) -> Choice | None:
    """The move to play: the best move, or under the variety rule a seeded uniform pick
    among the legal lines within ``window_cp`` of the best line.

    Returns None when the engine gave no legal move (the caller treats it as a failure).
    """
    if result.bestmove is None or result.bestmove not in legal:
        return None
    best_line = result.lines.get(1)
    if best_line is not None and best_line.move != result.bestmove:
        best_line = next((ln for ln in result.lines.values()
                          if ln.move == result.bestmove), None)
    if variety is None or best_line is None:
        ponder = result.ponder
        if ponder is None and best_line is not None and len(best_line.pv) > 1:
            ponder = best_line.pv[1]
        return Choice(result.bestmove, ponder, best_line)
    top = best_line.value()
    candidates = sorted(
        (ln for ln in result.lines.values()
         if ln.pv and ln.move in legal and top - ln.value() <= variety.window_cp),
        key=lambda ln: ln.multipv)
    # Deduplicate by move (a line can be reported twice in odd cases); keep pv order.
    seen: set[str] = set()
    unique = [ln for ln in candidates if not (ln.move in seen or seen.add(ln.move))]
    if not unique:
        unique = [best_line]
    pick = random.Random(seed).choice(unique)
    ponder = pick.pv[1] if len(pick.pv) > 1 else None
    if pick.move == result.bestmove and result.ponder is not None:
        ponder = result.ponder
    return Choice(pick.move, ponder, pick)
