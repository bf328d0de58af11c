#!/usr/bin/env python3
"""Engine speed: our optimised builds against a plain -O2 build of the same patched source.

Builds (or takes from the cache) three executables from the same patched tree:
``plain`` (-O2), ``lto`` (-O3, LTO, CPU flags) and ``fast`` (``lto`` plus PGO, what
`make engine` ships), then runs FSF's ``bench`` on our xiangqi over a fixed set of
positions, interleaving the builds round by round so that machine noise hits all alike.
Prints nodes/second per build (median over rounds) and the ratio to ``plain``.

    .venv/bin/python scripts/bench_engine.py [--rounds 3] [--depth 13]

``--start NAME=EXE`` (repeatable) measures instead what an engine's start costs (what
every ``ladder move`` off the book, every pool engine and every match worker pays once):
each executable started, ``uci`` and ``isready`` answered, ``quit``, in turn round by round
(``--rounds``, default 3, of 10 starts each), its median wall and CPU time (its own
``getrusage`` as a child), the ratios to the first named, and the load average. E.g. the
build before patch 0007 against this one:

    .venv/bin/python scripts/bench_engine.py --start before=OLD_EXE --start after=NEW_EXE
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from ladder.engine_binary import CHECKOUT_CACHE, builds_dir
from ladder.engine_build import PROFILES, EngineBuild, build
from ladder.variants import VARIANTS_INI

POSITIONS = Path(__file__).resolve().parent / "bench_positions_xiangqi.fen"
BUILDS = tuple(reversed(PROFILES))  # plain first: the baseline


def run_bench(exe: Path, depth: int) -> tuple[int, int]:
    """One FSF `bench` over our positions; returns (nodes, nodes per second)."""
    script = (
        f"setoption name VariantPath value {VARIANTS_INI}\n"
        f"bench mistboard-xiangqi 16 1 {depth} {POSITIONS} depth\nquit\n"
    )
    out = subprocess.run(
        [str(exe)], input=script, capture_output=True, text=True, check=True, timeout=1800
    )
    nodes = re.search(r"Nodes searched\s*:\s*(\d+)", out.stderr)
    nps = re.search(r"Nodes/second\s*:\s*(\d+)", out.stderr)
    if not (nodes and nps):
        raise SystemExit(f"{exe}: no bench summary in its output:\n{out.stderr[-2000:]}")
    return int(nodes.group(1)), int(nps.group(1))


def start_once(exe: Path) -> tuple[float, float]:
    """Start ``exe``, have it answer ``uci`` and ``isready``, quit: (wall s, CPU s)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run(
        [str(exe)], input="uci\nisready\nquit\n", capture_output=True, text=True, timeout=60
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if "readyok" not in out.stdout:
        raise SystemExit(f"{exe}: no readyok (exit {out.returncode}): {out.stderr[-500:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def engine_start(exes: dict[str, Path], rounds: int, per_round: int = 10) -> None:
    """Each executable's start, side by side (see the module docstring)."""
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    walls: dict[str, list[float]] = {name: [] for name in exes}
    cpus: dict[str, list[float]] = {name: [] for name in exes}
    for _ in range(rounds):
        for _ in range(per_round):
            for name, exe in exes.items():
                wall, cpu = start_once(exe)
                walls[name].append(wall)
                cpus[name].append(cpu)
    first = next(iter(exes))
    wall0, cpu0 = statistics.median(walls[first]), statistics.median(cpus[first])
    print(
        f"{'engine':10s} {'starts':>6s} {'wall ms':>8s} {'ratio':>6s} {'CPU ms':>7s} {'ratio':>6s}"
    )
    for name in exes:
        wall, cpu = statistics.median(walls[name]), statistics.median(cpus[name])
        print(
            f"{name:10s} {len(walls[name]):>6d} {1000 * wall:>8.1f} {wall / wall0:>6.2f} "
            f"{1000 * cpu:>7.1f} {cpu / cpu0:>6.2f}"
        )
    print(f"load average after:  {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def _named_exe(text: str) -> tuple[str, Path]:
    name, sep, path = text.partition("=")
    if not sep or not name or not Path(path).is_file():
        raise argparse.ArgumentTypeError(f"expected NAME=EXECUTABLE, got {text!r}")
    return name, Path(path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--depth", type=int, default=13)
    ap.add_argument(
        "--start",
        type=_named_exe,
        action="append",
        default=[],
        metavar="NAME=EXE",
        help="measure these executables' start instead (repeatable)",
    )
    args = ap.parse_args()
    if args.start:
        engine_start(dict(args.start), args.rounds)
        return

    exes = {p: build(EngineBuild("engine", p), builds_dir(CHECKOUT_CACHE)) for p in BUILDS}
    nps: dict[str, list[int]] = {p: [] for p in BUILDS}
    nodes: dict[str, int] = {}
    for r in range(args.rounds):
        for p in BUILDS:
            n, v = run_bench(exes[p], args.depth)
            nodes[p] = n
            nps[p].append(v)
            print(
                f"round {r + 1}/{args.rounds} {p:5s} nodes {n:>10,d}  nps {v:>10,d}",
                file=sys.stderr,
            )
    if len(set(nodes.values())) != 1:
        print(f"warning: builds searched different node counts: {nodes}", file=sys.stderr)
    base = statistics.median(nps["plain"])
    print(f"{'build':6s} {'median nps':>12s} {'vs plain -O2':>13s}")
    for p in BUILDS:
        med = statistics.median(nps[p])
        print(f"{p:6s} {med:>12,.0f} {med / base:>12.3f}x")


if __name__ == "__main__":
    main()
