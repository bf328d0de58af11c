"""The running figures of a head-to-head match, from its game records.

Player A's view throughout: W/D/L over all games, pentanomial counts over complete game
pairs, Elo +- 95 % CI, normalised Elo and LOS (from the pairs once there are any, else
from the games), and the GSPRT state when a test is configured.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

from ladder.match.game.endings import Ending
from ladder.match.game.play import GameRecord
from ladder.match.statistics.elo import EloEstimate, pentanomial_elo, trinomial_elo
from ladder.match.statistics.results import (
    Pentanomial,
    Trinomial,
)
from ladder.match.statistics.sprt import Sprt, SprtDecision, SprtResult

__all__ = ["MatchStats", "MatchTally", "engine_restarts", "match_stats", "restart_text"]


def engine_restarts(record: GameRecord) -> int:
    """Engine restarts the game needed (a crash or hang the automatic restart fixed: the
    move was searched again and the game stands)."""
    return sum(map(_RESTARTS, record.infos))


_RESTARTS = attrgetter("restarts")  # (a map over a game's moves: half a generator's work)


@dataclass
class MatchStats:
    """Figures for player A against player B."""

    player_a: str
    player_b: str
    trinomial: Trinomial = field(default_factory=Trinomial)
    pentanomial: Pentanomial = field(default_factory=Pentanomial)
    elo: EloEstimate | None = None
    sprt: SprtResult | None = None
    reasons: Counter[str] = field(default_factory=Counter)
    red_score: float = 0.0  #: Red's mean score (colour bias)
    mean_plies: float = 0.0  #: mean game length in plies (book moves included)
    search_seconds: float = 0.0
    wall_seconds: float = 0.0
    engine_restarts: int = 0  #: see :func:`engine_restarts`
    #: Games without a result (``*``, a study's PGN), left out of every figure above.
    unfinished: int = 0
    #: The games of pairs not complete yet (in :attr:`trinomial`, not in the pairs).
    unpaired: Trinomial = field(default_factory=Trinomial)

    @property
    def games(self) -> int:
        return self.trinomial.games

    @property
    def draw_rate(self) -> float:
        """Fraction of the games drawn (0 before any game)."""
        return self.trinomial.draws / self.games if self.games else 0.0

    @property
    def engine_failures(self) -> int:
        """Games lost because an engine failed (crash, hang, no move)."""
        return self.reasons.get(Ending.ENGINE_FAILURE, 0)

    def as_dict(self) -> dict[str, Any]:
        """The figures as plain data (``--json``); non-finite numbers become None."""
        t, e, s = self.trinomial, self.elo, self.sprt
        out: dict[str, Any] = {
            "player_a": self.player_a,
            "player_b": self.player_b,
            "games": t.games,
            "wins": t.wins,
            "draws": t.draws,
            "losses": t.losses,
            "score": _finite(t.score) if t.games else None,
            "pairs": self.pentanomial.pairs,
            "pentanomial": self.pentanomial.as_list(),
            "draw_rate": self.draw_rate,
            "red_score": self.red_score,
            "mean_plies": self.mean_plies,
            "endings": dict(self.reasons.most_common()),
            "engine_failures": self.engine_failures,
            "engine_restarts": self.engine_restarts,
            "elo": None,
            "sprt": None,
        }
        if e is not None:
            out["elo"] = {
                "model": e.model,
                "elo": _finite(e.elo),
                "lo": _finite(e.elo_lo),
                "hi": _finite(e.elo_hi),
                "error": _finite(e.elo_error),
                "nelo": _finite(e.nelo),
                "nelo_error": _finite(e.nelo_error),
                "los": e.los,
                "confidence": e.confidence,
                "small_sample": e.small_sample,
            }
        if s is not None:
            out["sprt"] = {
                "llr": s.llr,
                "lower_bound": s.lower_bound,
                "upper_bound": s.upper_bound,
                "decision": s.decision.value,
            }
        return out

    @property
    def decided(self) -> bool:
        """True when the SPRT has accepted H0 or H1."""
        return self.sprt is not None and self.sprt.decision is not SprtDecision.CONTINUE

    def line(self) -> str:
        """One line of running figures (the progress bar's), every figure over the same
        games: once a pair is complete, W-D-L counts the games of complete pairs, as the
        Elo and LOS do, and says how many games of pairs in play it leaves out."""
        t, u = self.trinomial, self.unpaired
        if self.pentanomial.pairs and u.games:
            paired = f"{t.wins - u.wins}-{t.draws - u.draws}-{t.losses - u.losses}"
            text = f"W-D-L {paired} in {self.pentanomial.pairs} pairs (+{u.games} unpaired)"
        else:
            text = f"W-D-L {t.wins}-{t.draws}-{t.losses}"
        e = self.elo
        if e is not None:
            if math.isinf(e.elo):
                text += f"  Elo {_fmt(e.elo)}"
            else:
                text += f"  Elo {_fmt(e.elo)} ±{_fmt(e.elo_error, sign=False)}"
            if e.small_sample:
                text += " (small sample)"
            nelo = _fmt(e.nelo) if math.isfinite(e.nelo) else "n/a"
            text += f"  nElo {nelo}  LOS {100 * e.los:.1f}%"
        if self.sprt is not None:
            s = self.sprt
            text += f"  LLR {s.llr:+.2f} [{s.lower_bound:+.2f},{s.upper_bound:+.2f}]"
        return text

    def report(self) -> str:
        """A multi-line summary."""
        t, p = self.trinomial, self.pentanomial
        lines = [
            f"{self.player_a} vs {self.player_b}: {t.games} games, {p.pairs} complete pairs",
            f"  score of {self.player_a}: W {t.wins}  D {t.draws}  L {t.losses}"
            + (f"  ({100 * t.score:.1f}%)" if t.games else ""),
            f"  pentanomial [LL, LD, DD+WL, WD, WW]: {p.as_list()}",
        ]
        e = self.elo
        if e is not None:
            lines.append(f"  {_elo_text(e)}  LOS {100 * e.los:.1f}%")
        if self.sprt is not None:
            s = self.sprt
            verdict = {
                SprtDecision.H0: "H0 accepted",
                SprtDecision.H1: "H1 accepted",
                SprtDecision.CONTINUE: "undecided",
            }[s.decision]
            lines.append(
                f"  SPRT: LLR {s.llr:.3f} in [{s.lower_bound:.3f}, {s.upper_bound:.3f}]: {verdict}"
            )
        if t.games:
            lines.append(
                f"  Red scored {100 * self.red_score:.1f}%, {100 * self.draw_rate:.1f}% drawn, "
                f"{self.mean_plies:.1f} plies a game; endings: "
                + ", ".join(f"{k} {v}" for k, v in self.reasons.most_common())
            )
        if self.engine_restarts:
            lines.append(f"  {restart_text(self.engine_restarts)}")
        return "\n".join(lines)


def restart_text(restarts: int) -> str:
    """The line that says how many engine restarts the games needed."""
    return (
        f"engine restarts: {restarts} (an engine crashed or hung and was restarted; the "
        "move was searched again and the game stands)"
    )


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def _fmt(x: float, sign: bool = True) -> str:
    if x != x:
        return "nan"
    if x in (float("inf"), float("-inf")):
        return "-inf" if x < 0 else "+inf" if sign else "inf"
    x += 0.0  # no "-0.0"
    return f"{x:+.1f}" if sign else f"{x:.1f}"


def _elo_text(e: EloEstimate) -> str:
    """Elo with its interval, and nElo; says so when the sample cannot give a figure: a
    score of 0 or 100 % (no finite Elo) or no spread at all (every game, or every pair,
    scored the same: no nElo), and when it is small (the interval is rough)."""
    unit = "game" if e.model == "trinomial" else "pair"
    if math.isinf(e.elo):
        return (
            f"Elo {_fmt(e.elo)} (score {100 * e.score:.0f}% over {e.samples} "
            f"{unit}s: no finite estimate)"
        )
    small = f", small sample: {e.samples} {unit}s, a rough interval" if e.small_sample else ""
    text = (
        f"Elo {_fmt(e.elo)} ± {_fmt(e.elo_error, sign=False)} (95%, {e.model}{small}; "
        f"[{_fmt(e.elo_lo)}, {_fmt(e.elo_hi)}])  "
    )
    if math.isfinite(e.nelo):
        return text + f"nElo {_fmt(e.nelo)} ± {e.nelo_error:.1f}"
    return text + f"nElo n/a (every {unit} scored the same)"


class MatchTally:
    """A match's figures kept up to date game by game: :meth:`add` costs the same at the
    100,000th game as at the first (counts, sums and the half-played pairs only), and
    :meth:`stats` builds the figures from them without looking at a game again."""

    def __init__(self, player_a: str, player_b: str, sprt: Sprt | None = None):
        self.player_a, self.player_b, self.sprt = player_a, player_b, sprt
        self._results = [0, 0, 0]  # A's wins, draws, losses
        self._pentanomial = [0, 0, 0, 0, 0]
        self._half_pairs: dict[int, float] = {}  # pair number -> A's score in its first game
        self._reasons: Counter[str] = Counter()
        self._red_points = 0.0
        self._plies = 0
        self._search_seconds = 0.0
        self._wall_seconds = 0.0
        self._restarts = 0
        # the SPRT's LLR (two root searches, about 0.35 ms) for the pair counts it was
        # computed for: they change once a pair, and a game may leave them as they are
        self._sprt: tuple[tuple[int, ...], SprtResult] | None = None

    @property
    def games(self) -> int:
        return sum(self._results)

    @property
    def engine_restarts(self) -> int:
        """The :func:`engine_restarts` of the games added, summed."""
        return self._restarts

    def add(self, record: GameRecord) -> None:
        """Count one finished game."""
        score = record.a_score
        self._results[{1.0: 0, 0.5: 1, 0.0: 2}[score]] += 1
        first = self._half_pairs.pop(record.pair_no, None)
        if first is None:
            self._half_pairs[record.pair_no] = score
        else:
            self._pentanomial[int(2 * (first + score))] += 1
        self._reasons[record.reason] += 1
        self._red_points += record.red_score
        self._plies += len(record.moves)
        self._search_seconds += sum(record.search_seconds.values())
        self._wall_seconds += record.wall_seconds
        self._restarts += engine_restarts(record)

    def stats(self) -> MatchStats:
        """The figures over every game added."""
        stats = MatchStats(self.player_a, self.player_b)
        n = self.games
        if n:
            wins, draws, losses = self._results
            stats.trinomial = Trinomial(wins, draws, losses)
            stats.pentanomial = Pentanomial.from_list(self._pentanomial)
            if stats.pentanomial.pairs:
                stats.elo = pentanomial_elo(stats.pentanomial)
            else:
                stats.elo = trinomial_elo(stats.trinomial)
            stats.reasons = Counter(self._reasons)
            stats.red_score = self._red_points / n
            stats.mean_plies = self._plies / n
            stats.search_seconds = self._search_seconds
            stats.wall_seconds = self._wall_seconds
            stats.engine_restarts = self._restarts
            half = list(self._half_pairs.values())
            stats.unpaired = Trinomial(half.count(1.0), half.count(0.5), half.count(0.0))
        stats.sprt = self._sprt_result()
        return stats

    @property
    def decided(self) -> bool:
        """The SPRT has accepted H0 or H1 (:attr:`MatchStats.decided`), found without the
        other figures."""
        result = self._sprt_result()
        return result is not None and result.decision is not SprtDecision.CONTINUE

    def _sprt_result(self) -> SprtResult | None:
        if self.sprt is None:
            return None
        counts = tuple(self._pentanomial)
        if self._sprt is None or self._sprt[0] != counts:
            self._sprt = (counts, self.sprt.evaluate(Pentanomial.from_list(self._pentanomial)))
        return self._sprt[1]


def match_stats(
    records: Iterable[GameRecord], player_a: str, player_b: str, sprt: Sprt | None = None
) -> MatchStats:
    """Figures for player A from the records of one match."""
    tally = MatchTally(player_a, player_b, sprt)
    for record in records:
        tally.add(record)
    return tally.stats()
