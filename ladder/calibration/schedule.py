"""Which calibration games to play next.

First every pairing plays its first games (:attr:`Plan.games` for the ladder's gaps,
fewer for the others), game pair ``k`` of every pairing before pair ``k + 1`` of any, so
that a run cut short has measured every pairing a little. Then the games go where the
intervals are widest: after each round the pool is refitted, and each adjacent pairing
whose gap is known to worse than ± :attr:`Plan.target_half_width` Elo (95 %), or whose
interval still straddles a bound of the gap criterion, gets one more game pair, widest
first, up to :attr:`Plan.max_games`; a round has as many pairs as there are game
slots. The run ends when every gap is known well enough, every unsure
pairing has its maximum, or the time budget is spent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ladder.calibration.fit import GAP_RANGE, L1_VS_GREEDY, with_direct_games
from ladder.calibration.plan import Pairing, Plan, match_for
from ladder.match.bradley_terry import LadderFit
from ladder.match.elo import score_to_elo
from ladder.match.openings import Opening
from ladder.match.play import GameRecord, GameTask
from ladder.match.runner import MatchConfig

__all__ = ["PairingState", "Widest", "first_round", "next_round", "widest_gaps"]

#: Level 1's criterion against greedy, as an Elo difference.
L1_OVER_GREEDY = (score_to_elo(L1_VS_GREEDY[0]), score_to_elo(L1_VS_GREEDY[1]))


@dataclass
class PairingState:
    """A pairing of one variant and how many of its games are scheduled."""

    variant: str
    pairing: Pairing
    openings: list[Opening]
    plan: Plan
    scheduled: int = 0

    def match(self, games: int | None = None) -> MatchConfig:
        return match_for(
            self.variant, self.pairing, self.plan, self.openings, games or self.scheduled
        )

    def extend(self, games: int) -> list[GameTask]:
        """The next ``games`` games of this pairing (the schedule grows as a prefix)."""
        old = self.scheduled
        self.scheduled = old + games
        return self.match().tasks()[old : self.scheduled]


def first_round(states: Sequence[PairingState]) -> list[GameTask]:
    """Every pairing's first games, pair by pair across all pairings."""
    per = [s.extend(s.pairing.games) for s in states]
    out: list[GameTask] = []
    for k in range(0, max((len(t) for t in per), default=0), 2):
        for tasks in per:
            out.extend(tasks[k : k + 2])
    return out


@dataclass(frozen=True)
class Widest:
    """An adjacent pairing and the half-width of its gap's interval."""

    state: PairingState
    half_width: float


#: The half width given to an interval open on one side (a clean sweep), so that it
#: sorts first without an infinity in the progress line.
UNBOUNDED_HALF_WIDTH = 1000.0


def widest_gaps(
    states: Sequence[PairingState],
    fits: dict[str, LadderFit],
    records: Mapping[str, Sequence[GameRecord]] | None = None,
) -> list[Widest]:
    """The adjacent pairings still unsure (and below their maximum), widest first.
    With each variant's ``records``, a gap's interval also covers its pairing's own
    games (:func:`~ladder.calibration.fit.with_direct_games`: a clean sweep stays
    unsure)."""
    out = []
    for s in states:
        fit = fits.get(s.variant)
        if not s.pairing.adjacent or fit is None or s.scheduled >= s.plan.max_games:
            continue
        a, b = s.pairing.stronger.name, s.pairing.weaker.name
        if a not in fit.ratings or b not in fit.ratings:
            continue
        gap = fit.difference(a, b)
        if records is not None:
            gap = with_direct_games(gap, records.get(s.variant, ()), a, b)
        half = min((gap.hi - gap.lo) / 2, UNBOUNDED_HALF_WIDTH)
        low, high = L1_OVER_GREEDY if (a, b) == ("L1", "greedy") else GAP_RANGE
        straddles = gap.lo < low <= gap.hi or gap.lo <= high < gap.hi
        if half > s.plan.target_half_width or straddles:
            out.append(Widest(s, half))
    return sorted(out, key=lambda w: -w.half_width)


def next_round(
    states: Sequence[PairingState],
    fits: dict[str, LadderFit],
    slots: int,
    records: Mapping[str, Sequence[GameRecord]] | None = None,
) -> list[GameTask]:
    """One more game pair for each of the ``slots`` widest unsure gaps (none: done)."""
    tasks: list[GameTask] = []
    for w in widest_gaps(states, fits, records)[: max(1, slots)]:
        tasks.extend(w.state.extend(2))
    return tasks
