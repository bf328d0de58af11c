"""The calibration fit: ratings of every player of a variant's pool, and the tuning
criteria.

The fit is :func:`ladder.match.statistics.bradley_terry.fit_ladder` over the stored games of the
pool's pairings (with a Red advantage), anchored at ``random`` = 0; the final report uses
bootstrap intervals that resample game pairs. A level without games of its own gets
``elo = a + b ln(nodes)`` from the line through the strongest measured levels that
search (weighted by 1/stderr²), marked ``extrapolated`` (Elo per doubling grows with the
node count, so the line is fitted where an extrapolation starts).

The criteria (:func:`check_ladder`), each one a finite number of games decides:

- every level measured, and strictly increasing;
- each adjacent gap known to :func:`gap_target` (its 95 % interval at most ±60 Elo up to
  level 5, ±100 above: intervals of single levels anchored at random = 0 add up along
  the chain, so the gaps are what is measured), and then its point estimate within
  :data:`GAP_RANGE` with an interval that excludes 0;
- level 1 against ``novice`` (the beginner yardstick, docs/tuning.md) in direct games:
  its score within :data:`L1_VS_NOVICE`, its 95 % interval inside
  :data:`L1_VS_NOVICE_INTERVAL`; and no more than :data:`EARLY_LOSS_SHARE` of those games
  lost before ply :data:`EARLY_LOSS_PLY`;
- level 1 at least :data:`L1_OVER_RANDOM` Elo above ``random`` (a 90 % score).

Level 1's score against ``greedy`` is reported (:attr:`VariantCalibration.l1_vs_greedy`),
not bounded: greedy never sees a threat, so a level that answers checks beats it.

A criterion is "not decided" only while its interval is wider than its target (or it
has fewer than :data:`MIN_GAMES` games); then the report says about how many more games
would make it narrow enough (an interval's width shrinks as one over the square root of
the games), never more than the plan's cap on a pairing. An interval that lies wholly
outside the range decides it at once.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from ladder.calibration.fit_line import extrapolate
from ladder.calibration.plan import MAX_GAMES, EloPointPlan, level_name
from ladder.levels import Level, Rating
from ladder.match.game.play import GameRecord
from ladder.match.statistics.bradley_terry import Difference, GameResult, LadderFit, fit_ladder
from ladder.match.statistics.elo import score_to_elo, wilson
from ladder.rules import Game

__all__ = [
    "EARLY_LOSS_PLY",
    "EARLY_LOSS_SHARE",
    "GAP_HALF_WIDTHS",
    "GAP_RANGE",
    "L1_OVER_RANDOM",
    "L1_VS_NOVICE",
    "L1_VS_NOVICE_INTERVAL",
    "MIN_GAMES",
    "Criterion",
    "VariantCalibration",
    "check_ladder",
    "decide_gap",
    "fit_pool",
    "fit_variant",
    "gap_target",
    "seconds_per_move",
]

GAP_RANGE = (150.0, 450.0)
#: Level 1's score against ``novice``, and where its 95 % interval must lie.
L1_VS_NOVICE = (0.35, 0.65)
L1_VS_NOVICE_INTERVAL = (0.30, 0.70)
#: Level 1's least Elo above ``random`` (a 90 % score).
L1_OVER_RANDOM = 382.0
#: Level 1 loses at most this share of its games against ``novice`` before this ply.
EARLY_LOSS_SHARE = 0.02
EARLY_LOSS_PLY = 20
#: Games against ``novice`` before the early losses are judged.
EARLY_LOSS_GAMES = 100
#: The 95 % half-widths (Elo) a gap must reach to be decided: up to level 5, above.
GAP_HALF_WIDTHS = (60.0, 100.0)
#: The highest level whose gap below it gets the narrower target.
NARROW_UP_TO = 5
#: Games a pairing needs before a criterion resting on it can be decided at all.
MIN_GAMES = 20
#: The most Elo a level's variety (its book and its window) may cost it.
VARIETY_COST = 30.0


def gap_target(level: int) -> float:
    """The half-width (Elo, 95 %) the gap between ``level`` and the player below it must
    reach before its criterion is decided (level 1: its gap to greedy)."""
    return GAP_HALF_WIDTHS[0] if level <= NARROW_UP_TO else GAP_HALF_WIDTHS[1]


@dataclass(frozen=True)
class Criterion:
    """One tuning criterion: met (True), not met (False) or not decided (None)."""

    name: str
    ok: bool | None
    detail: str


@dataclass(frozen=True)
class EloPoint:
    """An interpolated Elo (an ``elo:N`` extra) as its matches against the levels around
    it measure it."""

    name: str
    elo: float  #: the Elo asked for
    measured: Rating  #: its rating in the pool, with the interval against its neighbours
    opponents: tuple[str, ...]
    planned: int  #: games planned against them in all


@dataclass
class VariantCalibration:
    """The outcome for one variant."""

    variant: str
    fit: LadderFit | None
    levels: dict[int, Level]  #: the settings calibrated
    ratings: dict[int, Rating | None]  #: each level's rating (None: not rated)
    others: dict[str, Rating] = field(default_factory=dict)  #: random, greedy, extras
    gaps: dict[int, tuple[Difference, int]] = field(default_factory=dict)  #: L(n)-L(n-1)
    seconds: dict[int, float] = field(default_factory=dict)  #: median search s/move
    l1_vs_greedy: tuple[float, int] | None = None  #: L1's score, games (reported)
    l1_vs_novice: tuple[float, int] | None = None  #: L1's score, games
    #: L1's games against novice lost before :data:`EARLY_LOSS_PLY`, and its games
    l1_early_losses: tuple[int, int] | None = None
    #: What its variety costs a level: (level, its plain twin's name, the twin's score
    #: against it, games, the games planned), from their direct games.
    variety_costs: list[tuple[int, str, float, int, int]] = field(default_factory=list)
    elo_points: list[EloPoint] = field(default_factory=list)  #: interpolated Elos measured
    #: The plan's checks with no games yet (a twin or an Elo point whose player is new,
    #: e.g. after a change of its settings): undecided, not silently absent.
    unplayed: list[Criterion] = field(default_factory=list)
    criteria: list[Criterion] = field(default_factory=list)

    def by_name(self) -> dict[str, Rating]:
        """Every rating measured from games, by the player's name in the pool (``L3``,
        ``greedy``, an extra's name); extrapolated levels left out."""
        measured = {
            level_name(n): r
            for n, r in self.ratings.items()
            if r is not None and not r.extrapolated
        }
        return {**self.others, **measured}


def bt_game(r: GameRecord) -> GameResult:
    """A game as the Bradley-Terry fit sees it (its pair: the bootstrap's unit)."""
    return GameResult(r.red, r.black, r.red_score, (r.match_id, r.pair_no))


def bt_games(records: Sequence[GameRecord]) -> list[GameResult]:
    return [bt_game(r) for r in records]


def fit_pool(records: Sequence[GameRecord], bootstrap: int = 0, seed: int = 1) -> LadderFit | None:
    """The pool's fit anchored at random = 0 (None before random has played), over the
    players linked to random by games: a player no game chain links to random (the
    levels above a retuned bottom, before its new levels have played them) is left
    unrated, not an error."""
    games = bt_games(records)
    linked = _linked_to(games, "random")
    games = [g for g in games if g.red in linked and g.black in linked]
    if not games:
        return None
    return fit_ladder(games, anchor="random", bootstrap=bootstrap, seed=seed)


def _linked_to(games: Sequence[GameResult], anchor: str) -> set[str]:
    """The players that a chain of games links to ``anchor`` (empty if it has none)."""
    neighbours: dict[str, set[str]] = defaultdict(set)
    for g in games:
        neighbours[g.red].add(g.black)
        neighbours[g.black].add(g.red)
    if anchor not in neighbours:
        return set()
    linked, frontier = {anchor}, [anchor]
    while frontier:
        for other in neighbours[frontier.pop()] - linked:
            linked.add(other)
            frontier.append(other)
    return linked


def seconds_per_move(records: Sequence[GameRecord]) -> dict[str, float]:
    """Each player's median search time per move over its games: the per-game mean of a
    side (its search seconds over its moves), medianed over the games."""
    per: dict[str, list[float]] = defaultdict(list)
    first_turn: dict[str, str] = {}
    for r in records:
        played = len(r.moves) - r.book_plies
        if played <= 0:
            continue
        if r.start_fen not in first_turn:
            first_turn[r.start_fen] = Game.from_fen(r.variant, r.start_fen).turn
        red_first = (first_turn[r.start_fen] == "red") == (r.book_plies % 2 == 0)
        red_moves = (played + 1) // 2 if red_first else played // 2
        for side, name, moves in (
            ("red", r.red, red_moves),
            ("black", r.black, played - red_moves),
        ):
            if moves:
                per[name].append(r.search_seconds.get(side, 0.0) / moves)
    out = {}
    for name, values in per.items():
        values.sort()
        mid = len(values) // 2
        out[name] = values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2
    return out


def fit_variant(
    records: Sequence[GameRecord],
    variant: str,
    levels: dict[int, Level],
    *,
    bootstrap: int = 0,
    seed: int = 1,
    max_games: int = MAX_GAMES,
    plain_twins: Sequence[tuple[str, int, int]] = (),
    elo_points: Sequence[EloPointPlan] = (),
) -> VariantCalibration:
    """Ratings of one variant's pool from its stored games, extrapolation where a level
    has no games, the gaps, times per move, and the criteria. ``plain_twins``: the
    pool's levels without their variety, (name, level, games planned against it);
    ``elo_points``: its interpolated Elos (:meth:`Plan.elo_points`)."""
    fit = fit_pool(records, bootstrap, seed)
    cal = VariantCalibration(variant, fit, dict(levels), {n: None for n in levels})
    if fit is not None:
        measured = {
            n: (fit.ratings[level_name(n)].elo, fit.ratings[level_name(n)].stderr)
            for n in levels
            if level_name(n) in fit.ratings
        }
        for n in measured:
            r = fit.ratings[level_name(n)]
            cal.ratings[n] = Rating(r.elo, r.lo, r.hi, r.games)
        cal.ratings.update(extrapolate(levels, measured, fit.confidence))
        for name, r in fit.ratings.items():
            if not name.startswith("L") or not name[1:].isdigit():
                cal.others[name] = Rating(r.elo, r.lo, r.hi, r.games)
        pair_games: dict[frozenset[str], int] = defaultdict(int)
        for rec in records:
            pair_games[frozenset((rec.red, rec.black))] += 1
        for n in sorted(measured):
            if n - 1 in measured:
                a, b = level_name(n), level_name(n - 1)
                gap = with_direct_games(fit.difference(a, b), records, a, b)
                cal.gaps[n] = (gap, pair_games[frozenset((a, b))])
    secs = seconds_per_move(records)
    cal.seconds = {n: secs[level_name(n)] for n in levels if level_name(n) in secs}
    cal.l1_vs_greedy = direct_score(records, level_name(1), "greedy")
    cal.l1_vs_novice = direct_score(records, level_name(1), "novice")
    cal.l1_early_losses = early_losses(records, level_name(1), "novice")
    for name, n, planned in plain_twins:
        twin = direct_score(records, name, level_name(n))
        if twin is not None:
            cal.variety_costs.append((n, name, *twin, planned))
        else:
            cal.unplayed.append(_unplayed(_variety_cost_name(n), name, planned))
    for point in elo_points:
        if fit is not None and point.name in fit.ratings:
            cal.elo_points.append(_elo_point(fit, records, point))
        else:
            cal.unplayed.append(_unplayed(_elo_point_name(point.elo), point.name, point.planned))
    cal.criteria = check_ladder(cal, max_games)
    return cal


def _elo_point(fit: LadderFit, records: Sequence[GameRecord], point: EloPointPlan) -> EloPoint:
    """An interpolated Elo as its games measure it, on the scale it was interpolated on:
    its difference from the neighbour it is known best against (their own games
    included, :func:`with_direct_games`), placed at that neighbour's Elo in the levels
    file the point was interpolated in."""
    best: tuple[float, float, float] | None = None
    games = 0
    for opponent, anchor in point.neighbours.items():
        direct = direct_score(records, point.name, opponent)
        if direct is None or opponent not in fit.ratings:
            continue
        games += direct[1]
        d = with_direct_games(fit.difference(point.name, opponent), records, point.name, opponent)
        if best is None or d.hi - d.lo < best[2] - best[1]:
            best = (anchor + d.elo, anchor + d.lo, anchor + d.hi)
    if best is None:
        r = fit.ratings[point.name]
        best = (r.elo, r.lo, r.hi)
    return EloPoint(
        point.name, point.elo, Rating(*best, games), tuple(point.neighbours), point.planned
    )


def direct_score(
    records: Sequence[GameRecord], player: str, opponent: str
) -> tuple[float, int] | None:
    """``player``'s score in its own games against ``opponent``, and how many; None
    when they have not met."""
    direct = [r for r in records if {r.red, r.black} == {player, opponent}]
    if not direct:
        return None
    score = sum(r.red_score if r.red == player else 1 - r.red_score for r in direct)
    return score / len(direct), len(direct)


def with_direct_games(
    gap: Difference, records: Sequence[GameRecord], stronger: str, weaker: str
) -> Difference:
    """A gap's interval widened to cover what the two levels' own games say (their
    score's Wilson interval as Elo). The bootstrap alone is blind where a pairing is
    won every time: every resample is a clean sweep too, so it gives a narrow interval
    around whatever the rest of the pool implies, while a sweep only bounds the gap
    from below."""
    direct = direct_score(records, stronger, weaker)
    if direct is None:
        return gap
    s_lo, s_hi = wilson(*direct)
    return Difference(
        gap.elo, min(gap.lo, score_to_elo(s_lo)), max(gap.hi, score_to_elo(s_hi)), gap.stderr
    )


def check_ladder(cal: VariantCalibration, max_games: int = MAX_GAMES) -> list[Criterion]:
    """The tuning criteria, on measured figures only, decided only on enough games
    (``max_games``: the plan's cap on a pairing, which bounds "more games")."""
    out: list[Criterion] = []
    rated = [(n, r) for n, r in sorted(cal.ratings.items()) if r is not None]
    unmeasured = [f"L{n}" for n, r in sorted(cal.ratings.items()) if r is None or r.extrapolated]
    out.append(
        Criterion(
            "every level measured",
            not unmeasured,
            f"not measured: {', '.join(unmeasured)}" if unmeasured else "yes",
        )
    )
    if len(rated) < 2:
        out.append(Criterion("strictly increasing", None, "fewer than two levels rated"))
    else:
        bad = [
            f"L{a} {ra.elo:.0f} >= L{b} {rb.elo:.0f}"
            for (a, ra), (b, rb) in itertools.pairwise(rated)
            if ra.elo >= rb.elo
        ]
        out.append(Criterion("strictly increasing", not bad, "; ".join(bad) or "yes"))
    lo, hi = GAP_RANGE
    parts: list[str] = []
    verdicts: list[bool | None] = []
    for n in sorted(cal.ratings):
        if n == min(cal.ratings):
            continue
        if n not in cal.gaps:
            parts.append(f"L{n - 1}-L{n} not measured")
            verdicts.append(None)
            continue
        gap, games = cal.gaps[n]
        verdict, more = decide_gap(gap.elo, gap.lo, gap.hi, gap_target(n), games, max_games)
        text = f"L{n - 1}-L{n} {gap.elo:+.0f} [{gap.lo:+.0f}, {gap.hi:+.0f}] ({games} games"
        if verdict is None and more == 0:
            text += _at_cap(games, max(gap.elo - gap.lo, gap.hi - gap.elo))
        elif verdict is None:
            text += f"; not decided: about {more} more to reach ±{gap_target(n):.0f}"
        elif verdict is False and gap.lo <= 0:
            text += "; its interval includes 0"
        parts.append(text + ")")
        verdicts.append(verdict)
    out.append(
        Criterion(
            f"adjacent gaps {lo:.0f}-{hi:.0f} Elo (±{GAP_HALF_WIDTHS[0]:.0f} up to L"
            f"{NARROW_UP_TO}, ±{GAP_HALF_WIDTHS[1]:.0f} above)",
            _all(verdicts),
            ", ".join(parts),
        )
    )
    out.append(_l1_vs_novice(cal.l1_vs_novice, max_games))
    out.append(_l1_early_losses(cal.l1_early_losses))
    out.append(_l1_over_random(cal.ratings.get(1)))
    out.extend(_variety_cost(*twin) for twin in cal.variety_costs)
    out.extend(_elo_point_criterion(point) for point in cal.elo_points)
    out.extend(cal.unplayed)
    return out


def _l1_vs_novice(direct: tuple[float, int] | None, max_games: int) -> Criterion:
    """L1 scores within :data:`L1_VS_NOVICE` against novice, decided once its Wilson
    interval lies inside :data:`L1_VS_NOVICE_INTERVAL` (or wholly outside the band)."""
    lo_s, hi_s = L1_VS_NOVICE
    in_lo, in_hi = L1_VS_NOVICE_INTERVAL
    name = (
        f"L1 scores {100 * lo_s:.0f}-{100 * hi_s:.0f}% against novice, its 95% interval "
        f"inside {100 * in_lo:.0f}-{100 * in_hi:.0f}%"
    )
    if direct is None:
        return Criterion(name, None, "no direct games")
    score, games = direct
    s_lo, s_hi = wilson(score, games)
    detail = f"{100 * score:.1f}% [{100 * s_lo:.1f}, {100 * s_hi:.1f}] in {games} direct games"
    if s_hi < lo_s or s_lo > hi_s:
        return Criterion(name, False, detail)
    if games >= MIN_GAMES and in_lo <= s_lo and s_hi <= in_hi:
        return Criterion(name, lo_s <= score <= hi_s, detail)
    half, target = (s_hi - s_lo) / 2, max(0.01, min(score - in_lo, in_hi - score))
    more = _more(games, half, target, max_games)
    return Criterion(name, None, detail + (f"; not decided: about {more} more" if more else ""))


def _l1_early_losses(early: tuple[int, int] | None) -> Criterion:
    """L1 loses before :data:`EARLY_LOSS_PLY` in at most :data:`EARLY_LOSS_SHARE` of its
    games against novice, judged on :data:`EARLY_LOSS_GAMES` games or more."""
    name = (
        f"L1 loses before ply {EARLY_LOSS_PLY} in at most {100 * EARLY_LOSS_SHARE:.0f}% "
        "of its games against novice"
    )
    if early is None:
        return Criterion(name, None, "no direct games")
    lost, games = early
    detail = f"{lost} of {games} games ({100 * lost / games:.1f}%)"
    if games < EARLY_LOSS_GAMES:
        if lost > EARLY_LOSS_SHARE * EARLY_LOSS_GAMES:
            return Criterion(name, False, detail)
        return Criterion(name, None, f"{detail}; not decided: {EARLY_LOSS_GAMES} games needed")
    return Criterion(name, lost <= EARLY_LOSS_SHARE * games, detail)


def _l1_over_random(rating: Rating | None) -> Criterion:
    """L1 at least :data:`L1_OVER_RANDOM` Elo above random (= 0), decided by its interval."""
    name = f"L1 at least {L1_OVER_RANDOM:.0f} Elo above random"
    if rating is None or rating.extrapolated:
        return Criterion(name, None, "not measured")
    detail = f"{rating.elo:.0f} [{rating.elo_lo:.0f}, {rating.elo_hi:.0f}]"
    if rating.elo_lo >= L1_OVER_RANDOM:
        return Criterion(name, True, detail)
    if rating.elo_hi < L1_OVER_RANDOM:
        return Criterion(name, False, detail)
    return Criterion(name, None, detail + "; not decided: its interval holds the bound")


def early_losses(
    records: Sequence[GameRecord], player: str, opponent: str
) -> tuple[int, int] | None:
    """How many of ``player``'s games against ``opponent`` it lost before
    :data:`EARLY_LOSS_PLY` plies, and how many they played; None when they have not met."""
    direct = [r for r in records if {r.red, r.black} == {player, opponent}]
    if not direct:
        return None
    lost = sum(
        1
        for r in direct
        if len(r.moves) < EARLY_LOSS_PLY
        and (r.red_score if r.red == player else 1 - r.red_score) == 0
    )
    return lost, len(direct)


def _unplayed(criterion: str, player: str, planned: int) -> Criterion:
    return Criterion(criterion, None, f"{player}: no games yet ({planned} planned)")


def _elo_point_name(elo: float) -> str:
    return f"elo:{elo:g} plays inside its measured interval"


def _variety_cost_name(n: int) -> str:
    return f"L{n}'s variety costs at most {VARIETY_COST:.0f} Elo"


def _elo_point_criterion(point: EloPoint) -> Criterion:
    """An interpolated Elo plays at that Elo: the target inside its measured interval,
    decided when its planned games are played."""
    m = point.measured
    detail = (
        f"{point.name} against {', '.join(point.opponents)}: {m.elo:.0f} "
        f"[{m.elo_lo:.0f}, {m.elo_hi:.0f}] in {m.games} games"
    )
    verdict: bool | None
    if m.games < point.planned:
        verdict = None
        detail += f"; not decided: {point.planned - m.games} more planned"
    else:
        verdict = m.elo_lo <= point.elo <= m.elo_hi
    return Criterion(_elo_point_name(point.elo), verdict, detail)


def _variety_cost(n: int, twin: str, score: float, games: int, planned: int) -> Criterion:
    """Level ``n``'s variety costs at most :data:`VARIETY_COST` Elo: its plain twin's
    score against it, as Elo with its Wilson interval. Decided when the planned games are
    played (or earlier, if the whole interval is above the bound)."""
    s_lo, s_hi = wilson(score, games)
    cost, lo, hi = (score_to_elo(min(max(x, 1e-6), 1 - 1e-6)) for x in (score, s_lo, s_hi))
    detail = f"{twin} against L{n}: {cost:+.0f} Elo [{lo:+.0f}, {hi:+.0f}] in {games} games"
    verdict: bool | None
    if lo > VARIETY_COST:
        verdict = False
    elif games < planned:
        verdict = None
        detail += f"; not decided: {planned - games} more planned"
    else:
        verdict = cost <= VARIETY_COST
    return Criterion(_variety_cost_name(n), verdict, detail)


def _more(games: int, half: float, target: float, cap: int) -> int:
    """About how many more games bring an interval of half-width ``half`` over ``games``
    games down to ``target`` (widths shrink as 1/sqrt(games)); at most up to ``cap``,
    and 0 once ``cap`` games are played (the plan plays no more)."""
    if games >= cap:
        return 0
    needed = max(MIN_GAMES, math.ceil(games * (min(half, 10 * target) / target) ** 2))
    return max(2, min(needed, cap) - games)


def _at_cap(games: int, half: float) -> str:
    """What an undecided criterion says once its pairing has all the plan's games."""
    return f"; not decided: its {games} games (the plan's cap) give ±{half:.0f}"


def decide_gap(
    elo: float,
    lo: float,
    hi: float,
    target: float,
    games: int,
    cap: int = MAX_GAMES,
) -> tuple[bool | None, int]:
    """A gap's verdict: not decided (None) while its interval is wider than ±``target``
    or it rests on fewer than :data:`MIN_GAMES` games, unless the whole interval lies
    outside :data:`GAP_RANGE` (False); then met (True) when the point estimate lies in
    the range and the interval excludes 0. With it, about how many more games would
    decide it (0 once decided, or once ``cap`` games are played: the plan plays no
    more; never beyond ``cap`` games in all)."""
    low, high = GAP_RANGE
    half = max(elo - lo, hi - elo)
    if hi < low or lo > high:
        return False, 0
    if games < MIN_GAMES or half > target:
        return None, _more(games, half, target, cap)
    return low <= elo <= high and lo > 0, 0


def _all(verdicts: Sequence[bool | None]) -> bool | None:
    if False in verdicts:
        return False
    return None if None in verdicts or not verdicts else True
