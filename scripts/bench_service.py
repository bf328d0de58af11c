#!/usr/bin/env python3
"""Move-service speed, side by side in one run.

1. **Overhead** per level 1-4: a move through the HTTP service (one engine, loopback,
   keep-alive) against the same search by a raw engine process driven over pipes
   (same commands: MultiPV and Hash when they change, ``ucinewgame``, ``isready``, ``position``,
   ``go nodes N``). Requests alternate between the two so machine noise hits both.
2. **Throughput** as engines go 1 → core count, at levels 1 and 3 (closed loop, two
   requests in flight per engine).
3. **Latency** p50/p99 at a saturating, bounded load (closed loop, two requests in
   flight per engine, all engines) from a loopback client.

    .venv/bin/python scripts/bench_service.py [--reps 40] [--seconds 6]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ladder.engine_binary import DEFAULT_ENGINE, UNPATCHED_ENGINE  # noqa: E402
from ladder.levels import load_levels  # noqa: E402
from ladder.rules import Game  # noqa: E402
from ladder.service.config import ServiceConfig  # noqa: E402
from ladder.service.models import MoveRequest  # noqa: E402
from ladder.service.mover import MoveService  # noqa: E402
from ladder.variants import FSF_VARIANT, VARIANTS_INI  # noqa: E402

VARIANT = "xiangqi"
MOVES = ["h3e3", "h10g8", "h1g3", "i10h10"]


def engine() -> Path:
    env = os.environ.get("MISTBOARD_ENGINE")
    if env:
        return Path(env).resolve()
    return (DEFAULT_ENGINE if DEFAULT_ENGINE.exists() else UNPATCHED_ENGINE).resolve()


class RawEngine:
    """The baseline: the engine over pipes, blocking reads, nothing else."""

    def __init__(self, exe: Path) -> None:
        self.p = subprocess.Popen([str(exe)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True, bufsize=1)
        self.send("uci")
        self.until("uciok")
        self.send(f"setoption name VariantPath value {VARIANTS_INI}")
        self.send(f"setoption name UCI_Variant value {FSF_VARIANT[VARIANT]}")
        self.send("isready")
        self.until("readyok")
        self.opts: dict[str, int] = {}

    def send(self, line: str) -> None:
        assert self.p.stdin is not None
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def until(self, prefix: str) -> str:
        assert self.p.stdout is not None
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("engine died")
            if line.startswith(prefix):
                return line

    def search(self, fen: str, moves: list[str], nodes: int, multipv: int, hash_mb: int) -> str:
        for name, value in (("MultiPV", multipv), ("Hash", hash_mb)):
            if self.opts.get(name) != value:
                self.send(f"setoption name {name} value {value}")
                self.opts[name] = value
        self.send("ucinewgame")
        self.send("isready")
        self.until("readyok")
        self.send(f"position fen {fen} moves {' '.join(moves)}")
        self.send(f"go nodes {nodes}")
        return self.until("bestmove").split()[1]

    def close(self) -> None:
        self.send("quit")
        self.p.wait(timeout=5)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """`ladder serve` in a subprocess."""

    def __init__(self, engines: int, exe: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "MISTBOARD_ENGINE": str(exe)}
        self.p = subprocess.Popen(
            [sys.executable, "-m", "ladder.cli", "serve", "--port", str(self.port),
             "--engines", str(engines), "--max-queue", "256", "--log-level", "warning"],
            cwd=ROOT, env=env)
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(self.url + "/healthz", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline or self.p.poll() is not None:
                raise SystemExit("server did not start")
            time.sleep(0.1)

    def stop(self) -> None:
        self.p.terminate()
        self.p.wait(timeout=30)


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))]


def overhead(exe: Path, reps: int) -> list[tuple[int, list[float], list[float], list[float]]]:
    """Per level: seconds of the raw engine, the in-process service, the HTTP one."""
    levels = load_levels()[VARIANT]
    game = Game.from_fen(VARIANT, None, MOVES)
    fen, since = game.position_at_last_capture()
    raw = RawEngine(exe)
    srv = Server(1, exe)
    runner = asyncio.Runner()
    local = MoveService(ServiceConfig(engines=1, engine_path=exe))
    runner.run(local.start())
    rows = []
    try:
        with httpx.Client(base_url=srv.url, timeout=120) as client:
            for n in (1, 2, 3, 4):
                lv = levels[n]
                mpv = lv.variety.multipv if lv.variety else 1
                body = {"variant": VARIANT, "moves": MOVES, "level": n, "seed": 1}
                req = MoveRequest.model_validate(body)
                for _ in range(3):  # warm up all three
                    raw.search(fen, since, lv.nodes, mpv, lv.hash_mb)
                    runner.run(local.move(req))
                    client.post("/v1/move", json=body).raise_for_status()
                t_raw: list[float] = []
                t_local: list[float] = []
                t_http: list[float] = []
                for _ in range(reps):
                    t0 = time.perf_counter()
                    raw.search(fen, since, lv.nodes, mpv, lv.hash_mb)
                    t_raw.append(time.perf_counter() - t0)
                    t0 = time.perf_counter()
                    runner.run(local.move(req))
                    t_local.append(time.perf_counter() - t0)
                    t0 = time.perf_counter()
                    client.post("/v1/move", json=body).raise_for_status()
                    t_http.append(time.perf_counter() - t0)
                rows.append((n, t_raw, t_local, t_http))
    finally:
        runner.run(local.close())
        runner.close()
        srv.stop()
        raw.close()
    return rows


async def closed_loop(url: str, level: int, concurrency: int, seconds: float,
                      ) -> tuple[int, list[float]]:
    """`concurrency` clients sending requests back to back for `seconds`."""
    latencies: list[float] = []
    stop = time.monotonic() + seconds
    async with httpx.AsyncClient(base_url=url, timeout=120,
                                 limits=httpx.Limits(max_connections=concurrency)) as client:
        async def one(i: int) -> None:
            seed = i * 100_000
            while time.monotonic() < stop:
                seed += 1
                t0 = time.perf_counter()
                r = await client.post("/v1/move", json={"variant": VARIANT, "moves": MOVES,
                                                        "level": level, "seed": seed})
                r.raise_for_status()
                latencies.append(time.perf_counter() - t0)

        t0 = time.perf_counter()
        await asyncio.gather(*(one(i) for i in range(concurrency)))
        elapsed = time.perf_counter() - t0
    return int(len(latencies) / elapsed * 1000), latencies  # milli-moves/s for precision


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=40, help="requests per level (overhead)")
    ap.add_argument("--seconds", type=float, default=6.0, help="per throughput point")
    args = ap.parse_args()
    exe = engine()
    cores = os.cpu_count() or 1
    print(f"engine: {exe}\ncores: {cores}  position: {VARIANT} after {' '.join(MOVES)}\n")

    print(f"1. Overhead vs the raw engine over pipes (1 engine, {args.reps} requests each, "
          "interleaved;\n   median and minimum ms; the minimum is the least disturbed by "
          "other load)")
    print(f"{'level':>5} {'nodes':>6} | {'raw':>6} {'in-proc':>7} {'HTTP':>6} {'ratio':>6} "
          f"{'extra':>6} | {'raw':>6} {'in-proc':>7} {'HTTP':>6} {'ratio':>6} {'extra':>6}")
    levels = load_levels()[VARIANT]
    for n, raw, local, http in overhead(exe, args.reps):
        cells = []
        for f in (statistics.median, min):
            r, lo, h = f(raw) * 1000, f(local) * 1000, f(http) * 1000
            cells.append(f"{r:>6.2f} {lo:>7.2f} {h:>6.2f} {h / r:>6.3f} {h - r:>6.2f}")
        print(f"{n:>5} {levels[n].nodes:>6} | {cells[0]} | {cells[1]}")

    print("\n2. Throughput (closed loop, 2 requests in flight per engine), moves/s")
    print(f"{'level':>5} {'engines':>7} {'moves/s':>8} {'per engine':>11} {'scaling':>8}")
    for level in (1, 3):
        base = None
        for k in range(1, cores + 1):
            srv = Server(k, exe)
            try:
                asyncio.run(closed_loop(srv.url, level, 2 * k, 1.0))  # warm-up
                mps, _ = asyncio.run(closed_loop(srv.url, level, 2 * k, args.seconds))
            finally:
                srv.stop()
            rate = mps / 1000
            base = base or rate
            print(f"{level:>5} {k:>7} {rate:>8.1f} {rate / k:>11.1f} {rate / (base * k):>8.2f}")

    print(f"\n3. Latency at saturation ({cores} engines, {2 * cores} requests in flight)")
    print(f"{'level':>5} {'requests':>8} {'p50 ms':>8} {'p99 ms':>8} {'p99/p50':>8}")
    srv = Server(cores, exe)
    try:
        for level in (1, 3):
            asyncio.run(closed_loop(srv.url, level, 2 * cores, 1.0))
            _, lat = asyncio.run(closed_loop(srv.url, level, 2 * cores, args.seconds))
            p50, p99 = pct(lat, 0.5), pct(lat, 0.99)
            print(f"{level:>5} {len(lat):>8} {p50 * 1000:>8.1f} {p99 * 1000:>8.1f} "
                  f"{p99 / p50:>8.2f}")
    finally:
        srv.stop()


if __name__ == "__main__":
    main()
