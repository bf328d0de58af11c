"""The error profile of the weak levels (ladder/calibration/error_profile.py says what is measured).

    python scripts/measure_mistakes.py --variant xiangqi --positions 500 \\
        --player 'soft1=level:1,levels=calibration/levels-softmax.toml' \\
        --player 'L1=level:1' --json out.json
    python scripts/measure_mistakes.py --variant xiangqi --source master --positions 200 \\
        --player L1=level:1 ... --player L6=level:6 --reference-nodes 200000

With ``--source master`` the masters' own moves are judged too (the human reference).

With ``--sets`` the beginner's measures on the frozen position sets (data/positions-*;
ladder/calibration/error_profile.py, ``measure_sets``), the rules checker alone, half ``--half``:

    python scripts/measure_mistakes.py --sets --variant atomic-xiangqi --half tune \
        --player novice=novice --player L1=level:1 --player random=random
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from datetime import date
from pathlib import Path
from typing import Any

from ladder.calibration.error_profile import measure, measure_sets
from ladder.levels import load_levels, play_settings


def _pct(s: dict[str, Any] | None) -> str:
    if s is None:
        return "-"
    return f"{100 * s['share']:5.1f}% [{100 * s['lo']:4.1f}, {100 * s['hi']:4.1f}] of {s['n']}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--variant", required=True)
    p.add_argument("--source", choices=("record", "master"), default="record")
    p.add_argument("--player", action="append", required=True, help="NAME=SPEC")
    p.add_argument("--positions", type=int, default=500)
    p.add_argument("--min-ply", type=int, default=16, help="master positions from this ply on")
    p.add_argument("--reference-nodes", type=int, default=100_000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--cache", type=Path, default=None)
    p.add_argument("--json", type=Path, default=None)
    p.add_argument(
        "--human-reference",
        type=Path,
        default=None,
        help="with --source master: write the shipped human reference "
        "(ladder/human_reference.json) "
        "from the players named L<level>, beside the masters",
    )
    p.add_argument("--sets", action="store_true", help="the beginner's measures on the sets")
    p.add_argument("--half", choices=("tune", "report"), default="report")
    args = p.parse_args(argv)
    if args.sets:
        sets = asyncio.run(measure_sets(args.variant, args.player, half=args.half, seed=args.seed))
        print_sets(sets)
        if args.json is not None:
            args.json.write_text(json.dumps(sets, indent=2))
        return 0
    if args.human_reference is not None and args.source != "master":
        p.error("--human-reference needs --source master")
    try:
        out = asyncio.run(
            measure(
                args.variant,
                args.source,
                args.player,
                positions=args.positions,
                seed=args.seed,
                min_ply=args.min_ply,
                reference_nodes=args.reference_nodes,
                cache=args.cache,
            )
        )
    except ValueError as exc:
        print(f"measure_mistakes: {exc}", file=sys.stderr)
        return 2
    print(
        f"{out['variant']} ({out['source']} positions, reference {out['reference_nodes']:,} "
        f"nodes): free pieces taken | one-move hangs | gross blunders | master moves"
    )
    for name, row in out["players"].items():
        lo, hi = row["mean_loss_ci"]
        print(
            f"  {name:>10}: free {_pct(row['free_taken'])} | hangs {_pct(row['hangs'])} | "
            f"gross {_pct(row['gross'])} | master {_pct(row['master_move'])} | "
            f"mean loss {row['mean_loss_capped']:.0f} cp [{lo:.0f}, {hi:.0f}]"
        )
    if args.json is not None:
        args.json.write_text(json.dumps(out, indent=2))
    if args.human_reference is not None:
        command = " ".join(["scripts/measure_mistakes.py", *_measuring_args(argv or sys.argv[1:])])
        text = json.dumps(human_reference(out, command), indent=1)
        args.human_reference.write_text(text + "\n")
    return 0


def print_sets(out: dict[str, Any]) -> None:
    """The beginner's measures as a table, a row a player."""
    print(
        f"{out['variant']} ({out['half']} half of the sets: {out['positions']}): checks answered "
        "| threats parried | free pieces taken | one-move hangs | of them to a cannon or "
        "a horse | drops taken for nothing"
    )
    for name, row in out["players"].items():
        by = " ".join(f"{k}{v}" for k, v in row["hangs_by"].items())
        print(
            f"  {name:>8}: check {_pct(row['check'])} | threat {_pct(row['threat'])} | "
            f"free {_pct(row['free'])} | hangs {_pct(row['hangs'])} ({by}) | "
            f"c+n {_pct(row['cannon_horse'])} | drops {_pct(row['drop_hangs'])}"
        )


def _measuring_args(argv: list[str]) -> list[str]:
    """``argv`` without the options that only say where files go (the record names the
    measurement, not this machine's paths)."""
    out: list[str] = []
    skip = False
    for word in argv:
        if skip:
            skip = False
        elif word in ("--cache", "--json", "--human-reference"):
            skip = True
        elif not word.startswith(("--cache=", "--json=", "--human-reference=")):
            out.append(word)
    return out


def human_reference(out: dict[str, Any], command: str) -> dict[str, Any]:
    """The shipped human reference from a ``--source master`` measurement: per level
    (players named ``L<n>``), the master-move share and the mean loss with intervals."""
    players = out["players"]
    masters = players["masters"]
    shipped = load_levels()[out["variant"]]
    levels = {
        name[1:]: {
            "master_move_share": round(row["master_move"]["share"], 3),
            "master_move_ci": [
                round(row["master_move"]["lo"], 3),
                round(row["master_move"]["hi"], 3),
            ],
            "mean_loss_cp": round(row["mean_loss_capped"], 1),
            "mean_loss_ci": [round(x, 1) for x in row["mean_loss_ci"]],
            # the shipped level it measured: a retuned level no longer shows these figures
            "settings": play_settings(shipped[int(name[1:])]),
        }
        for name, row in players.items()
        if name.startswith("L") and name[1:].isdigit()
    }
    judged = ", ".join(sorted(levels, key=int))
    return {
        "method": (
            f"{command} ({date.today():%d %B %Y}): on positions of the grandmaster games past "
            "the book, each level's share of the master's move and its mean loss (capped at "
            f"1,000 cp) against a {out['reference_nodes']:,}-node reference search, beside the "
            f"masters' own mean loss. The reference judges levels {judged}; it is an anchor, "
            "not a human Elo."
        ),
        "reference_nodes": out["reference_nodes"],
        "positions": masters["positions"],
        "masters_mean_loss_cp": round(masters["mean_loss_capped"], 1),
        "masters_mean_loss_ci": [round(x, 1) for x in masters["mean_loss_ci"]],
        "variants": {out["variant"]: levels},
    }


if __name__ == "__main__":
    sys.exit(main())
