"""Who plays whom in a calibration, under which adjudication, as which match.

Per variant the players are the chain ``random < greedy < L1 < ... < L8`` (the levels of
the levels file being calibrated) and the plan's extra players. The pairings are every
adjacent pair of the chain (the ladder's gaps), every skip-one pair (random-L1,
greedy-L2, L1-L3, ...; they tie the chain together), and each extra player against the
opponents the plan names. Each pairing is a match of the results database (tag
``calibrate:<variant>``), so a calibration resumes like a match. A level's settings are
part of its match id, so a retuned level is a new pairing: its old games are never mixed
in.

Games between two levels that search (no mistake rule) are adjudicated by score, to keep
the long games at the top of the ladder short: a side whose own score has been at most
-``resign_cp`` for ``resign_moves`` of its moves loses, and after ``draw_after_ply`` both
scores within ±``draw_cp`` for ``draw_moves`` moves each is a draw. Games with a weaker
player are played out (a player that makes mistakes can turn a lost game around).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ladder.levels import LEVEL_NUMBERS, LEVELS_FILE, load_levels
from ladder.match.config import MatchConfig
from ladder.match.game.adjudication import Adjudication
from ladder.match.openings import Opening
from ladder.match.players.specs import PlayerSpec, PlayerSpecError
from ladder.variants import VARIANT_IDS

__all__ = [
    "MAX_GAMES",
    "EloPointPlan",
    "Extra",
    "Pairing",
    "Plan",
    "PlanError",
    "adjudication_for",
    "chain",
    "level_name",
    "match_for",
    "pairings",
]

#: Games an adjacent pairing gets at most (:attr:`Plan.max_games`): enough for ±60 Elo on
#: a gap of 300 (about 250 games), with a margin.
MAX_GAMES = 400

#: Default adjudication of games between two searching levels.
SEARCHERS_ADJUDICATION = Adjudication(
    resign_cp=400, resign_moves=3, draw_cp=10, draw_moves=8, draw_after_ply=80
)


class PlanError(ValueError):
    """A calibration plan that cannot be used."""


@dataclass(frozen=True)
class Extra:
    """A player rated in the same pool as the ladder, against the opponents named."""

    name: str
    spec: str
    opponents: tuple[str, ...]
    games: int
    variants: tuple[str, ...] = VARIANT_IDS


@dataclass(frozen=True)
class EloPointPlan:
    """An interpolated Elo the plan checks (an ``elo:N`` extra), in one variant."""

    name: str
    elo: float  #: N
    #: the levels it meets, by name, with their Elo in the file N is interpolated in
    neighbours: dict[str, float]
    planned: int  #: games planned against them in all


@dataclass(frozen=True)
class Plan:
    """How many games, where, and the extra players (``calibration/plan.toml``)."""

    games: int = 20  #: first games of every adjacent pairing
    skip_one_games: int = 10  #: games of every skip-one pairing
    #: Skip-one pairings up to this level as the stronger side (the strongest levels'
    #: skip-one games cost the most and, a gap of two levels being one-sided, tell little).
    skip_one_top: int = 8
    max_games: int = MAX_GAMES  #: an adjacent pairing gets at most this many games
    seed: int = 1
    adjudication: Adjudication = SEARCHERS_ADJUDICATION
    extras: tuple[Extra, ...] = ()

    def __post_init__(self) -> None:
        if self.games < 2 or self.skip_one_games < 0 or self.max_games < self.games:
            raise PlanError("a plan needs games >= 2, skip_one_games >= 0, max_games >= games")
        if not 2 <= self.skip_one_top <= 8:
            raise PlanError("skip_one_top must be a level from 2 to 8")

    def plain_twins(self, variant: str) -> list[tuple[str, int, int]]:
        """The extras that are a level without its variety (``level:N,variety=off``)
        against that level, in ``variant``: (name, N, games planned)."""
        out: dict[str, tuple[str, int, int]] = {}
        for extra in self.extras:
            if variant not in extra.variants or extra.name in out:
                continue
            spec = PlayerSpec.parse(extra.spec)
            if (
                spec.kind == "level"
                and spec.variety_off
                and spec.levels_file is None  # the shipped level, not another file's
                and spec.level is not None
                and level_name(spec.level) in extra.opponents
            ):
                out[extra.name] = (extra.name, spec.level, extra.games)
        return list(out.values())

    def elo_points(self, variant: str) -> list[EloPointPlan]:
        """The extras that are an interpolated Elo (``elo:N``) in ``variant``, each with
        the levels it meets and their ratings in the levels file it is interpolated in
        (the scale N is on). Their matches verify that the interpolation plays at N
        (:mod:`ladder.calibration.fit`)."""
        out: dict[str, EloPointPlan] = {}
        for extra in self.extras:
            if variant not in extra.variants:
                continue
            spec = PlayerSpec.parse(extra.spec)
            if spec.kind != "level" or spec.elo is None:
                continue
            levels = load_levels(Path(spec.levels_file) if spec.levels_file else LEVELS_FILE)
            anchors = {}
            for opponent in extra.opponents:
                number = _level_number(opponent)
                rating = levels[variant][number].rating if number in LEVEL_NUMBERS else None
                if rating is not None:
                    anchors[opponent] = rating.elo
            known = out.get(extra.name)
            out[extra.name] = EloPointPlan(
                extra.name,
                spec.elo,
                {**(known.neighbours if known else {}), **anchors},
                (known.planned if known else 0) + extra.games * len(extra.opponents),
            )
        return list(out.values())

    @classmethod
    def load(cls, path: Path) -> Plan:
        """Read a plan file; relative ``levels=`` paths in extra specs are taken from the
        plan file's folder."""
        try:
            data = tomllib.loads(path.read_text())
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise PlanError(f"{path}: {exc}") from exc
        return cls.from_dict(data, base=path.parent)

    @classmethod
    def from_dict(cls, data: dict[str, Any], base: Path = Path(".")) -> Plan:
        data = dict(data)
        try:
            adjudication = Adjudication(**data.pop("adjudication", {}))
        except (TypeError, ValueError) as exc:
            raise PlanError(f"adjudication: {exc}") from exc
        extras = []
        for t in data.pop("extra", []):
            t = dict(t)
            try:
                spec = str(t.pop("spec"))
                extras.append(
                    Extra(
                        name=str(t.pop("name")),
                        spec=_resolve_levels_path(spec, base),
                        opponents=tuple(t.pop("opponents")),
                        games=int(t.pop("games", 20)),
                        variants=tuple(t.pop("variants", VARIANT_IDS)),
                    )
                )
            except KeyError as exc:
                raise PlanError(f"extra player needs {exc.args[0]!r}") from None
            if t:
                raise PlanError(f"extra player: unknown key(s) {sorted(t)}")
        try:
            plan = cls(**data, adjudication=adjudication, extras=tuple(extras))
        except TypeError as exc:
            raise PlanError(f"plan: {exc}") from exc
        for extra in plan.extras:
            unknown = set(extra.variants) - set(VARIANT_IDS)
            if unknown:
                raise PlanError(f"extra {extra.name}: unknown variant(s) {sorted(unknown)}")
        return plan


def _resolve_levels_path(spec: str, base: Path) -> str:
    parts = spec.split(",")
    for i, part in enumerate(parts):
        key, eq, value = part.partition("=")
        if eq and key.strip() == "levels" and not Path(value).is_absolute():
            parts[i] = f"levels={(base / value).resolve()}"
    return ",".join(parts)


@dataclass(frozen=True)
class Pairing:
    """Two players of a variant's pool and the games they start with."""

    stronger: PlayerSpec
    weaker: PlayerSpec
    games: int
    adjacent: bool = False  #: a gap of the chain: gets more games while it is unsure
    adjudication: Adjudication = field(default_factory=Adjudication)
    extra: bool = False  #: an extra player's pairing: played once the chain is decided

    def with_patched_engine(self, engine: Path | None) -> Pairing:
        """The same pairing, its players running the patched engine found at ``engine``."""
        return replace(
            self,
            stronger=self.stronger.with_patched_engine(engine),
            weaker=self.weaker.with_patched_engine(engine),
        )

    def top_level(self) -> int:
        """The highest level in the pairing (0 for two baselines), which ``ladder
        calibrate --max-level`` compares. An ``elo:`` player counts as the level it meets
        (the plan pairs an Elo with the levels around it), or as the top level when it
        meets no level."""
        levels = [_level_of(self.stronger), _level_of(self.weaker)]
        if None in levels:
            known = [n for n in levels if n]
            return max(known) if known else LEVEL_NUMBERS[-1]
        return max(n for n in levels if n is not None)


def _level_of(spec: PlayerSpec) -> int | None:
    """A player's level number: 0 for a baseline, None for an ``elo:`` player."""
    if spec.kind != "level":
        return 0
    return spec.level


def _level_number(name: str) -> int:
    """``L3`` -> 3; 0 for a name that is no level's."""
    return int(name[1:]) if name[:1] == "L" and name[1:].isdigit() else 0


def level_name(level: int) -> str:
    """A level's name in the pool: ``L3``."""
    return f"L{level}"


def chain_index(level: int) -> int:
    """Where level ``level`` stands in the chain (after random and greedy)."""
    return level + 1


def chain(levels_file: Path | None) -> list[PlayerSpec]:
    """The chain random < greedy < L1 < ... < L8."""
    extra = f",levels={levels_file.resolve()}" if levels_file else ""
    return [PlayerSpec.parse("random"), PlayerSpec.parse("greedy")] + [
        PlayerSpec.parse(f"level:{n}{extra},name={level_name(n)}") for n in LEVEL_NUMBERS
    ]


def _searches(spec: PlayerSpec, variant: str) -> bool:
    """Whether a player plays its engine's best move (no mistake rule): a level without a
    temperature or random moves."""
    if spec.kind != "level":
        return False
    variety = spec.level_settings(variant).variety
    return variety is None or (variety.temperature_cp == 0 and variety.random_move_pct == 0)


def adjudication_for(plan: Plan, variant: str, a: PlayerSpec, b: PlayerSpec) -> Adjudication:
    """The plan's adjudication between two searching levels, else none (rules endings and
    the length cap only)."""
    if _searches(a, variant) and _searches(b, variant):
        return plan.adjudication
    return Adjudication(max_plies=plan.adjudication.max_plies)


def pairings(variant: str, plan: Plan, levels_file: Path | None) -> list[Pairing]:
    """Adjacent pairs, skip-one pairs, and the extras' pairings of one variant."""
    players = chain(levels_file)
    load_levels(levels_file) if levels_file else None  # a bad file fails here, clearly

    def pair(
        a: PlayerSpec, b: PlayerSpec, games: int, adjacent: bool, extra: bool = False
    ) -> Pairing:
        return Pairing(a, b, games, adjacent, adjudication_for(plan, variant, a, b), extra)

    out = [pair(players[i + 1], players[i], plan.games, True) for i in range(len(players) - 1)]
    if plan.skip_one_games:
        top = chain_index(plan.skip_one_top)
        out += [
            pair(players[i + 2], players[i], plan.skip_one_games, False)
            for i in range(min(len(players), top + 1) - 2)
        ]
    by_name = {p.name: p for p in players}
    for extra in plan.extras:
        if variant not in extra.variants:
            continue
        try:
            spec = PlayerSpec.parse(extra.spec).with_name(extra.name)
            if spec.kind == "level" and spec.levels_file is None and levels_file is not None:
                # a level of the ladder being calibrated, as the chain plays it
                spec = replace(spec, levels_file=str(levels_file.resolve()))
            spec.settings(variant)  # an unusable spec (e.g. an Elo off the curve) fails here
        except PlayerSpecError as exc:
            raise PlanError(f"extra {extra.name}: {exc}") from exc
        if extra.name in by_name:
            raise PlanError(f"extra {extra.name}: the name is taken")
        for opponent in extra.opponents:
            if opponent not in by_name:
                raise PlanError(f"extra {extra.name}: no player {opponent!r} in the chain")
            out.append(pair(spec, by_name[opponent], extra.games, False, extra=True))
    return out


def match_for(
    variant: str, pairing: Pairing, plan: Plan, openings: list[Opening], games: int
) -> MatchConfig:
    """The match of a pairing, with ``games`` games (not part of its id: more games
    extend the same match)."""
    m = MatchConfig(
        variant=variant,
        player_a=pairing.stronger,
        player_b=pairing.weaker,
        openings=openings,
        games=games,
        seed=plan.seed,
        adjudication=pairing.adjudication,
        tag=f"calibrate:{variant}",
    )
    a, b = pairing.stronger.name, pairing.weaker.name
    # Readable, and as specific as a match's own id: a retuned level (or other openings
    # or adjudication) is a new pairing, never mixed with the old games.
    return replace(m, name=f"calibrate:{variant}:{a}-{b}:s{plan.seed}:{m.digest()}")
