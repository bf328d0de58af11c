#!/usr/bin/env python3
"""What does ``ucinewgame`` cost, before and after a change? Two engine builds side by side.

The ladder sends ``ucinewgame`` before every search, so at the weak levels (``go nodes``
16..1000) clearing the hash and the per-thread tables can cost more than the search.
This compares two builds of the engine (e.g. the build before engine/patches/0003 and
``.cache/fairy-stockfish``) on raw pipes, Threads 1, our ``mistboard-xiangqi``:

* ``newgame hash H``: the round trip ``ucinewgame`` / ``isready`` -> ``readyok``, with
  Hash 1 and 16 (MB);
* ``search nodes N``: ``ucinewgame`` / ``position startpos moves h3e3 b10c8`` /
  ``go nodes N`` -> ``bestmove`` in one write, Hash 16 (the levels' default), N in 16,
  1000, 10000, with ``FinalInfoOnly`` on in a build that has it (patch 0005), as the
  protocol client sends it.

Every round runs each case once on each build, old and new alternating which goes first,
so that machine load hits both alike. Prints the medians in ms and the ratio new/old
(below 1: the new build is faster), checks that both builds answer the same bestmove, and
shows each process's resident memory at the end.

    .venv/bin/python scripts/bench_newgame.py OLD_ENGINE [--new PATH] [--rounds 200]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from bench_protocol import ROOT, RawEngine  # scripts/, beside this

from protocol import Dialect

VARIANT = "mistboard-xiangqi"
POSITION = "position startpos moves h3e3 b10c8"
NEWGAME_HASH = (1, 16)
SEARCH_HASH = 16
SEARCH_NODES = (16, 1000, 10_000)
WARMUP = 5


class NewGameEngine(RawEngine):
    """bench_protocol's raw-pipe engine, plus a bare new game and its memory."""

    def new_game(self) -> float:
        start = time.perf_counter()
        self.send("ucinewgame\nisready\n")
        self.read_until("readyok")
        return time.perf_counter() - start

    def rss_mb(self) -> float:
        try:
            for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        except OSError:
            pass
        return float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "old",
        type=Path,
        help="the engine before the change (e.g. a build in "
        ".cache/engine/; note `readlink -f .cache/fairy-stockfish` before "
        "`make engine` replaces it)",
    )
    ap.add_argument(
        "--new",
        type=Path,
        default=ROOT / ".cache" / "fairy-stockfish",
        help="the engine after the change (default: %(default)s)",
    )
    ap.add_argument(
        "--rounds",
        type=int,
        default=200,
        help="rounds for newgame and nodes 16/1000 (nodes 10000: a quarter)",
    )
    args = ap.parse_args()
    builds = {"old": args.old.resolve(), "new": args.new.resolve()}
    for name, exe in builds.items():
        print(f"{name}: {exe}")
    hashes = sorted({*NEWGAME_HASH, SEARCH_HASH})
    engines = {
        (b, h): NewGameEngine(exe, Dialect.UCI, h) for b, exe in builds.items() for h in hashes
    }
    try:
        cases: list[tuple[str, int, int]] = [(f"newgame hash {h}", h, 0) for h in NEWGAME_HASH] + [
            (f"search nodes {n}", SEARCH_HASH, n) for n in SEARCH_NODES
        ]
        times: dict[tuple[str, str], list[float]] = {}
        answers: dict[tuple[str, str], set[str]] = {}
        for label, hash_mb, nodes in cases:
            rounds = args.rounds if nodes < 10_000 else max(3, args.rounds // 4)
            for r in range(WARMUP + rounds):
                order = ("old", "new") if r % 2 == 0 else ("new", "old")
                for b in order:
                    engine = engines[(b, hash_mb)]
                    if nodes:
                        t, bestmove = engine.search(POSITION, nodes)
                        answers.setdefault((label, b), set()).add(bestmove)
                    else:
                        t = engine.new_game()
                    if r >= WARMUP:
                        times.setdefault((label, b), []).append(t)
        print(f"\nThreads 1, {VARIANT}, {POSITION}; medians over interleaved rounds\n")
        print(
            f"{'case':<20} {'runs':>5} {'old ms':>8} {'new ms':>8} {'new/old':>8} {'bestmove':>9}"
        )
        for label, _, nodes in cases:
            old = statistics.median(times[(label, "old")]) * 1000
            new = statistics.median(times[(label, "new")]) * 1000
            best = ""
            if nodes:
                before, after = answers[(label, "old")], answers[(label, "new")]
                same = before == after and len(before) == 1
                best = next(iter(before)) if same else f"DIFFER {before} {after}"
            print(
                f"{label:<20} {len(times[(label, 'old')]):>5} {old:>8.3f} {new:>8.3f} "
                f"{new / old:>8.3f} {best:>9}"
            )
        print(
            "\nresident memory at the end (MB): "
            + ", ".join(f"{b} hash {h}: {e.rss_mb():.0f}" for (b, h), e in engines.items())
        )
    finally:
        for e in engines.values():
            e.close()


if __name__ == "__main__":
    main()
