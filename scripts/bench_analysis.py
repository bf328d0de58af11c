#!/usr/bin/env python3
"""Game analysis, measured side by side in one run (docs/service.md, "Game analysis").

1. **Overhead**: a 100-ply game (a grandmaster game from data/master-games.jsonl.gz),
   every position searched at ``--nodes`` (a) straight over a raw UCI pipe to the engine
   (``ucinewgame``, ``position``, ``go nodes``: what the analysis asks, nothing else),
   (b) by the analysis core (:func:`ladder.analysis.analyse`: the rules checker on every
   move and line, WXF, the judgements). Plies per second of each, alternated
   ``--rounds`` times; overhead = core time / raw time - 1 (goal ≤ 5 %).
2. **Engines**: the same game by the core on 1 engine and on 2 (``ladder analyse -j``):
   the speed-up.
3. **Moves under analyses**: ``ladder serve --engines 2`` (one engine kept for the fast
   levels), ``--requests`` level-1 moves one after another, idle and with two analysis
   streams running, alternated ``--rounds`` times; p50 and p99 of each and the ratio
   (goal: p99 within 2x of idle).

    python scripts/bench_analysis.py [--nodes 150000] [--rounds 2] [--requests 300]
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import os
import random
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import httpx
import psutil

from ladder.analysis import GamePositions, analyse
from ladder.analysis.search import HASH_MB, Evaluation
from ladder.engine_binary import engine_path
from ladder.level_engine.engine import LevelEngine
from ladder.rules import Game
from ladder.service.operations.launch import ServeProcess
from ladder.variants import FSF_VARIANT, VARIANTS_INI

ROOT = Path(__file__).resolve().parents[1]

T = TypeVar("T")

OUT_OF_BOOK = ["h3e3", "a10a9"]  # past every book (tests/service/helpers.py)


def master_game(plies: int) -> list[str]:
    """The first grandmaster game with at least ``plies`` moves, cut there."""
    with gzip.open(ROOT / "data" / "master-games.jsonl.gz", "rt") as f:
        for line in f:
            iccs = json.loads(line)["iccs"]
            if len(iccs) >= plies:
                moves = [m[:1] + str(int(m[1]) + 1) + m[2:3] + str(int(m[3]) + 1) for m in iccs]
                Game.from_fen("xiangqi", None, moves[:plies])  # legal by our rules
                return moves[:plies]
    raise SystemExit("no game that long")


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds of the processes ``pids`` so far."""
    total = 0.0
    for pid in pids:
        times = psutil.Process(pid).cpu_times()
        total += times.user + times.system
    return total


def raw_pipe(
    positions: list[tuple[str, tuple[str, ...]]], nodes: int
) -> tuple[float, float, float]:
    """(wall seconds, this process's CPU seconds, the engine's CPU seconds) to search
    every position over a bare UCI pipe."""
    proc = subprocess.Popen([str(engine_path())], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, bufsize=1)  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    out, inp = proc.stdout, proc.stdin

    def until(prefix: str) -> None:
        while not out.readline().startswith(prefix):
            pass

    inp.write("uci\n")
    until("uciok")
    inp.write(f"setoption name VariantPath value {VARIANTS_INI.resolve()}\n"
              f"setoption name Threads value 1\nsetoption name Hash value {HASH_MB}\n"
              f"setoption name UCI_Variant value {FSF_VARIANT['xiangqi']}\nisready\n")  # fmt: skip
    until("readyok")
    started, own, engine = time.perf_counter(), time.process_time(), cpu_seconds([proc.pid])
    for fen, moves in positions:
        inp.write("ucinewgame\nisready\n")
        until("readyok")
        tail = f" moves {' '.join(moves)}" if moves else ""
        inp.write(f"position fen {fen}{tail}\ngo nodes {nodes}\n")
        until("bestmove")
    elapsed = time.perf_counter() - started
    spent = (time.process_time() - own, cpu_seconds([proc.pid]) - engine)
    inp.write("quit\n")
    proc.wait(10)
    return elapsed, *spent


def core(moves: list[str], nodes: int, engines: int) -> tuple[float, float, float]:
    """(wall seconds, this process's CPU seconds, the engines' CPU seconds) for the
    analysis core to analyse the game on ``engines`` engines (started and warmed before
    the clock starts)."""

    async def main() -> tuple[float, float, float]:
        pool = [LevelEngine() for _ in range(engines)]
        for engine in pool:
            await engine.evaluate(Game.from_fen("xiangqi"), 1)

        def evaluator(engine):  # type: ignore[no-untyped-def]
            async def evaluate(game: Game) -> Evaluation:
                return (await engine.evaluate(game, nodes)).evaluation

            return evaluate

        pids = [e.managed.engine.pid for e in pool if e.managed.engine is not None]
        started, own, spent = time.perf_counter(), time.process_time(), cpu_seconds(pids)
        game = GamePositions("xiangqi", None, moves)
        count = sum([1 async for _ in analyse(game, [evaluator(e) for e in pool])])
        elapsed = time.perf_counter() - started
        result = (elapsed, time.process_time() - own, cpu_seconds(pids) - spent)
        assert count == len(moves)
        for engine in pool:
            await engine.close()
        return result

    return asyncio.run(main())


def alternated(
    rounds: int, first: Callable[[], T], second: Callable[[], T]
) -> tuple[list[T], list[T]]:
    """What ``first()`` and ``second()`` return, run in turn ``rounds`` times so that a
    change in the machine's load hits both alike."""
    firsts: list[T] = []
    seconds: list[T] = []
    for _ in range(rounds):
        firsts.append(first())
        seconds.append(second())
    return firsts, seconds


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))]


class Analyses:
    """Two analysis streams kept running against the server (restarted when done)."""

    def __init__(self, url: str, moves: list[str], nodes: int) -> None:
        self.url, self.moves, self.nodes = url, moves, nodes
        self.stop = threading.Event()
        self.plies = 0
        self.threads = [
            threading.Thread(target=self._run, args=(i,), daemon=True) for i in range(2)
        ]

    def _run(self, index: int) -> None:
        nodes = self.nodes
        headers = {"Authorization": f"Bearer k{index}"}  # two clients (no keys: ignored)
        while not self.stop.is_set():
            body = {"variant": "xiangqi", "moves": self.moves, "nodes": nodes}
            with httpx.stream("POST", self.url + "/v1/analysis", json=body, timeout=600,
                              headers=headers) as r:  # fmt: skip
                for line in r.iter_lines():
                    if self.stop.is_set():
                        return
                    if line.startswith('{"type":"ply"'):
                        self.plies += 1
            nodes += 1  # a new budget: not the cached analysis again

    def __enter__(self) -> Analyses:
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(30)


def level_one(client: httpx.Client, count: int, rng: random.Random) -> list[float]:
    out = []
    for _ in range(count):
        body = {
            "variant": "xiangqi",
            "moves": OUT_OF_BOOK,
            "level": 1,
            "seed": rng.randrange(2**53),
        }
        started = time.perf_counter()
        r = client.post("/v1/move", json=body)
        out.append(time.perf_counter() - started)
        assert r.status_code == 200, r.text
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=150_000)
    parser.add_argument("--plies", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument(
        "--skip", choices=("overhead", "engines", "moves"), action="append", default=[]
    )
    args = parser.parse_args()
    moves = master_game(args.plies)
    game = GamePositions("xiangqi", None, moves)
    positions = [p.engine_position() for p in game.positions if p.outcome() is None]
    print(f"# {time.strftime('%Y-%m-%d %H:%M')} UTC, {os.cpu_count()} CPUs, load "
          f"{os.getloadavg()[0]:.1f}; a {len(moves)}-ply game, "
          f"{args.nodes} nodes a position")  # fmt: skip
    if "overhead" not in args.skip:
        raw, ours = alternated(
            args.rounds, lambda: raw_pipe(positions, args.nodes), lambda: core(moves, args.nodes, 1)
        )
        rounds = ", ".join(f"{a[0]:.1f}/{b[0]:.1f}" for a, b in zip(raw, ours, strict=True))
        print(f"\n1. overhead (best of {args.rounds}; each round's raw / core wall s: {rounds})")
        print(f"   {'':14} {'plies/s':>8} {'wall s':>7} {'client CPU s':>13} {'engine CPU s':>13}")
        for name, runs in (("raw UCI pipe", raw), ("analysis core", ours)):
            wall, own, engine = min(runs)
            print(
                f"   {name:14} {len(moves) / wall:>8.2f} {wall:>7.1f} {own:>13.2f} {engine:>13.1f}"
            )
        (rw, ro, re_), (cw, co, ce) = min(raw), min(ours)
        print(f"   overhead: wall {100 * (cw / rw - 1):+.1f} %; CPU (client + engine) "
              f"{100 * ((co + ce) / (ro + re_) - 1):+.1f} %; the core's own CPU is "
              f"{100 * co / ce:.1f} % of the engine's")  # fmt: skip
    if "engines" not in args.skip:
        one, two = alternated(
            args.rounds,
            lambda: core(moves, args.nodes, 1)[0],
            lambda: core(moves, args.nodes, 2)[0],
        )
        a, b = min(one), min(two)
        print(
            f"\n2. engines: 1 engine {len(moves) / a:.2f} plies/s ({a:.1f} s), "
            f"2 engines {len(moves) / b:.2f} plies/s ({b:.1f} s): speed-up {a / b:.2f}x"
        )
    if "moves" not in args.skip:
        server = ServeProcess(["--engines", "2", "--log-level", "warning"], cwd=ROOT).start()
        try:
            rng = random.Random(1)
            with httpx.Client(base_url=server.url, timeout=60) as client:
                level_one(client, 20, rng)  # warm
                idle: list[float] = []
                loaded: list[float] = []
                plies = 0
                for _ in range(args.rounds):
                    idle += level_one(client, args.requests, rng)
                    with Analyses(server.url, moves, args.nodes) as running:
                        while running.plies < 2:  # both streams searching
                            time.sleep(0.05)
                        loaded += level_one(client, args.requests, rng)
                        plies += running.plies
            print(f"\n3. level-1 moves, {len(idle)} idle and {len(loaded)} with two analyses "
                  f"running ({plies} analysis plies streamed meanwhile), alternated:")  # fmt: skip
            print(f"   {'':14} {'p50 ms':>8} {'p99 ms':>8}")
            for name, lat in (("idle", idle), ("two analyses", loaded)):
                print(f"   {name:14} {pct(lat, 0.5) * 1000:>8.1f} {pct(lat, 0.99) * 1000:>8.1f}")
            print(
                f"   p99 ratio      {pct(loaded, 0.99) / pct(idle, 0.99):.2f}x "
                f"(p50 {pct(loaded, 0.5) / pct(idle, 0.5):.2f}x)"
            )
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
