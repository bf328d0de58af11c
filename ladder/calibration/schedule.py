"""Which calibration games to play next.

The chain (the adjacent and skip-one pairings) comes first; an extra player's pairing
is played once every gap of the chain up to the level it meets is decided, in its
variant (:func:`next_games`): a run cut short has spent its games on the ratings a site
prints, and the extras at the cheap bottom (the rules the weak levels replaced, the Elo
points, level 5 without its variety) need not wait for the costly top. ``--max-level`` keeps a
run to the pairings up to a level (:func:`in_scope`): the cheap bottom first.

First every pairing of the chain plays its first games (:attr:`Plan.games` for the ladder's gaps,
fewer for the others), game pair ``k`` of every pairing before pair ``k + 1`` of any, so
that a run cut short has measured every pairing a little. Then the games go where the
intervals are still too wide: after each round the pool is refitted, and each adjacent
pairing of two levels whose gap is not yet known to its criterion's precision
(:func:`ladder.calibration.fit.gap_target`: ±60 Elo up to level 5, ±100 above) gets more
game pairs, widest (against its target) first, up to :attr:`Plan.max_games`: as many as
keep it level with the gap whose remaining games cost the most (:func:`pairs_per_gap`,
since 5 December), and more when the slots outnumber them. (Until 4 December a round had
one pair for each slot, the widest gaps only: at the cheap bottom the refit and the
record written after every round took as long as the round's four games.) The run
ends when every gap is known well enough, every unsure pairing has its maximum, or the
time budget is spent.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ladder.calibration.fit import decide_gap, gap_target, with_direct_games
from ladder.calibration.plan import Pairing, Plan, match_for
from ladder.match.config import MatchConfig
from ladder.match.game.play import GameRecord, GameTask
from ladder.match.openings import Opening
from ladder.match.runner.match_run import match_tasks
from ladder.match.statistics.bradley_terry import LadderFit

__all__ = [
    "PairingState",
    "Widest",
    "chain_decided_below",
    "cost",
    "first_round",
    "in_scope",
    "next_games",
    "next_round",
    "widest_gaps",
]


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
        return match_tasks(self.match())[old : self.scheduled]


def cost(state: PairingState) -> int:
    """What a game of the pairing costs, roughly: the nodes its players search a move
    (a baseline searches none)."""
    return sum(
        spec.level_settings(state.variant).nodes if spec.kind == "level" else 0
        for spec in (state.pairing.stronger, state.pairing.weaker)
    )


def in_scope(state: PairingState, max_level: int) -> bool:
    """Whether a run limited to levels up to ``max_level`` plays this pairing."""
    return state.pairing.top_level() <= max_level


def first_round(states: Sequence[PairingState]) -> list[GameTask]:
    """Every pairing's first games, the cheapest pairings first (the bottom of the
    ladder before its top), pair by pair across the pairings of one cost."""
    per: list[list[GameTask]] = []
    for _, group in itertools.groupby(sorted(states, key=cost), key=cost):
        per.extend(_interleaved([s.extend(s.pairing.games) for s in group]))
    return [task for tasks in per for task in tasks]


def _interleaved(per: list[list[GameTask]]) -> list[list[GameTask]]:
    """Game pair ``k`` of every list before pair ``k + 1`` of any."""
    out: list[list[GameTask]] = []
    for k in range(0, max((len(t) for t in per), default=0), 2):
        for tasks in per:
            out.append(tasks[k : k + 2])
    return out


@dataclass(frozen=True)
class Widest:
    """An adjacent pairing, the half-width of its gap's interval, and about how many more
    games would bring it to its target (:func:`~ladder.calibration.fit.decide_gap`)."""

    state: PairingState
    half_width: float
    more: int = 2


#: The most game pairs one pairing gets in a round (the refit after a round keeps the
#: allocation honest; a round stays a few minutes at the top).
MAX_PAIRS_PER_ROUND = 8


#: The half width given to an interval open on one side (a clean sweep), so that it
#: sorts first without an infinity in the progress line.
UNBOUNDED_HALF_WIDTH = 1000.0


def widest_gaps(
    states: Sequence[PairingState],
    fits: dict[str, LadderFit],
    records: Mapping[str, Sequence[GameRecord]] | None = None,
) -> list[Widest]:
    """The adjacent pairings not yet known to their criterion's precision
    (:func:`~ladder.calibration.fit.gap_target`) and below their maximum, the widest
    (relative to its target) first. With each variant's ``records``, a gap's interval
    also covers its pairing's own games (:func:`~ladder.calibration.fit.with_direct_games`:
    a clean sweep stays unsure)."""
    out = []
    for s in states:
        fit = fits.get(s.variant)
        if not s.pairing.adjacent or fit is None or s.scheduled >= s.plan.max_games:
            continue
        a, b = s.pairing.stronger.name, s.pairing.weaker.name
        if a not in fit.ratings or b not in fit.ratings or not (_level(a) and _level(b)):
            # The chain's bottom (random-greedy, greedy-L1) links level 1 to random; no
            # criterion asks its gap's precision since level 1 is judged against novice
            # (it was L1 against greedy, a lopsided score that took ~1,000 games).
            continue
        gap = fit.difference(a, b)
        if records is not None:
            gap = with_direct_games(gap, records.get(s.variant, ()), a, b)
        half = min(max(gap.elo - gap.lo, gap.hi - gap.elo), UNBOUNDED_HALF_WIDTH)
        verdict, more = decide_gap(
            gap.elo, gap.lo, gap.hi, _target(a), s.scheduled, s.plan.max_games
        )
        if verdict is None:
            out.append(Widest(s, half, more))
    return sorted(out, key=lambda w: -w.half_width / _target(w.state.pairing.stronger.name))


def _level(name: str) -> bool:
    """Whether ``name`` is a level of the chain (``L1`` ... ``L8``)."""
    return name[:1] == "L" and name[1:].isdigit()


def _target(name: str) -> float:
    """The precision target of the gap below the level ``name``."""
    return gap_target(int(name[1:]))


def next_round(
    states: Sequence[PairingState],
    fits: dict[str, LadderFit],
    slots: int,
    records: Mapping[str, Sequence[GameRecord]] | None = None,
) -> list[GameTask]:
    """More game pairs for every unsure gap, the widest first (none: done): see
    :func:`pairs_per_gap`; with more slots than that, the widest get another pair, and
    so on, so that a round fills the slots."""
    return _pairs_for(widest_gaps(states, fits, records), slots)


def pairs_per_gap(unsure: Sequence[Widest]) -> list[int]:
    """How many game pairs each unsure gap gets this round: in proportion to the games it
    still needs, one pair for the gap whose games cost the most (:func:`cost`: a round
    lasts at least one of its games anyway), at least one, at most
    :data:`MAX_PAIRS_PER_ROUND`.

    So the gaps come to their target together: with one pair each, a cheap gap that
    needs many games (xiangqi's L5-L6: ~400 more at 16,000 nodes a move) would take a
    round per pair, each round as long as the costly top's pair (L7-L8: 355,000)."""
    if not unsure:
        return []
    unit = max(max(unsure, key=lambda w: cost(w.state)).more, 2)
    return [min(MAX_PAIRS_PER_ROUND, max(1, round(max(w.more, 2) / unit))) for w in unsure]


def _pairs_for(unsure: Sequence[Widest], slots: int) -> list[GameTask]:
    """The pairs of :func:`pairs_per_gap`, then a pair more for each of ``unsure`` in
    turn until the ``slots`` have a game each; never past a pairing's maximum."""
    tasks: list[GameTask] = []
    for w, pairs in zip(unsure, pairs_per_gap(unsure), strict=True):
        for _ in range(pairs):
            if w.state.scheduled < w.state.plan.max_games:
                tasks.extend(w.state.extend(2))
    i = 0
    while unsure and len(tasks) < slots and i < slots:
        state = unsure[i % len(unsure)].state
        if state.scheduled < state.plan.max_games:
            tasks.extend(state.extend(2))
        i += 1
    return tasks


def next_games(
    chain: Sequence[PairingState],
    extras: Sequence[PairingState],
    fits: dict[str, LadderFit],
    slots: int,
    records: Mapping[str, Sequence[GameRecord]] | None = None,
) -> tuple[list[GameTask], list[PairingState]]:
    """After a round: the chain's next round while a gap is unsure, and the first games
    of each extra pairing (``extras``: those not started yet) whose levels the chain has
    decided (:func:`chain_decided_below`). Returns the tasks (empty: the run is done)
    and the extras they start."""
    unsure = widest_gaps(chain, fits, records)
    tasks = _pairs_for(unsure, slots)
    ready = [e for e in extras if chain_decided_below(e, unsure)]
    return tasks + first_round(ready), ready


def chain_decided_below(extra: PairingState, unsure: Sequence[Widest]) -> bool:
    """Whether no gap of ``extra``'s variant up to the level it meets (its
    :meth:`~ladder.calibration.plan.Pairing.top_level`) is still unsure: the ratings its
    own are measured against are settled."""
    top = extra.pairing.top_level()
    return not any(
        w.state.variant == extra.variant and w.state.pairing.top_level() <= top for w in unsure
    )
