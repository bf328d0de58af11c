"""The measurements other scripts make of the levels, as sections of ``docs/ladder.md``.

- **Variety** (``scripts/measure_variety.py --json calibration/variety-<variant>.json``):
  with the opponent's moves fixed, the distinct sequences of a level's first moves that
  20 seeds give, per scenario (goal: at least 15 in every one).
- **Error profile** of the weak levels (``scripts/measure_mistakes.py --json
  calibration/profile-<variant>.json``): free pieces taken, one-move hangs, gross
  blunders and mean loss against a reference search, beside the rule they replaced.
- **A beginner's measures** (``scripts/measure_mistakes.py --sets --json
  calibration/beginner-<variant>.json``): on the report half of the frozen position sets,
  checks answered, threats parried, free pieces taken, one-move hangs and their share to
  a cannon or a horse, drops taken for nothing.
- **Human reference** (``ladder/human_reference.json``, xiangqi): each level's share of
  the grandmaster's move and its mean loss on master positions, beside the masters'.
- **At equal Elo**: each rule the weak levels replaced (a profile row that is not a
  shipped level, rated in the calibration's pool as an extra player) beside the shipped
  level nearest to it in Elo, with the goals of the comparison: more free pieces taken,
  at most half the one-move hangs, more master moves. "Equal" is within ±75 Elo, each
  rated from at least 200 games; until then the row says what is missing.

Each record keeps the settings of the levels it measured (:func:`ladder.levels.play_settings`);
a level retuned since is marked, so the page never describes a level by another
player's figures.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ladder.human_reference import human_reference
from ladder.levels import Level, Rating, play_settings
from ladder.match.players.specs import PlayerSpec, PlayerSpecError

__all__ = ["measurement_sections"]

#: Distinct sequences of a level's first moves that 20 seeds must give in every scenario.
VARIETY_GOAL = 15
#: Two players count as of equal strength within this many Elo...
EQUAL_ELO = 75
#: ... each rated from at least this many games.
EQUAL_ELO_GAMES = 200
STALE = "measured on earlier settings"


def _read(path: Path) -> dict[str, Any] | None:
    return dict(json.loads(path.read_text())) if path.is_file() else None


def _current(settings: object, level: Level | None) -> bool:
    return level is not None and settings == play_settings(level)


def _level_spec(text: str) -> PlayerSpec | None:
    """The player spec of a profile row if it names a level (``level:N,...``), else None."""
    try:
        spec = PlayerSpec.parse(text)
    except PlayerSpecError:
        return None  # the masters' row, or a spec this checkout does not know
    return spec if spec.kind == "level" else None


def _stale(spec: str, row: Mapping[str, Any], levels: Mapping[int, Level]) -> str:
    """`` (measured on earlier settings)`` for a row of a shipped level that has been
    retuned since it was measured (checked against what it plays now), else ``""``."""
    player = _level_spec(spec)
    if player is None or player.levels_file is not None or player.level is None:
        return ""
    return "" if _current(row.get("settings"), levels.get(player.level)) else f" ({STALE})"


def _share(cell: Mapping[str, Any] | None) -> str:
    if not cell or not cell.get("n"):
        return "-"
    share, lo, hi = (100 * cell[k] for k in ("share", "lo", "hi"))
    return f"{share:.0f} % [{lo:.0f}, {hi:.0f}] of {cell['n']}"


def variety_section(record: Mapping[str, Any], levels: Mapping[int, Level]) -> list[str]:
    """The variety table: per measured level, its worst scenario and every scenario's count."""
    settings = record.get("settings", {})
    out = [
        f"**Variety** (`scripts/measure_variety.py`): distinct sequences of the level's "
        f"first {record['moves']} moves from {record['seeds']} seeds, the opponent's moves "
        f"fixed, per scenario; goal at least {VARIETY_GOAL} in every scenario.",
        "",
        "| level | worst scenario | per scenario | goal |",
        "| --- | ---: | --- | --- |",
    ]
    for key, row in sorted(record["levels"].items(), key=lambda kv: int(kv[0])):
        worst = min(row.values())
        stale = "" if _current(settings.get(key), levels.get(int(key))) else f" ({STALE})"
        met = "met" if worst >= VARIETY_GOAL else "not met"
        counts = " ".join(str(v) for v in row.values())
        out.append(f"| {key}{stale} | {worst} | {counts} | {met} |")
    return out


def profile_section(record: Mapping[str, Any], levels: Mapping[int, Level]) -> list[str]:
    """The error-profile table: every player measured, with 95 % intervals."""
    out = [
        f"**Error profile** (`scripts/measure_mistakes.py`, {record['source']} positions, "
        f"reference {record['reference_nodes']:,} nodes; 95 % intervals): free pieces "
        "taken, moves that leave a piece to a one-move capture, gross blunders (≥ 300 cp) "
        "and the mean loss (capped at 1,000 cp).",
        "",
        "| player | spec | free pieces taken | one-move hangs | gross blunders | mean loss |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for name, row in record["players"].items():
        spec = row.get("spec", "-")
        stale = _stale(spec, row, levels)
        lo, hi = row["mean_loss_ci"]
        out.append(
            f"| {name}{stale} | `{spec}` | {_share(row['free_taken'])} | "
            f"{_share(row['hangs'])} | {_share(row['gross'])} | "
            f"{row['mean_loss_capped']:.0f} cp [{lo:.0f}, {hi:.0f}] |"
        )
    return out


def beginner_section(record: Mapping[str, Any], levels: Mapping[int, Level]) -> list[str]:
    """The beginner's measures table (:func:`ladder.calibration.error_profile.measure_sets`)."""
    drops = record["variant"] == "crazyhouse-xiangqi"
    counts = ", ".join(f"{n} {k}" for k, n in record["positions"].items() if n)
    out = [
        f"**A beginner's measures** (`scripts/measure_mistakes.py --sets`, the "
        f"{record['half']} half of the frozen position sets: {counts}; 95 % intervals): "
        "moves in check that do not lose at once, threats to win at once parried, free "
        "pieces taken, one-move hangs on the general positions and the share of them to a "
        "cannon or a horse (a beginner's blind spots; `random`'s share is uniform noise)"
        + (", drops the opponent takes at once for nothing." if drops else "."),
        "",
        "| player | spec | checks answered | threats parried | free pieces taken | "
        "one-move hangs | to a cannon or a horse |"
        + (" drops taken for nothing |" if drops else ""),
        "| --- | --- | ---: | ---: | ---: | ---: | ---: |" + (" ---: |" if drops else ""),
    ]
    for name, row in record["players"].items():
        spec = row.get("spec", "-")
        stale = _stale(spec, row, levels)
        line = (
            f"| {name}{stale} | `{spec}` | {_share(row['check'])} | {_share(row['threat'])} | "
            f"{_share(row['free'])} | {_share(row['hangs'])} | {_share(row['cannon_horse'])} |"
        )
        out.append(line + (f" {_share(row['drop_hangs'])} |" if drops else ""))
    return out


def human_section(variant: str, levels: Mapping[int, Level]) -> list[str]:
    """The human reference of the levels it judges as they play now."""
    rows = [(n, human_reference(variant, lv)) for n, lv in sorted(levels.items())]
    judged = [(n, ref) for n, ref in rows if ref is not None]
    if not judged:
        return []
    first = judged[0][1]
    out = [
        f"**Human reference** (`ladder/human_reference.json`): on {first['positions']} "
        "positions of the grandmaster games past the book, each level's share of the "
        f"master's move and its mean loss against a {first['reference_nodes']:,}-node "
        "search, beside the masters' own loss. An anchor, not a human Elo.",
        "",
        "| player | master's move | mean loss |",
        "| --- | ---: | ---: |",
    ]
    for n, ref in judged:
        share, (lo, hi) = ref["master_move_share"], ref["master_move_ci"]
        loss, (llo, lhi) = ref["mean_loss_cp"], ref["mean_loss_ci"]
        out.append(
            f"| level {n} | {100 * share:.0f} % [{100 * lo:.0f}, {100 * hi:.0f}] | "
            f"{loss:.0f} cp [{llo:.0f}, {lhi:.0f}] |"
        )
    mlo, mhi = first["masters_mean_loss_ci"]
    masters = first["masters_mean_loss_cp"]
    out.append(f"| the masters | 100 % | {masters:.0f} cp [{mlo:.0f}, {mhi:.0f}] |")
    return out


def _same_player(a: PlayerSpec, b: PlayerSpec) -> bool:
    """Two specs of one level of one levels file (wherever the file was named from)."""
    files = (Path(x.levels_file).name if x.levels_file else None for x in (a, b))
    return a.level == b.level and a.elo == b.elo and len(set(files)) == 1


def equal_elo_section(
    profile: Mapping[str, Any],
    master: Mapping[str, Any] | None,
    ratings: Mapping[str, Rating],
    extras: Mapping[str, str],
    shipped: Mapping[int, Level],
) -> list[str]:
    """Each replaced rule of the profile beside the profiled shipped level nearest to it
    in Elo.

    ``ratings``: the pool's ratings by name (``L1``.., the extras); ``extras``: the
    plan's extra players, name to spec; ``master``: the master-position profile (xiangqi);
    ``shipped``: the levels as they play now (a level profiled on other settings is
    marked).
    """
    # The shipped levels with a profile row (by their spec, ``level:N``) and a rating.
    profiled: dict[str, tuple[int, str]] = {}
    for row_name, row in profile["players"].items():
        spec = _level_spec(row.get("spec", ""))
        if spec is not None and spec.levels_file is None and spec.level is not None:
            profiled[f"L{spec.level}"] = (spec.level, row_name)
    levels = {name: ratings[name] for name in profiled if name in ratings}
    rows = []
    for row_name, row in profile["players"].items():
        spec = _level_spec(row.get("spec", ""))
        if spec is None or spec.levels_file is None:
            continue  # a shipped level (or the masters): the comparison's other side
        pool_name = next(
            (n for n, text in extras.items() if _same_player(spec, PlayerSpec.parse(text))),
            None,
        )
        theirs = ratings.get(pool_name) if pool_name else None
        if theirs is None or not levels:
            missing = "not rated in the pool yet" if theirs is None else "no profiled level rated"
            rows.append(f"| {row_name} | {missing} | | | | |")
            continue
        near = min(levels, key=lambda n: abs(levels[n].elo - theirs.elo))
        number, ours_name = profiled[near]
        ours, ours_row = levels[near], profile["players"][ours_name]
        current = _current(ours_row.get("settings"), shipped.get(number))
        stale = "" if current else f", {STALE}"
        gap = ours.elo - theirs.elo
        fewest = min(ours.games, theirs.games)
        if abs(gap) <= EQUAL_ELO and fewest >= EQUAL_ELO_GAMES:
            verdict = "equal"
        elif abs(gap) > EQUAL_ELO:
            verdict = f"not equal ({gap:+.0f} Elo)"
        else:
            verdict = f"not yet: {fewest} games"
        free = _versus(ours_row["free_taken"], row["free_taken"], more=True)
        hangs = _hang_ratio(ours_row["hangs"], row["hangs"])
        masters = "-"
        if master is not None and ours_name in master["players"] and row_name in master["players"]:
            masters = _versus(
                master["players"][ours_name]["master_move"],
                master["players"][row_name]["master_move"],
                more=True,
            )
        rows.append(
            f"| {row_name} ({theirs.elo:.0f}, {theirs.games} games) | {near} ({ours.elo:.0f}, "
            f"{ours.games} games{stale}): {verdict} | {free} | {hangs} | {masters} |"
        )
    if not rows:
        return []
    return [
        "**At equal Elo** (the rules the weak levels replaced, rated in the calibration's "
        f"pool, beside the shipped level nearest in Elo; equal: within ±{EQUAL_ELO} Elo, "
        f"each from at least {EQUAL_ELO_GAMES} games). Goals: more free pieces taken, at "
        "most half the one-move hangs, more master moves.",
        "",
        "| rule (Elo, games) | nearest level: equal? | free pieces taken | one-move hangs "
        "(ratio; goal ≤ 0.5) | master's move |",
        "| --- | --- | --- | --- | --- |",
        *rows,
    ]


def _pct(cell: Mapping[str, Any] | None) -> str:
    return "-" if not cell or not cell.get("n") else f"{100 * cell['share']:.0f} %"


def _versus(ours: Mapping[str, Any] | None, theirs: Mapping[str, Any] | None, more: bool) -> str:
    """``ours against theirs``, and whether ours is the larger (``more``) share."""
    if not ours or not theirs or not ours.get("n") or not theirs.get("n"):
        return "-"
    met = (ours["share"] > theirs["share"]) == more
    return f"{_pct(ours)} against {_pct(theirs)}: {'met' if met else 'not met'}"


def _hang_ratio(ours: Mapping[str, Any], theirs: Mapping[str, Any]) -> str:
    if not theirs.get("share"):
        return f"{_pct(ours)} against {_pct(theirs)}"
    ratio = ours["share"] / theirs["share"]
    met = "met" if ratio <= 0.5 else "not met"
    return f"{_pct(ours)} against {_pct(theirs)} (ratio {ratio:.1f}): {met}"


def measurement_sections(
    folder: Path | None,
    variant: str,
    levels: Mapping[int, Level],
    ratings: Mapping[str, Rating] | None = None,
    extras: Mapping[str, str] | None = None,
) -> str:
    """``variant``'s measurement sections from the records in ``folder`` (the
    calibration record's folder) and the shipped human reference, as markdown; with the
    pool's ``ratings`` by name and the plan's ``extras`` (name to spec), the comparison
    at equal Elo too."""
    parts: list[list[str]] = []
    if folder is not None:
        variety = _read(folder / f"variety-{variant}.json")
        if variety is not None:
            parts.append(variety_section(variety, levels))
        beginner = _read(folder / f"beginner-{variant}.json")
        if beginner is not None:
            parts.append(beginner_section(beginner, levels))
        profile = _read(folder / f"profile-{variant}.json")
        if profile is not None:
            parts.append(profile_section(profile, levels))
            if ratings is not None and extras is not None:
                master = _read(folder / f"profile-{variant}-master.json")
                equal = equal_elo_section(profile, master, ratings, extras, levels)
                if equal:
                    parts.append(equal)
    human = human_section(variant, levels)
    if human:
        parts.append(human)
    return "\n\n".join("\n".join(p) for p in parts)
