"""What a calibration will cost, before it is played (``ladder calibrate --estimate``).

Per pairing of the plan: the games its criterion needs and the core-hours they take.

- **Games.** An adjacent pairing plays until its gap is known to its target
  (:func:`ladder.calibration.fit.gap_target`); for an expected gap of ``gap_elo`` the
  games needed are ``(z sd / (target s'))^2``, where ``s'`` is the logistic score's
  slope at that gap (score per Elo) and ``sd`` a game's standard deviation (0.45: a few
  draws), capped by the plan's ``max_games``. A pairing with a fixed count (skip-one,
  extras) plays that count.
- **Time.** A game lasts ``plies`` plies (:data:`PLIES`, from the record: games between
  weak players run longer, adjudicated top games about 100), half of them each side's;
  a level's move costs its node count at ``nps`` nodes per second (the engine's speed
  on one core, ``scripts/bench_engine.py``) plus :data:`MOVE_OVERHEAD_S` (the game
  loop, the rules checker, a new game); a baseline's move only the overhead.

It is an estimate for planning (which part first, how long): the record says what the
games really took.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ladder.calibration.fit import gap_target
from ladder.calibration.plan import Pairing, Plan, pairings
from ladder.match.players.specs import PlayerSpec

__all__ = ["PairingCost", "estimate"]

#: Plies a game lasts: games with a mistake level or baseline, games between two searching
#: levels (adjudicated).
PLIES = {"weak": 140, "searchers": 100}
#: A move's cost beyond the engine's search (seconds).
MOVE_OVERHEAD_S = 0.004
#: A game's score standard deviation (wins, losses and some draws).
GAME_SD = 0.45


@dataclass(frozen=True)
class PairingCost:
    """One pairing's expected games and core-hours."""

    stronger: str
    weaker: str
    games: int
    seconds_per_game: float

    @property
    def core_hours(self) -> float:
        return self.games * self.seconds_per_game / 3600


def _nodes(spec: PlayerSpec, variant: str) -> int:
    return spec.level_settings(variant).nodes if spec.kind == "level" else 0


def _games_for(gap_elo: float, target: float, cap: int) -> int:
    score = 1 / (1 + 10 ** (-gap_elo / 400))
    slope = score * (1 - score) * math.log(10) / 400  # d score / d Elo
    return min(cap, max(2, math.ceil((1.96 * GAME_SD / (target * slope)) ** 2)))


def _level(spec: PlayerSpec) -> int:
    name = spec.name
    return int(name[1:]) if name[:1] == "L" and name[1:].isdigit() else 1


def estimate(
    variant: str, plan: Plan, levels_file: object = None, nps: float = 300_000, gap_elo: float = 300
) -> list[PairingCost]:
    """Every pairing of ``plan`` in ``variant`` with its expected games and time."""
    out = []
    for pairing in pairings(variant, plan, levels_file):  # type: ignore[arg-type]
        out.append(_cost(variant, pairing, plan, nps, gap_elo))
    return out


def _cost(variant: str, pairing: Pairing, plan: Plan, nps: float, gap_elo: float) -> PairingCost:
    a, b = pairing.stronger, pairing.weaker
    searchers = all(
        p.kind == "level" and not p.level_settings(variant).makes_mistakes for p in (a, b)
    )
    plies = PLIES["searchers" if searchers else "weak"]
    per_move = [(_nodes(p, variant) / nps) + MOVE_OVERHEAD_S for p in (a, b)]
    seconds = plies / 2 * sum(per_move)
    games = pairing.games
    if pairing.adjacent:
        games = max(games, _games_for(gap_elo, gap_target(_level(a)), plan.max_games))
    return PairingCost(a.name, b.name, games, seconds)
