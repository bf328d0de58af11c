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
* CPU use of the whole process tree (driver, workers, engines) over wall x cores;
* a stricter bound beside it: the engine processes' own CPU time divided by the
  concurrency. Under full load a search's wall time also holds the moments its engine
  waited for a core (taken by a game loop) and the wait for its game loop to read
  ``bestmove``; the engines' CPU time does not. (Sampled every 0.1 s, so it can only
  come out low, and this ratio high.)

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
import threading
import time
from pathlib import Path

import psutil

from ladder.match.adjudication import Adjudication
from ladder.match.openings import load_openings
from ladder.match.players import PlayerSpec
from ladder.match.runner import MatchConfig, run_match

ROOT = Path(__file__).resolve().parent.parent


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


class EngineCpu:
    """The CPU time of this process's descendant engine processes (name containing
    ``stockfish``), sampled in a thread: each process's last sample counts."""

    def __init__(self, period: float = 0.1) -> None:
        self.period = period
        self._seen: dict[tuple[int, float], float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        me = psutil.Process()
        while not self._stop.wait(self.period):
            for proc in me.children(recursive=True):
                try:
                    if "stockfish" in proc.name():
                        times = proc.cpu_times()
                        self._seen[(proc.pid, proc.create_time())] = times.user + times.system
                except psutil.Error:
                    pass

    def __enter__(self) -> EngineCpu:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    @property
    def seconds(self) -> float:
        return sum(self._seen.values())


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
    config = MatchConfig(
        variant=args.variant,
        player_a=a,
        player_b=b,
        openings=load_openings(args.variant),
        games=args.games,
        seed=1,
        adjudication=Adjudication(max_plies=args.max_plies),
    )
    with tempfile.TemporaryDirectory() as tmp:
        cpu0, t0 = _cpu(), time.perf_counter()
        with EngineCpu() as engines:
            stats, result = run_match(
                config, db=Path(tmp) / "bench.sqlite", concurrency=args.concurrency
            )
        wall = time.perf_counter() - t0
        cpu = _cpu() - cpu0
    bound = result.search_seconds / args.concurrency
    cpu_bound = engines.seconds / args.concurrency
    plies = sum(stats.reasons.values())
    print(
        f"match: {args.a} vs {args.b}, {args.variant}, {result.played} games, "
        f"concurrency {args.concurrency} ({plies} games finished)"
    )
    print(f"wall time            {wall:8.1f} s  (incl. start-up of workers and engines)")
    print(f"games/hour           {3600 * result.played / wall:8.0f}")
    print(
        f"engine-only bound    {bound:8.1f} s  (sum of search time {result.search_seconds:.1f} s"
        f" / {args.concurrency})"
    )
    print(f"wall / bound         {wall / bound:8.3f}" if bound else "wall / bound: n/a")
    print(
        f"run loop / bound     {result.wall_seconds / bound:8.3f}  (excluding pool start-up)"
        if bound
        else ""
    )
    print(
        f"CPU busy             {100 * cpu / (wall * args.concurrency):8.1f} %  "
        f"({cpu:.1f} CPU-s over {wall:.1f} s x {args.concurrency} cores)"
    )
    print(
        f"engine CPU bound     {cpu_bound:8.1f} s  (the engines' CPU time "
        f"{engines.seconds:.1f} s / {args.concurrency}; start-up included)"
    )
    print(f"wall / CPU bound     {wall / cpu_bound:8.3f}" if cpu_bound else "wall / CPU bound: n/a")
    print(stats.report())
    return 0


if __name__ == "__main__":
    sys.exit(main())
