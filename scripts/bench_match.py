#!/usr/bin/env python3
"""Match throughput: a fixed match, timed, against the engine-only bound.

Plays ``--games`` games of ``--a`` against ``--b`` (default level:5, 2,500 nodes, against itself,
xiangqi, the shipped openings, seed 1) on the local process pool with one game per core,
into a throw-away database, and reports:

* games/hour;
* the engine-only bound: the sum of every search's time (from writing ``ucinewgame`` /
  ``position`` / ``go``, one write, to reading ``bestmove``) divided by the concurrency
  -- the wall time if nothing but the engines' searching took time;
* the ratio wall / bound (1.00 = no overhead; the target is <= 1.10);
* CPU use of the whole process tree (driver, workers, engines) over wall x cores.

The default 100 games (about 40 s at level 5) keep the pool's start-up and the last,
lone game's idle core to about 1 % of the wall time; at 20 games they were several %.

    .venv/bin/python scripts/bench_match.py [--games 100]
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ladder.match.adjudication import Adjudication  # noqa: E402
from ladder.match.openings import load_openings  # noqa: E402
from ladder.match.players import PlayerSpec  # noqa: E402
from ladder.match.runner import MatchConfig, run_match  # noqa: E402


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--a", default="level:5")
    ap.add_argument("--b", default="level:5")
    ap.add_argument("--variant", default="xiangqi")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--concurrency", "-j", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--max-plies", type=int, default=300)
    args = ap.parse_args(argv)
    a, b = PlayerSpec.parse(args.a), PlayerSpec.parse(args.b)
    if a.name == b.name:
        a, b = a.with_name(a.name + "#A"), b.with_name(b.name + "#B")
    config = MatchConfig(variant=args.variant, player_a=a, player_b=b,
                         openings=load_openings(args.variant), games=args.games, seed=1,
                         adjudication=Adjudication(max_plies=args.max_plies))
    with tempfile.TemporaryDirectory() as tmp:
        cpu0, t0 = _cpu(), time.perf_counter()
        stats, result = run_match(config, db=Path(tmp) / "bench.sqlite",
                                  concurrency=args.concurrency)
        wall = time.perf_counter() - t0
        cpu = _cpu() - cpu0
    bound = result.search_seconds / args.concurrency
    plies = sum(stats.reasons.values())
    print(f"match: {args.a} vs {args.b}, {args.variant}, {result.played} games, "
          f"concurrency {args.concurrency} ({plies} games finished)")
    print(f"wall time            {wall:8.1f} s  (incl. start-up of workers and engines)")
    print(f"games/hour           {3600 * result.played / wall:8.0f}")
    print(f"engine-only bound    {bound:8.1f} s  (sum of search time {result.search_seconds:.1f} s"
          f" / {args.concurrency})")
    print(f"wall / bound         {wall / bound:8.3f}" if bound else "wall / bound: n/a")
    print(f"run loop / bound     {result.wall_seconds / bound:8.3f}  (excluding pool "
          "start-up)" if bound else "")
    print(f"CPU busy             {100 * cpu / (wall * args.concurrency):8.1f} %  "
          f"({cpu:.1f} CPU-s over {wall:.1f} s x {args.concurrency} cores)")
    print(stats.report())
    return 0


if __name__ == "__main__":
    sys.exit(main())
