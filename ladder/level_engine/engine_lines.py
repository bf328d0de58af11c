"""What an engine's search said, as a level move reads it: each MultiPV line's first
move, score (python-chess's :class:`~chess.engine.Score`, from the mover's side), depth
and nodes (:class:`Line`), and the bestmove with its lines (:class:`SearchResult`). A
score compares as one number, ``score.score(mate_score=MATE_CP)`` (:meth:`Line.value`):
mates above any centipawn score, the nearer the higher.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # python-chess and the protocol's parser only once a search is read
    from chess.engine import PovScore, Score

    from protocol.info import InfoDict, PlayResult

__all__ = ["MATE_CP", "Line", "SearchResult", "line_from_info", "search_result"]


#: A mate counts as this many centipawns (minus the distance) when comparing scores.
MATE_CP = 100_000


@dataclass(frozen=True)
class Line:
    """One principal variation as the engine last reported it (score from the mover's
    point of view)."""

    multipv: int
    pv: tuple[str, ...]
    score: Score
    depth: int
    nodes: int

    def __init__(
        self,
        multipv: int,
        pv: tuple[str, ...],
        score: Score,
        depth: int,
        nodes: int,
    ) -> None:
        # The generated __init__ of a frozen dataclass sets each field through
        # object.__setattr__; a level move makes a Line per legal move, so the fields go
        # straight into the instance's dict (the same object, still frozen after).
        d = self.__dict__
        d["multipv"] = multipv
        d["pv"] = pv
        d["score"] = score
        d["depth"] = depth
        d["nodes"] = nodes

    @property
    def move(self) -> str:
        """The line's first move."""
        return self.pv[0]

    def value(self) -> int:
        """The score as one comparable number of centipawns: a mate in N is
        ``MATE_CP - N``, being mated in N ``-MATE_CP + N``."""
        return self.score.score(mate_score=MATE_CP)


@dataclass(frozen=True)
class SearchResult:
    """The engine's answer."""

    bestmove: str | None  #: None for `(none)`
    ponder: str | None
    lines: dict[int, Line] = field(default_factory=dict)
    nodes: int = 0
    depth: int = 0
    time_s: float = 0.0


def line_from_info(info: InfoDict, index: int) -> Line | None:
    """The :class:`Line` of one MultiPV ``info`` (``index``: its MultiPV number if the
    engine did not say); None when it has no PV or no score."""
    pv = info.get("pv")
    score: PovScore | None = info.get("score")
    if not pv or score is None:
        return None
    return Line(
        info.get("multipv", index),  # InfoDict's numbers are ints (protocol/info.py)
        tuple(pv),
        score.relative,
        info.get("depth", 0),
        info.get("nodes", 0),
    )


def search_result(play: PlayResult) -> SearchResult:
    """A protocol :class:`~protocol.info.PlayResult` (main info + one info per MultiPV
    line) as a :class:`SearchResult`."""
    lines: dict[int, Line] = {}
    for i, info in enumerate(play.multipv, start=1):
        line = line_from_info(info, i)
        if line is not None:
            lines[line.multipv] = line
    main = play.info
    return SearchResult(
        bestmove=play.move,
        ponder=play.ponder,
        lines=lines,
        nodes=int(main.get("nodes", 0)),
        depth=int(main.get("depth", 0)),
        time_s=play.elapsed,
    )
