#!/usr/bin/env python3
"""Engine speed: our optimised builds against a plain -O2 build of the same patched source.

Builds (or takes from the cache) three executables from the same patched tree:
``plain`` (-O2), ``lto`` (-O3, LTO, CPU flags) and ``fast`` (``lto`` plus PGO, what
`make engine` ships), then runs FSF's ``bench`` on our xiangqi over a fixed set of
positions, interleaving the builds round by round so that machine noise hits all alike.
Prints nodes/second per build (median over rounds) and the ratio to ``plain``.

    .venv/bin/python scripts/bench_engine.py [--rounds 3] [--depth 13]
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--depth", type=int, default=13)
    args = ap.parse_args()

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
