"""``ladder calibrate``: measure the ladder's Elo per variant, random = 0.

Per variant, the players are ``random``, ``greedy`` and levels ``L1..L<max_level>``; the
pairings are every adjacent pair of that chain (random-greedy, greedy-L1, L1-L2, ...)
with ``games`` games, plus every skip-one pair (random-L1, greedy-L2, L1-L3, ...) with
half as many, which ties the ladder together. Each pairing is a match in the database
(tag ``calibrate:<variant>``), so a calibration resumes like a match. The games of all
pairings are interleaved, pair by pair, so that a run cut short by ``--budget`` has
measured every pairing a little rather than a few pairings fully.

The fit is :func:`ladder.match.bradley_terry.fit_ladder` over the stored games of these
pairings (a level's engine settings are part of its match ids, so after a retune the
games of the old settings are left out and the new ones are played), anchored at
``random`` = 0, with bootstrap intervals resampling game pairs.
Levels not played get ``elo = a + b ln(nodes)`` fitted on the three strongest played
levels without a variety rule (weighted by 1/stderr^2; all played levels when fewer than
two of those were played), marked ``extrapolated``, with an interval from the line's
standard error and its residual spread.

:func:`check_ladder` reports the tuning criteria (strictly increasing, adjacent gaps
150-400 Elo, level 1 scoring 55-80 % against greedy).
"""

from __future__ import annotations

import itertools
import math
import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from ladder.levels import LEVELS_FILE, Level, load_levels
from ladder.match.adjudication import Adjudication
from ladder.match.backends import make_backend
from ladder.match.bradley_terry import GameResult, LadderFit, fit_ladder
from ladder.match.calibration import fit_elo_vs_log_nodes
from ladder.match.elo import elo_to_score, normal_quantile
from ladder.match.openings import load_openings
from ladder.match.play import GameRecord, GameTask
from ladder.match.players import PlayerSpec
from ladder.match.runner import MatchConfig, execute
from ladder.match.store import ResultStore

__all__ = [
    "CalibrationConfig",
    "Criterion",
    "LevelResult",
    "VariantCalibration",
    "check_ladder",
    "fit_variant",
    "ladder_players",
    "pairings",
    "run_calibration",
    "write_docs",
    "write_levels_file",
]

GAP_RANGE = (150.0, 400.0)
L1_VS_GREEDY = (0.55, 0.80)


@dataclass
class CalibrationConfig:
    """Settings of a calibration run."""

    variants: tuple[str, ...]
    max_level: int = 4
    games: int = 40
    budget_seconds: float | None = None
    bootstrap: int = 200
    seed: int = 1
    adjudication: Adjudication = field(default_factory=Adjudication)
    levels_file: Path | None = None
    docs: Path = Path("docs")
    write: bool = True
    play: bool = True
    openings: dict[str, Path] = field(default_factory=dict)

    @property
    def levels_path(self) -> Path:
        return self.levels_file or LEVELS_FILE


@dataclass(frozen=True)
class LevelResult:
    """A level's figure: measured from games, or extrapolated from the node count."""

    level: int
    nodes: int
    elo: float | None
    elo_lo: float | None
    elo_hi: float | None
    games: int
    extrapolated: bool


@dataclass(frozen=True)
class Criterion:
    """One tuning criterion: met (True), not met (False) or not measurable (None)."""

    name: str
    ok: bool | None
    detail: str


@dataclass
class VariantCalibration:
    """The outcome for one variant."""

    variant: str
    fit: LadderFit | None
    levels: list[LevelResult]
    criteria: list[Criterion]
    baselines: dict[str, tuple[float, float, float, int]]  #: name -> elo, lo, hi, games
    l1_vs_greedy_score: float | None = None
    l1_vs_greedy_games: int = 0


# --- schedule ---------------------------------------------------------------------------


def level_name(level: int) -> str:
    return f"L{level}"


def ladder_players(max_level: int, levels_file: Path | None = None) -> list[PlayerSpec]:
    """The chain random < greedy < L1 < ... < L<max_level>."""
    if not 1 <= max_level <= 8:
        raise ValueError(f"--max-level must be 1..8, got {max_level}")
    extra = f",levels={levels_file.resolve()}" if levels_file else ""
    return [PlayerSpec.parse("random"), PlayerSpec.parse("greedy")] + [
        PlayerSpec.parse(f"level:{n}{extra},name={level_name(n)}") for n in range(1, max_level + 1)
    ]


def pairings(players: Sequence[PlayerSpec], games: int) -> list[tuple[PlayerSpec, PlayerSpec, int]]:
    """Adjacent pairs with ``games`` games, skip-one pairs with half (whole pairs)."""
    out = []
    per_cross = max(2, (games // 2 + 1) // 2 * 2)
    for i in range(len(players) - 1):
        out.append((players[i + 1], players[i], games))
    for i in range(len(players) - 2):
        out.append((players[i + 2], players[i], per_cross))
    return out


def calibration_matches(variant: str, config: CalibrationConfig) -> list[MatchConfig]:
    """The matches of one variant's calibration (stronger player as A)."""
    openings = load_openings(variant, config.openings.get(variant))
    players = ladder_players(config.max_level, config.levels_file)
    out = []
    for a, b, n in pairings(players, config.games):
        m = MatchConfig(
            variant=variant,
            player_a=a,
            player_b=b,
            openings=openings,
            games=n,
            seed=config.seed,
            adjudication=config.adjudication,
            tag=f"calibrate:{variant}",
        )
        # Readable, and as specific as a match's own id: a retuned level (or other
        # openings or adjudication) is a new pairing, never mixed with the old games.
        m.name = f"calibrate:{variant}:{a.name}-{b.name}:s{config.seed}:{m.digest()}"
        out.append(m)
    return out


def interleave(matches: Sequence[MatchConfig]) -> list[GameTask]:
    """All games, pair k of every match before pair k+1 of any."""
    per = [m.tasks() for m in matches]
    out: list[GameTask] = []
    for k in range(0, max((len(t) for t in per), default=0), 2):
        for tasks in per:
            out.extend(tasks[k : k + 2])
    return out


# --- fit --------------------------------------------------------------------------------


#: How many of the strongest measured levels (without a variety rule) the log-nodes line
#: for the unmeasured ones is fitted to.
EXTRAPOLATION_POINTS = 3


def _bt_games(records: Sequence[GameRecord]) -> list[GameResult]:
    return [GameResult(r.red, r.black, r.red_score, (r.match_id, r.pair_no)) for r in records]


def _extrapolate(
    levels: dict[int, Level], measured: dict[int, tuple[float, float]], confidence: float
) -> dict[int, tuple[float, float, float]]:
    """Elo (and an interval) for unmeasured levels from the log-nodes line through the
    strongest measured levels (Elo is not linear in ln(nodes) over decades: the gain per
    doubling grows from a few hundred nodes to tens of thousands, so the line is fitted
    where the extrapolation starts)."""
    plain = sorted(
        (n for n in measured if levels[n].variety is None), key=lambda n: levels[n].nodes
    )[-EXTRAPOLATION_POINTS:]
    use = plain if len({levels[n].nodes for n in plain}) >= 2 else list(measured)
    if len({levels[n].nodes for n in use}) < 2:
        return {}
    weights = [1.0 / max(measured[n][1], 1.0) ** 2 for n in use]
    line = fit_elo_vs_log_nodes([(levels[n].nodes, measured[n][0]) for n in use], weights)
    xs = [math.log(levels[n].nodes) for n in use]
    sw = sum(weights)
    x_bar = sum(w * x for w, x in zip(weights, xs, strict=True)) / sw
    sxx = sum(w * (x - x_bar) ** 2 for w, x in zip(weights, xs, strict=True))
    z = normal_quantile(0.5 + confidence / 2)
    resid = line.residual_sd or 0.0
    out = {}
    for n, lv in levels.items():
        if n in measured:
            continue
        x = math.log(lv.nodes)
        sd = math.sqrt(1.0 / sw + (x - x_bar) ** 2 / sxx + resid**2)
        elo = line.predict(lv.nodes)
        out[n] = (elo, elo - z * sd, elo + z * sd)
    return out


def fit_variant(
    records: Sequence[GameRecord],
    variant: str,
    levels: dict[int, Level],
    *,
    bootstrap: int = 200,
    seed: int = 1,
) -> VariantCalibration:
    """Whole-ladder fit of one variant's stored games, plus extrapolation and checks."""
    games = _bt_games(records)
    names = {g.red for g in games} | {g.black for g in games}
    fit = (
        fit_ladder(games, anchor="random", bootstrap=bootstrap, seed=seed)
        if games and "random" in names
        else None
    )
    measured: dict[int, tuple[float, float]] = {}
    results: list[LevelResult] = []
    if fit is not None:
        for n in levels:
            r = fit.ratings.get(level_name(n))
            if r is not None:
                measured[n] = (r.elo, r.stderr)
    extra = _extrapolate(levels, measured, fit.confidence if fit else 0.95)
    for n, lv in sorted(levels.items()):
        if fit is not None and n in measured:
            r = fit.ratings[level_name(n)]
            results.append(LevelResult(n, lv.nodes, r.elo, r.lo, r.hi, r.games, False))
        elif n in extra:
            e, lo, hi = extra[n]
            results.append(LevelResult(n, lv.nodes, e, lo, hi, 0, True))
        else:
            results.append(LevelResult(n, lv.nodes, None, None, None, 0, True))
    baselines = {}
    if fit is not None:
        for name in ("random", "greedy"):
            r = fit.ratings.get(name)
            if r is not None:
                baselines[name] = (r.elo, r.lo, r.hi, r.games)
    direct = [r for r in records if {r.red, r.black} == {"L1", "greedy"}]
    score = (
        (sum(r.red_score if r.red == "L1" else 1 - r.red_score for r in direct) / len(direct))
        if direct
        else None
    )
    cal = VariantCalibration(variant, fit, results, [], baselines, score, len(direct))
    cal.criteria = check_ladder(cal)
    return cal


def check_ladder(cal: VariantCalibration) -> list[Criterion]:
    """The tuning criteria, on measured figures (extrapolated ones are named as such)."""
    out: list[Criterion] = []
    rated = [lv for lv in cal.levels if lv.elo is not None]
    if len(rated) < 2:
        out.append(Criterion("strictly increasing", None, "fewer than two levels rated"))
    else:
        bad = [
            f"L{a.level} {a.elo:.0f} >= L{b.level} {b.elo:.0f}"
            for a, b in itertools.pairwise(rated)
            if a.elo is not None and b.elo is not None and a.elo >= b.elo
        ]
        note = _extrapolated_note(rated)
        out.append(
            Criterion("strictly increasing", not bad, ("; ".join(bad) if bad else "yes") + note)
        )
    gaps = []
    ok_gaps: bool | None = None
    for a, b in itertools.pairwise(cal.levels):
        if a.elo is None or b.elo is None:
            continue
        gap = b.elo - a.elo
        flag = "" if GAP_RANGE[0] <= gap <= GAP_RANGE[1] else " (out of range)"
        ext = "*" if a.extrapolated or b.extrapolated else ""
        gaps.append(f"L{a.level}-L{b.level} {gap:+.0f}{ext}{flag}")
        ok_gaps = (ok_gaps is not False) and not flag
    out.append(
        Criterion(
            f"adjacent gaps {GAP_RANGE[0]:.0f}-{GAP_RANGE[1]:.0f} Elo",
            ok_gaps,
            ", ".join(gaps) + (" (* extrapolated)" if "*" in "".join(gaps) else "")
            if gaps
            else "no two adjacent levels rated",
        )
    )
    lo, hi = L1_VS_GREEDY
    l1 = cal.levels[0] if cal.levels else None
    greedy = cal.baselines.get("greedy")
    if cal.l1_vs_greedy_score is not None:
        s = cal.l1_vs_greedy_score
        out.append(
            Criterion(
                f"L1 scores {100 * lo:.0f}-{100 * hi:.0f}% vs greedy",
                lo <= s <= hi,
                f"{100 * s:.1f}% in {cal.l1_vs_greedy_games} direct games",
            )
        )
    elif l1 is not None and l1.elo is not None and greedy is not None:
        s = elo_to_score(l1.elo - greedy[0])
        out.append(
            Criterion(
                f"L1 scores {100 * lo:.0f}-{100 * hi:.0f}% vs greedy",
                lo <= s <= hi,
                f"{100 * s:.1f}% expected from the fit",
            )
        )
    else:
        out.append(
            Criterion(f"L1 scores {100 * lo:.0f}-{100 * hi:.0f}% vs greedy", None, "not measured")
        )
    return out


def _extrapolated_note(levels: Sequence[LevelResult]) -> str:
    ext = [f"L{lv.level}" for lv in levels if lv.extrapolated]
    return f" (extrapolated: {', '.join(ext)})" if ext else ""


# --- outputs ----------------------------------------------------------------------------

_VARIANT_TABLE = re.compile(r"^\[variant\.", re.MULTILINE)


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return f"{v:.1f}"
    if isinstance(v, int):
        return str(v)
    return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_levels_file(path: Path, results: dict[str, list[LevelResult]]) -> None:
    """Set elo, elo_lo, elo_hi, games, extrapolated in the per-variant tables
    ``[variant.<id>.<level>]`` of the levels file, keeping every other setting (and all
    text before the first variant table). The result is checked by loading it."""
    text = path.read_text()
    data = tomllib.loads(text)
    tables: dict[str, dict[str, dict[str, Any]]] = {
        v: {str(k): dict(t) for k, t in levels.items()}
        for v, levels in data.get("variant", {}).items()
    }
    measured_keys = ("elo", "elo_lo", "elo_hi", "games", "extrapolated")
    for variant, levels in results.items():
        vt = tables.setdefault(variant, {})
        for lv in levels:
            t = {k: v for k, v in vt.get(str(lv.level), {}).items() if k not in measured_keys}
            if lv.elo is not None:
                t.update(
                    elo=round(lv.elo, 1),
                    elo_lo=round(lv.elo_lo or lv.elo, 1),
                    elo_hi=round(lv.elo_hi or lv.elo, 1),
                    games=lv.games,
                    extrapolated=lv.extrapolated,
                )
            if t:
                vt[str(lv.level)] = t
            else:
                vt.pop(str(lv.level), None)
    m = _VARIANT_TABLE.search(text)
    head = (text[: m.start()] if m else text).rstrip() + "\n"
    parts = [head]
    for variant in sorted(tables):
        for key in sorted(tables[variant], key=int):
            body = "".join(f"{k} = {_toml_value(v)}\n" for k, v in tables[variant][key].items())
            parts.append(f"\n[variant.{variant}.{key}]\n{body}")
    new = "".join(parts)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(new)
    load_levels(tmp)  # refuse to write a file the service cannot read
    tmp.replace(path)


def _fmt_ci(lo: float | None, hi: float | None) -> str:
    return "-" if lo is None or hi is None else f"[{lo:.0f}, {hi:.0f}]"


def ladder_markdown(
    cals: Sequence[VariantCalibration], levels: dict[str, dict[int, Level]], plots: dict[str, str]
) -> str:
    """docs/ladder.md: a table per variant, with the games behind each figure."""
    out = [
        "# The ladder's measured strength",
        "",
        "Logistic Elo with `random` = 0, from `ladder calibrate` (whole-ladder "
        "Bradley-Terry fit with a Red advantage; 95% intervals by bootstrap over game "
        "pairs). Figures marked *extrapolated* were not played: they come from a fit of "
        f"Elo against ln(nodes) over the {EXTRAPOLATION_POINTS} strongest measured levels "
        "without a variety rule, with a prediction interval. How the levels were tuned: "
        "[match.md](match.md#tuning-the-ladder-2026-11-30).",
        "",
    ]
    for cal in cals:
        out += [f"## {cal.variant}", ""]
        fit = cal.fit
        if fit is not None:
            out.append(
                f"{fit.games} games; Red advantage {fit.red_advantage:+.0f} Elo "
                f"{_fmt_ci(fit.red_advantage_lo, fit.red_advantage_hi)}."
            )
            out.append("")
        out += [
            "| player | nodes | variety | Elo | 95% CI | games | source |",
            "| --- | ---: | --- | ---: | --- | ---: | --- |",
        ]
        for name in ("random", "greedy"):
            if name in cal.baselines:
                e, lo, hi, g = cal.baselines[name]
                out.append(
                    f"| {name} | - | - | {e:.0f} | {_fmt_ci(lo, hi)} | {g} | "
                    f"{'anchor' if name == 'random' else 'measured'} |"
                )
        for lv in cal.levels:
            spec = levels[cal.variant][lv.level]
            variety = spec.variety.describe() if spec.variety else "-"
            elo = "-" if lv.elo is None else f"{lv.elo:.0f}"
            source = (
                "not rated"
                if lv.elo is None
                else "**extrapolated**"
                if lv.extrapolated
                else "measured"
            )
            out.append(
                f"| level {lv.level} | {lv.nodes:,} | {variety} | {elo} | "
                f"{_fmt_ci(lv.elo_lo, lv.elo_hi)} | {lv.games} | {source} |"
            )
        out += ["", "Tuning criteria:", ""]
        for c in cal.criteria:
            mark = {True: "met", False: "NOT met", None: "unknown"}[c.ok]
            out.append(f"- {c.name}: **{mark}** ({c.detail})")
        if cal.variant in plots:
            out += ["", f"![Elo against level, {cal.variant}]({plots[cal.variant]})"]
        out.append("")
    return "\n".join(out)


def plot_ladder(cal: VariantCalibration, path: Path) -> None:
    """A PNG of Elo against level with error bars (hollow markers: extrapolated)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=100)
    styles: list[tuple[bool, dict[str, Any]]] = [
        (False, dict(fmt="o", color="tab:blue", label="measured")),
        (True, dict(fmt="o", color="tab:orange", mfc="white", label="extrapolated (ln nodes fit)")),
    ]
    for extrapolated, style in styles:
        # (level, elo, low, high) of the rated levels
        pts = [
            (lv.level, lv.elo, lv.elo_lo or lv.elo, lv.elo_hi or lv.elo)
            for lv in cal.levels
            if lv.elo is not None and lv.extrapolated == extrapolated
        ]
        if pts:
            ax.errorbar(
                [level for level, _, _, _ in pts],
                [elo for _, elo, _, _ in pts],
                yerr=[[elo - lo for _, elo, lo, _ in pts], [hi - elo for _, elo, _, hi in pts]],
                capsize=4,
                **style,
            )
    for x, name in ((-1, "random"), (0, "greedy")):
        if name in cal.baselines:
            e, lo, hi, _ = cal.baselines[name]
            ax.errorbar([x], [e], yerr=[[e - lo], [hi - e]], fmt="s", color="gray", capsize=4)
    ax.set_xticks(range(-1, 9), ["random", "greedy", *map(str, range(1, 9))])
    ax.set_xlabel("level")
    ax.set_ylabel("Elo (random = 0)")
    ax.set_title(f"{cal.variant}: Elo by level (95% CI)")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)


def write_docs(
    cals: Sequence[VariantCalibration], levels: dict[str, dict[int, Level]], docs: Path
) -> Path:
    """docs/ladder.md and docs/ladder-<variant>.png; returns the markdown's path."""
    docs.mkdir(parents=True, exist_ok=True)
    plots = {}
    for cal in cals:
        name = f"ladder-{cal.variant}.png"
        plot_ladder(cal, docs / name)
        plots[cal.variant] = name
    md = docs / "ladder.md"
    md.write_text(ladder_markdown(cals, levels, plots))
    return md


# --- the command ------------------------------------------------------------------------


def run_calibration(
    config: CalibrationConfig,
    *,
    db: Path | str,
    concurrency: int | None = None,
    ray_address: str | None = None,
    console: Console | None = None,
) -> list[VariantCalibration]:
    """Play (or resume) the calibration games, fit, report, and write the outputs."""
    console = console or Console()
    levels = load_levels(config.levels_path)
    cals: list[VariantCalibration] = []
    with ResultStore(db) as store:
        backend = None
        try:
            for variant in config.variants:
                matches = calibration_matches(variant, config)
                for m in matches:
                    m.register(store)
                if config.play:
                    backend = backend or make_backend(concurrency, ray_address)
                    tasks = interleave(matches)
                    done = [0]

                    def progress(
                        rec: GameRecord | None,
                        n: int = len(tasks),
                        done: list[int] = done,
                        v: str = variant,
                    ) -> None:
                        if rec is not None:
                            done[0] += 1
                            if done[0] % 10 == 0:
                                console.print(f"{v}: {done[0]} games this run ({n} scheduled)")

                    res = execute(
                        tasks,
                        store,
                        backend,
                        budget_seconds=config.budget_seconds,
                        progress=progress,
                    )
                    console.print(
                        f"{variant}: played {res.played}, already stored "
                        f"{res.skipped}, of {len(tasks)} scheduled"
                        + (" (budget reached)" if res.stopped_early else "")
                    )
                # Only this ladder's pairings: a level's settings are part of its match
                # ids, so games of a level as it was before a retune are left out.
                records = list(store.records([m.match_id for m in matches]))
                cal = fit_variant(
                    records, variant, levels[variant], bootstrap=config.bootstrap, seed=config.seed
                )
                cals.append(cal)
                _print_calibration(console, cal)
        finally:
            if backend is not None:
                backend.close()
    if config.write and cals:
        write_levels_file(config.levels_path, {c.variant: c.levels for c in cals})
        md = write_docs(cals, load_levels(config.levels_path), config.docs)
        console.print(f"wrote {config.levels_path} and {md}")
    return cals


def _print_calibration(console: Console, cal: VariantCalibration) -> None:
    console.print(f"[bold]{cal.variant}[/bold]")
    for name, (e, lo, hi, g) in cal.baselines.items():
        console.print(f"  {name:>7}: {e:7.0f} {_fmt_ci(lo, hi):>14}  {g} games")
    for lv in cal.levels:
        elo = "-" if lv.elo is None else f"{lv.elo:7.0f}"
        tag = " extrapolated" if lv.extrapolated and lv.elo is not None else ""
        console.print(
            f"  level {lv.level}: {elo:>7} {_fmt_ci(lv.elo_lo, lv.elo_hi):>14}  "
            f"{lv.games} games{tag}"
        )
    for c in cal.criteria:
        mark = {True: "ok", False: "FAIL", None: "?"}[c.ok]
        console.print(escape(f"  [{mark}] {c.name}: {c.detail}"))
