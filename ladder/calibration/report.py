"""What a calibration writes: the levels file with the measured ratings, the console
summary, and ``docs/ladder.md`` with a plot per variant."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import astuple
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from ladder.calibration.fit import VariantCalibration
from ladder.level_engine.expected_time import expected_seconds
from ladder.levels import LEVEL_NUMBERS, RATING_KEYS, Rating, load_levels

__all__ = ["ladder_markdown", "plot_ladder", "print_calibration", "write_docs", "write_levels_file"]

_VARIANT_HEADER = re.compile(r"\[variant\.(?P<variant>[\w-]+)\.(?P<level>\d+)\]")
_MEASURED_KEYS = (*RATING_KEYS, "seconds_per_move")


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return f"{v:.1f}" if abs(v) >= 10 else f"{v:.4g}"
    if isinstance(v, int):
        return str(v)
    return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _rating_table(r: Rating) -> dict[str, Any]:
    """The rating's fields (:data:`ladder.levels.RATING_KEYS`), Elos to 0.1."""
    return {
        key: round(value, 1) if isinstance(value, float) else value
        for key, value in zip(RATING_KEYS, astuple(r), strict=True)
    }


def write_levels_file(source: Path, target: Path, cals: Sequence[VariantCalibration]) -> None:
    """Write ``source`` to ``target`` with each calibrated variant's measured figures
    (rating, seconds per move) in its per-variant tables ``[variant.<id>.<level>]``.

    The file is edited, not regenerated: every other line stays as it was, comments
    inside and between the tables included (they say why a setting is what it is). A
    level without a table gets one after its variant's nearest lower level's (or above
    the comment of its variant's first table); a table left with no setting keeps its
    header and comments. The result is checked by loading it before it replaces
    ``target``."""
    lines = source.read_text().splitlines()
    for cal in cals:
        for n, rating in sorted(cal.ratings.items()):
            figures = _rating_table(rating) if rating is not None else {}
            quiet = quiet_seconds(cal, n) if n in cal.seconds else None
            if quiet is not None:
                figures["seconds_per_move"] = round(quiet, 4)
            lines = _set_measured(lines, cal.variant, n, figures)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text("\n".join(lines) + "\n")
    try:
        load_levels(tmp)  # refuse to write a file the service cannot read
    except BaseException:
        tmp.unlink()
        raise
    tmp.replace(target)


def _table_spans(lines: list[str]) -> dict[tuple[str, int], tuple[int, int]]:
    """Each ``[variant.<id>.<level>]`` table: its header's index and the index after its
    last ``key = value`` line (its trailing blank and comment lines belong to the next)."""
    spans: dict[tuple[str, int], tuple[int, int]] = {}
    for i, line in enumerate(lines):
        m = _VARIANT_HEADER.fullmatch(line.split("#")[0].strip())
        if m is None:
            continue
        end = i + 1
        for j in range(i + 1, len(lines)):
            text = lines[j].strip()
            if text.startswith("["):
                break
            if text and not text.startswith("#"):
                end = j + 1
        spans[(m["variant"], int(m["level"]))] = (i, end)
    return spans


def _set_measured(lines: list[str], variant: str, level: int, figures: dict[str, Any]) -> list[str]:
    """``lines`` with the level's measured keys replaced by ``figures`` (a table that is
    missing is added)."""
    spans = _table_spans(lines)
    body = [f"{k} = {_toml_value(v)}" for k, v in figures.items()]
    if (variant, level) in spans:
        head, end = spans[(variant, level)]
        kept = [
            line
            for line in lines[head + 1 : end]
            if line.split("=")[0].strip() not in _MEASURED_KEYS
        ]
        return lines[: head + 1] + kept + body + lines[end:]
    if not body:
        return lines
    lower = [span for (v, n), span in spans.items() if v == variant and n < level]
    same = [span for (v, _), span in spans.items() if v == variant]
    if lower:
        at = max(lower)[1]
    elif same:
        at = min(same)[0]
        while at > 0 and lines[at - 1].lstrip().startswith("#"):
            at -= 1  # above the comment that belongs to the first table
    else:
        at = len(lines)
    table = [f"[variant.{variant}.{level}]", *body]
    if not lower and at < len(lines):  # before the variant's first table
        return [*lines[:at], *table, "", *lines[at:]]
    after = [""] if at < len(lines) and lines[at].strip() else []
    return [*lines[:at], "", *table, *after, *lines[at:]]


def _ci(r: Rating | None) -> str:
    return "-" if r is None else f"[{r.elo_lo:.0f}, {r.elo_hi:.0f}]"


def _seconds(s: float | None) -> str:
    if s is None:
        return "-"
    return f"{1000 * s:.1f} ms" if s < 1 else f"{s:.2f} s"


def print_calibration(console: Console, cal: VariantCalibration) -> None:
    """The console summary of one variant."""
    console.print(f"[bold]{cal.variant}[/bold]")
    for name, other in sorted(cal.others.items(), key=lambda kv: kv[1].elo):
        console.print(f"  {name:>12}: {other.elo:7.0f} {_ci(other):>14}  {other.games} games")
    for n, r in sorted(cal.ratings.items()):
        elo = "-" if r is None else f"{r.elo:7.0f}"
        tag = " extrapolated" if r is not None and r.extrapolated else ""
        games = 0 if r is None else r.games
        console.print(
            f"  {'level ' + str(n):>12}: {elo:>7} {_ci(r):>14}  {games} games{tag}"
            f"  {_seconds(cal.seconds.get(n))}/move"
        )
    for c in cal.criteria:
        mark = {True: "ok", False: "FAIL", None: "?"}[c.ok]
        console.print(escape(f"  [{mark}] {c.name}: {c.detail}"))


def quiet_seconds(cal: VariantCalibration, level: int) -> float | None:
    """A level's time per move on an idle core: a searching level's nodes at the engine's
    measured speed (:mod:`ladder.level_engine.expected_time`); a mistake level searches every move's
    line, so its own median in the calibration games (a few tens of ms, where the
    machine's load matters little)."""
    lv = cal.levels[level]
    if lv.makes_mistakes:
        return cal.seconds.get(level)
    return expected_seconds(cal.variant, lv.nodes)


def ladder_markdown(
    cals: Sequence[VariantCalibration], plots: dict[str, str], extra: dict[str, str] | None = None
) -> str:
    """``docs/ladder.md``: per variant the table, the criteria and the plot; ``extra``
    adds a section of text per variant (measurements made by other scripts)."""
    out = [
        "# The ladder's measured strength",
        "",
        "Logistic Elo with `random` = 0, from `ladder calibrate` (a whole-pool "
        "Bradley-Terry fit with a Red advantage; 95% intervals by bootstrap over game "
        "pairs). Time per move on an idle core: for levels 4-8 their nodes at the "
        "engine's measured speed (`scripts/measure_level_times.py`), for levels 1-3 the "
        "median of their moves in these games. How the levels were chosen and measured: "
        "[tuning.md](tuning.md).",
        "",
    ]
    undecided = [c.variant for c in cals if any(k.ok is not True for k in c.criteria)]
    if undecided:
        out += [
            f"> **Calibration in progress** ({', '.join(undecided)}): not every tuning "
            "criterion below is decided, so these ratings are interim. `ladder calibrate "
            "--write` puts ratings into `ladder/levels.toml` only once they are.",
            "",
        ]
    for cal in cals:
        out += [f"## {cal.variant}", ""]
        fit = cal.fit
        if fit is not None:
            out += [
                f"{fit.games} games; Red advantage {fit.red_advantage:+.0f} Elo "
                f"[{fit.red_advantage_lo:.0f}, {fit.red_advantage_hi:.0f}].",
                "",
            ]
        out += [
            "| player | nodes | choice | Elo | 95% CI | games | time/move |",
            "| --- | ---: | --- | ---: | --- | ---: | ---: |",
        ]
        for name, other in sorted(cal.others.items(), key=lambda kv: kv[1].elo):
            out.append(f"| {name} | - | - | {other.elo:.0f} | {_ci(other)} | {other.games} | - |")
        for n, r in sorted(cal.ratings.items()):
            lv = cal.levels[n]
            choice = lv.variety.describe() if lv.variety else "best move"
            elo = (
                "-" if r is None else f"{r.elo:.0f}" + (" (extrapolated)" if r.extrapolated else "")
            )
            out.append(
                f"| **level {n}** | {lv.nodes:,} | {choice} | {elo} | {_ci(r)} | "
                f"{0 if r is None else r.games} | {_seconds(quiet_seconds(cal, n))} |"
            )
        out += ["", "Tuning criteria:", ""]
        for c in cal.criteria:
            mark = {True: "met", False: "NOT met", None: "not decided"}[c.ok]
            out.append(f"- {c.name}: **{mark}** ({c.detail})")
        if cal.l1_vs_greedy is not None:
            score, games = cal.l1_vs_greedy
            out.append(
                f"- reported, not bounded: L1 scores {100 * score:.1f}% against greedy in "
                f"{games} direct games"
            )
        if cal.variant in plots:
            out += ["", f"![Elo against level, {cal.variant}]({plots[cal.variant]})"]
        if extra and cal.variant in extra:
            out += ["", extra[cal.variant]]
        out.append("")
    return "\n".join(out)


def plot_ladder(cal: VariantCalibration, path: Path) -> None:
    """A PNG of Elo against level with error bars (hollow markers: extrapolated)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=100)
    for extrapolated, colour, face, label in (
        (False, "tab:blue", "tab:blue", "measured"),
        (True, "tab:orange", "white", "extrapolated (ln nodes fit)"),
    ):
        pts = [
            (n, r)
            for n, r in sorted(cal.ratings.items())
            if r is not None and r.extrapolated == extrapolated
        ]
        if pts:
            ax.errorbar(
                [n for n, _ in pts],
                [r.elo for _, r in pts],
                # max(0, ...): a degenerate interval can sit a rounding error inside its point.
                yerr=[
                    [max(0.0, r.elo - r.elo_lo) for _, r in pts],
                    [max(0.0, r.elo_hi - r.elo) for _, r in pts],
                ],
                fmt="o",
                color=colour,
                mfc=face,
                capsize=4,
                label=label,
            )
    for x, name in ((-1, "random"), (0, "greedy")):
        if name in cal.others:
            r = cal.others[name]
            ax.errorbar(
                [x],
                [r.elo],
                yerr=[[max(0.0, r.elo - r.elo_lo)], [max(0.0, r.elo_hi - r.elo)]],
                fmt="s",
                color="gray",
                capsize=4,
            )
    ticks = ["random", "greedy", *map(str, LEVEL_NUMBERS)]
    ax.set_xticks(range(-1, len(ticks) - 1), ticks)
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
    cals: Sequence[VariantCalibration], docs: Path, extra: dict[str, str] | None = None
) -> Path:
    """``docs/ladder.md`` and ``docs/ladder-<variant>.png``; returns the markdown's path."""
    docs.mkdir(parents=True, exist_ok=True)
    plots = {}
    for cal in cals:
        name = f"ladder-{cal.variant}.png"
        plot_ladder(cal, docs / name)
        plots[cal.variant] = name
    md = docs / "ladder.md"
    md.write_text(ladder_markdown(cals, plots, extra))
    return md
