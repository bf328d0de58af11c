"""The error profile of the weak levels (ladder/error_profile.py says what is measured).

    python scripts/measure_mistakes.py --variant xiangqi --positions 500 \\
        --player 'soft1=level:1,levels=calibration/levels-softmax.toml' \\
        --player 'L1=level:1' --json out.json
    python scripts/measure_mistakes.py --variant xiangqi --source master --positions 200 \\
        --player L1=level:1 ... --player L6=level:6 --reference-nodes 200000

With ``--source master`` the masters' own moves are judged too (the human reference).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from ladder.error_profile import measure


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
    args = p.parse_args(argv)
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
