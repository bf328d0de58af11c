"""A tournament's tables: the :class:`Crosstable` (points of each player against each
other) and the Bradley-Terry rating list (:func:`rating_list`: the calibration's fit,
:func:`ladder.calibration.fit.bt_game` and
:func:`ladder.match.statistics.bradley_terry.fit_ladder`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ladder.match.statistics.bradley_terry import GameResult, LadderFit, fit_ladder

__all__ = ["Crosstable", "crosstable", "fit_dict", "rating_list", "ratings_text"]


@dataclass
class Crosstable:
    """Points and games of each player against each other, and in total."""

    players: list[str]
    points: dict[tuple[str, str], float]
    games: dict[tuple[str, str], int]

    def total(self, name: str) -> tuple[float, int]:
        pts = sum(v for (a, _), v in self.points.items() if a == name)
        n = sum(v for (a, _), v in self.games.items() if a == name)
        return pts, n

    def text(self, order: Sequence[str] | None = None) -> str:
        names = list(order or self.players)
        width = max(len(n) for n in names)
        cells = [f"{i + 1:>9}" for i in range(len(names))]
        lines = [f"{'':>3} {'player':<{width}} " + "".join(cells) + f" {'score':>14}"]
        for i, a in enumerate(names):
            row = []
            for b in names:
                n = self.games.get((a, b), 0)
                row.append(f"{'-':>9}" if a == b or n == 0 else f"{self.points[(a, b)]:>5g}/{n:<3}")
            pts, n = self.total(a)
            pct = f"{100 * pts / n:.1f}%" if n else ""
            lines.append(f"{i + 1:>3} {a:<{width}} " + "".join(row) + f" {pts:>5g}/{n:<3} {pct:>6}")
        return "\n".join(lines)

    def as_dict(self) -> dict[str, Any]:
        return {
            a: {
                b: {"points": self.points[(a, b)], "games": self.games[(a, b)]}
                for b in self.players
                if (a, b) in self.games
            }
            for a in self.players
        }


def crosstable(results: Sequence[GameResult], players: Sequence[str]) -> Crosstable:
    """The crosstable of the games' ``results`` (points from each side's view)."""
    points: dict[tuple[str, str], float] = defaultdict(float)
    games: dict[tuple[str, str], int] = defaultdict(int)
    for r in results:
        points[(r.red, r.black)] += r.result
        points[(r.black, r.red)] += 1.0 - r.result
        games[(r.red, r.black)] += 1
        games[(r.black, r.red)] += 1
    return Crosstable(list(players), dict(points), dict(games))


def rating_list(
    results: Sequence[GameResult], anchor: str, bootstrap: int = 0, seed: int = 1
) -> LadderFit | None:
    """The Bradley-Terry fit of the games' ``results``, ``anchor`` = 0 (None while the
    players met do not yet connect everyone to the anchor)."""
    try:
        return fit_ladder(results, anchor=anchor, bootstrap=bootstrap, seed=seed)
    except ValueError:
        return None


def ratings_text(fit: LadderFit) -> str:
    """The rating list, strongest first."""
    pct = round(100 * fit.confidence)
    lines = [
        f"Bradley-Terry ratings (logistic Elo, {fit.anchor} = 0, {pct}% {fit.interval} "
        f"intervals, {fit.games} games; Red advantage {fit.red_advantage:+.0f} "
        f"[{fit.red_advantage_lo:+.0f}, {fit.red_advantage_hi:+.0f}]):"
    ]
    width = max(len(r.name) for r in fit.ratings.values())
    for rank, r in enumerate(fit.ranking(), start=1):
        lines.append(
            f"{rank:>3} {r.name:<{width}} {r.elo:>+7.0f}  [{r.lo:+.0f}, {r.hi:+.0f}]"
            f"  {r.games} games"
        )
    return "\n".join(lines)


def fit_dict(fit: LadderFit | None) -> dict[str, Any] | None:
    """The rating list as the ``--json`` document gives it."""
    if fit is None:
        return None
    return {
        "anchor": fit.anchor,
        "interval": fit.interval,
        "confidence": fit.confidence,
        "bootstrap_samples": fit.bootstrap_samples,
        "red_advantage": {
            "elo": fit.red_advantage,
            "lo": fit.red_advantage_lo,
            "hi": fit.red_advantage_hi,
        },
        "ratings": [
            {"name": r.name, "elo": r.elo, "lo": r.lo, "hi": r.hi, "games": r.games}
            for r in fit.ranking()
        ],
    }
