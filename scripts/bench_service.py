#!/usr/bin/env python3
"""Move-service speed, side by side in one run.

1. **Overhead** per level 1-4: a move through the service, in-process and over HTTP
   (one engine, loopback, keep-alive; through httpx and through a minimal stdlib
   ``http.client`` connection), against the same search by a raw engine process driven
   over pipes (same commands: MultiPV and Hash when they change, ``ucinewgame``,
   ``position``, ``go nodes N``, with ``FinalInfoOnly`` on as the service has it).
   Requests alternate between the four so machine noise hits all of them; also the
   server process's own CPU time per HTTP request. The ratio and the extra time are the
   lean client's: the raw engine is driven by a minimal loop too, and httpx alone costs
   about a millisecond of client CPU per request on a 2-core machine (its column is there
   for comparison with older runs).
2. **Throughput** as engines go 1 → core count, at levels 1 and 3 (closed loop, two
   requests in flight per engine). One server per engine count, all started up front;
   the measurement alternates between them in rounds, so that a change in machine load
   hits every engine count alike. Also the server process's CPU per move.
3. **Latency** p50/p99 at a saturating, bounded load (closed loop, two requests in
   flight per engine, all engines).
4. **Workers**: the same engines (the core count) behind ``ladder serve --workers 1``
   and ``--workers 2``, side by side (rounds alternating between them), at levels 1
   and 3: moves/s, and CPU ms per move of the server processes (supervisor and
   workers) and of the engines.
5. **The /v1/move fast path**: two servers of one engine each, one with the fast path
   (:class:`ladder.service.http.middleware.ServiceGate`, the default) and one without
   (every request through FastAPI's routing and validation), requests alternating
   between them through the lean client: the server process's CPU ms per request and
   the median wall time, at levels 1 and 3.
6. **CPU per move at every level**, the server's and the engine's, and the engine's
   share of the two (engine / (engine + server)): levels 1-8, out of the book and past
   the variety window, one engine, one request at a time; ``--levels-file FILE`` serves
   another levels file beside the shipped one (e.g. the one a figure was first measured
   with), the servers taking turns level by level.
7. **Hash sizes between levels**: a level-1 move (Hash 16) right after a level-7 one
   (Hash 64) on the same engine, against one right after a level-1 move (one engine,
   the two orders alternating); and the same requests, one at a time, to a pool of two
   engines, where the level-1 moves go to the engine whose table is their size already.
   Wall time and engine CPU of the level-1 moves.
8. **Saturation with a compiled load generator**: ``wrk`` (Debian's, ``make
   bench-tools``) at concurrency 4 per engine against ``ladder serve`` with one engine
   per core, beside a raw pool of the same engines (one thread per engine driving it
   over pipes as part 1's raw engine does), in alternating rounds, at levels 1 and 4
   out of the book: moves/s, their ratio, and CPU ms per move of the server, the engines
   and the load generator (wrk) or the raw pool's driver.

The load of parts 2 and 3 comes from a separate process (this script with ``--load``:
asyncio, plain HTTP/1.1 over keep-alive connections, a few tens of µs of CPU per
request), not from this one; it still runs on the same cores as the server and the
engines, and its CPU per request is printed. The machine's load average is printed at
the start and the end.

    .venv/bin/python scripts/bench_service.py [--reps 40] [--seconds 6] [--rounds 3]
        [--parts 1,2,3,4,5,6,7,8] [--levels-file FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.client
import json
import os
import re
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

K = TypeVar("K")

VARIANT = "xiangqi"
#: Out of the opening book (ladder/level_engine/book.py: the position after the first four is in
#: it, so every level answered those requests from the book, without a search), 40
#: legal moves: a level-1 request is a 3,000-node MultiPV 99 search, a line per move.
MOVES = ["h3e3", "h10g8", "h1g3", "i10h10", "i1i2", "a10a9"]
#: Part 6's position: 12 plies, out of every level's book and past levels 4-8's
#: variety window (their first 10 plies), 45 legal moves.
LATE_MOVES = [*MOVES, "b1c3", "b10c8", "a1a2", "a9d9", "c4c5", "c7c6"]


# ---------------------------------------------------------------------------------------
# The load generator (parts 2 and 3): `--load`, in a process of its own. It comes
# before the imports of the service: its process needs none of them.


def _request_bytes(level: int, seed: int) -> bytes:
    body = json.dumps({"variant": VARIANT, "moves": MOVES, "level": level, "seed": seed}).encode()
    return (
        b"POST /v1/move HTTP/1.1\r\nhost: bench\r\ncontent-type: application/json\r\n"
        b"content-length: %d\r\n\r\n" % len(body)
    ) + body


async def _connection(
    host: str,
    port: int,
    level: int,
    first_seed: int,
    until: list[float],
    latencies: list[float],
    measuring: list[bool],
) -> None:
    """One keep-alive connection sending move requests back to back until ``until[0]``."""
    reader, writer = await asyncio.open_connection(host, port)
    seed = first_seed
    try:
        while time.monotonic() < until[0]:
            seed += 1
            request = _request_bytes(level, seed)
            t0 = time.perf_counter()
            writer.write(request)
            status = await reader.readuntil(b"\r\n")
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n"):
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            body = await reader.readexactly(length)
            elapsed = time.perf_counter() - t0
            if status.split(b" ", 2)[1] != b"200" or b'"move"' not in body:
                raise SystemExit(f"bad answer: {status!r} {body[:200]!r}")
            if measuring[0]:
                latencies.append(elapsed)
    finally:
        writer.close()


async def _load(
    url: str,
    level: int,
    concurrency: int,
    warmup: float,
    seconds: float,
) -> dict[str, object]:
    host, port = url.removeprefix("http://").rsplit(":", 1)
    latencies: list[float] = []
    measuring = [False]
    until = [time.monotonic() + warmup + seconds]
    tasks = [
        asyncio.create_task(
            _connection(host, int(port), level, i * 1_000_000, until, latencies, measuring)
        )
        for i in range(concurrency)
    ]
    await asyncio.sleep(warmup)
    print("MEASURING", flush=True)
    measuring[0] = True
    c0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter()
    await asyncio.gather(*tasks)
    elapsed = time.perf_counter() - t0
    c1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (c1.ru_utime - c0.ru_utime) + (c1.ru_stime - c0.ru_stime)
    return {"elapsed": elapsed, "latencies": latencies, "cpu": cpu}


if __name__ == "__main__" and sys.argv[1:2] == ["--load"]:
    _url, _level, _concurrency, _warmup, _seconds = sys.argv[2:7]
    print(
        json.dumps(
            asyncio.run(
                _load(_url, int(_level), int(_concurrency), float(_warmup), float(_seconds))
            )
        )
    )
    sys.exit(0)

import httpx  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

from bench_protocol import RawEngine  # noqa: E402  (scripts/, beside this)

from ladder.calibration.pause import calibration_paused  # noqa: E402
from ladder.client import wait_until_healthy  # noqa: E402
from ladder.engine_binary import DEFAULT_ENGINE, UNPATCHED_ENGINE  # noqa: E402
from ladder.levels import load_levels  # noqa: E402
from ladder.rules import Game  # noqa: E402
from ladder.service.domain.models import MoveRequest  # noqa: E402
from ladder.service.domain.mover import MoveService  # noqa: E402
from ladder.service.operations.config import ServiceConfig  # noqa: E402


def serve_without_fast_path(argv: list[str]) -> None:
    """``ladder serve ARGV`` as the command runs it, but without the /v1/move fast path
    (part 5's second server)."""
    import dataclasses

    from ladder.cli import build_parser
    from ladder.engine_binary import find_engine
    from ladder.levels import LEVELS_FILE
    from ladder.service.operations.option_sources import resolve
    from ladder.service.operations.startup import serve

    settings = resolve(build_parser().parse_args(["serve", *argv]), os.environ).settings
    config = settings.service_config(find_engine(settings.engine).path, LEVELS_FILE)
    serve(dataclasses.replace(config, move_fast_path=False), settings)


if __name__ == "__main__" and sys.argv[1:2] == ["--serve-without-fast-path"]:
    serve_without_fast_path(sys.argv[2:])
    sys.exit(0)


def engine() -> Path:
    env = os.environ.get("LADDER_ENGINE")
    if env:
        return Path(env).resolve()
    return (DEFAULT_ENGINE if DEFAULT_ENGINE.exists() else UNPATCHED_ENGINE).resolve()


class LevelRawEngine(RawEngine):
    """The baseline: bench_protocol's raw-pipe engine (blocking reads, nothing else;
    ``FinalInfoOnly`` on when the engine has it), searching as the service does."""

    def __init__(self, exe: Path) -> None:
        super().__init__(exe)
        self.opts: dict[str, int] = {}

    def level_search(
        self, fen: str, moves: Sequence[str], nodes: int, multipv: int, hash_mb: int
    ) -> str:
        """MultiPV and Hash when they change, then ``ucinewgame`` / ``position`` /
        ``go nodes`` in one write; the bestmove."""
        changed = ""
        for name, value in (("MultiPV", multipv), ("Hash", hash_mb)):
            if self.opts.get(name) != value:
                changed += f"setoption name {name} value {value}\n"
                self.opts[name] = value
        if changed:
            self.send(changed)
        self.send(f"ucinewgame\nposition fen {fen} moves {' '.join(moves)}\ngo nodes {nodes}\n")
        return self.read_until("bestmove").split()[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """`ladder serve` in a subprocess."""

    def __init__(
        self,
        engines: int,
        exe: Path,
        workers: int = 1,
        fast_path: bool = True,
        levels: Path | None = None,
    ) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "LADDER_ENGINE": str(exe)}
        serve = (
            [sys.executable, "-m", "ladder.cli", "serve"]
            if fast_path
            else [sys.executable, __file__, "--serve-without-fast-path"]
        )
        self.p = subprocess.Popen(
            [
                *serve,
                "--port",
                str(self.port),
                "--engines",
                str(engines),
                "--workers",
                str(workers),
                "--max-queue",
                "256",
                "--log-level",
                "warning",
                *(["--levels", str(levels)] if levels is not None else []),
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
        )
        if not wait_until_healthy(self.url, 60, alive=lambda: self.p.poll() is None):
            raise SystemExit("server did not start")
        self._listed: tuple[list[int], list[int]] | None = None

    def _pids(self) -> tuple[list[int], list[int]]:
        """(the server's own processes: itself and its workers; the engines), listed
        once, when first asked for (all workers serve by then)."""
        import psutil

        if self._listed is None:
            own: list[int] = [self.p.pid]
            engines: list[int] = []
            for kid in psutil.Process(self.p.pid).children(recursive=True):
                with contextlib.suppress(psutil.Error):
                    (engines if "stockfish" in kid.name() else own).append(kid.pid)
            self._listed = own, engines
        return self._listed

    def cpu(self) -> float:
        """CPU seconds the server's processes (not its engines) have used so far."""
        return sum(process_cpu(pid) for pid in self._pids()[0])

    def engine_cpu(self) -> float:
        """CPU seconds its engine processes have used so far."""
        return sum(process_cpu(pid) for pid in self._pids()[1])

    def stop(self) -> None:
        self.p.terminate()
        self.p.wait(timeout=60)


@contextlib.contextmanager
def stopping(servers: dict[K, Server]) -> Iterator[dict[K, Server]]:
    """``servers``, every one stopped when the block ends, however it ends."""
    try:
        yield servers
    finally:
        for srv in servers.values():
            srv.stop()


def process_cpu(pid: int) -> float:
    """CPU seconds of one process (all its threads, not its children): nanosecond
    resolution from /proc/<pid>/task/*/schedstat where there is one."""
    tasks = Path(f"/proc/{pid}/task")
    try:
        return sum(int((t / "schedstat").read_text().split()[0]) for t in tasks.iterdir()) / 1e9
    except (OSError, ValueError, IndexError):
        import psutil

        try:
            t = psutil.Process(pid).cpu_times()
        except psutil.Error:  # gone meanwhile
            return 0.0
        return float(t.user + t.system)


def load_average() -> str:
    try:
        one, five, fifteen = os.getloadavg()
    except OSError:
        return "?"
    return f"{one:.2f}, {five:.2f}, {fifteen:.2f} (1, 5, 15 min)"


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))]


class LeanClient:
    """A minimal blocking HTTP/1.1 client (stdlib http.client, one keep-alive
    connection): the HTTP counterpart of LevelRawEngine's minimal pipe loop."""

    def __init__(self, url: str) -> None:
        host, port = url.removeprefix("http://").rsplit(":", 1)
        self.conn = http.client.HTTPConnection(host, int(port), timeout=120)

    def move(self, body: bytes) -> None:
        try:
            response = self._post(body)
        except (ConnectionError, http.client.RemoteDisconnected):
            # the server closed a connection left idle past its keep-alive timeout
            self.conn.close()
            response = self._post(body)
        data = response.read()
        if response.status != 200:
            raise SystemExit(f"HTTP {response.status}: {data[:200]!r}")

    def _post(self, body: bytes) -> http.client.HTTPResponse:
        self.conn.request(
            "POST", "/v1/move", body=body, headers={"content-type": "application/json"}
        )
        return self.conn.getresponse()

    def close(self) -> None:
        self.conn.close()


class Timings:
    """One level's overhead measurement (seconds per request)."""

    def __init__(self, level: int) -> None:
        self.level = level
        self.raw: list[float] = []
        self.local: list[float] = []
        self.httpx: list[float] = []
        self.lean: list[float] = []
        self.server_cpu = 0.0  # CPU seconds of the server process per HTTP request


def overhead(exe: Path, reps: int) -> list[Timings]:
    """Per level: the raw engine, the in-process service, the HTTP one through httpx and
    through a lean client, interleaved request by request."""
    levels = load_levels()[VARIANT]
    game = Game.from_fen(VARIANT, None, MOVES)
    fen, since = game.engine_position()
    raw = LevelRawEngine(exe)
    srv = Server(1, exe)
    runner = asyncio.Runner()
    local = MoveService(ServiceConfig(engines=1, engine_path=exe))
    runner.run(local.start())
    lean = LeanClient(srv.url)
    rows = []
    try:
        with httpx.Client(base_url=srv.url, timeout=120) as client:
            for n in (1, 2, 3, 4):
                lv = levels[n]
                mpv = lv.variety.multipv if lv.variety else 1
                body = {"variant": VARIANT, "moves": MOVES, "level": n, "seed": 1}
                encoded = json.dumps(body).encode()
                req = MoveRequest.model_validate(body)
                for _ in range(3):  # warm up all four
                    raw.level_search(fen, since, lv.nodes, mpv, lv.hash_mb)
                    runner.run(local.move(req))
                    client.post("/v1/move", json=body).raise_for_status()
                    lean.move(encoded)
                t = Timings(n)
                srv_cpu = 0.0
                for _ in range(reps):
                    t0 = time.perf_counter()
                    raw.level_search(fen, since, lv.nodes, mpv, lv.hash_mb)
                    t.raw.append(time.perf_counter() - t0)
                    t0 = time.perf_counter()
                    runner.run(local.move(req))
                    t.local.append(time.perf_counter() - t0)
                    c0 = srv.cpu()
                    t0 = time.perf_counter()
                    client.post("/v1/move", json=body).raise_for_status()
                    t.httpx.append(time.perf_counter() - t0)
                    t0 = time.perf_counter()
                    lean.move(encoded)
                    t.lean.append(time.perf_counter() - t0)
                    srv_cpu += srv.cpu() - c0
                t.server_cpu = srv_cpu / (2 * reps)
                rows.append(t)
    finally:
        lean.close()
        runner.run(local.close())
        runner.close()
        srv.stop()
        raw.close()
    return rows


def _run_load_process(
    url: str, level: int, concurrency: int, warmup: float, seconds: float, server: Server | None
) -> dict[str, object]:
    """Run the load generator in a process of its own: `concurrency` connections for
    `warmup` + `seconds`; returns its results (latencies of the measured part, its
    elapsed seconds and CPU seconds) and the server's CPU seconds over the measured
    part ("server_cpu", if `server` is given)."""
    proc = subprocess.Popen(
        [
            sys.executable,
            __file__,
            "--load",
            url,
            str(level),
            str(concurrency),
            str(warmup),
            str(seconds),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if line.strip() != "MEASURING":
        proc.kill()
        raise SystemExit(f"load generator failed: {line!r}")
    c0 = server.cpu() if server is not None else 0.0
    e0 = server.engine_cpu() if server is not None else 0.0
    out = proc.stdout.read()
    c1 = server.cpu() if server is not None else 0.0
    e1 = server.engine_cpu() if server is not None else 0.0
    if proc.wait() != 0:
        raise SystemExit("load generator failed")
    result: dict[str, object] = json.loads(out)
    result["server_cpu"] = c1 - c0
    result["engine_cpu"] = e1 - e0
    return result


@dataclass
class Totals:
    """One server's sums over the rounds of a throughput measurement."""

    moves: int = 0
    elapsed: float = 0.0
    server_cpu: float = 0.0
    engine_cpu: float = 0.0
    load_cpu: float = 0.0

    @property
    def rate(self) -> float:
        return self.moves / self.elapsed

    def per_move(self, cpu_seconds: float) -> float:
        """CPU ms per move."""
        return cpu_seconds / self.moves * 1000


def measure_rounds(
    servers: dict[int, Server],
    level: int,
    connections: Callable[[int], int],
    seconds: float,
    rounds: int,
) -> dict[int, Totals]:
    """Load each server in turn, `rounds` times (`connections(key)` keep-alive
    connections, `seconds / rounds` measured each time), so that a change in machine
    load hits all of them alike; the sums per server."""
    totals = {key: Totals() for key in servers}
    for _ in range(rounds):
        for key, srv in servers.items():
            res = _run_load_process(srv.url, level, connections(key), 1.0, seconds / rounds, srv)
            lat = res["latencies"]
            assert isinstance(lat, list)
            t = totals[key]
            t.moves += len(lat)
            t.elapsed += float(res["elapsed"])  # type: ignore[arg-type]
            t.server_cpu += float(res["server_cpu"])  # type: ignore[arg-type]
            t.engine_cpu += float(res["engine_cpu"])  # type: ignore[arg-type]
            t.load_cpu += float(res["cpu"])  # type: ignore[arg-type]
    return totals


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=40, help="requests per level (overhead)")
    ap.add_argument(
        "--seconds",
        type=float,
        default=6.0,
        help="measured seconds per throughput point and per latency level",
    )
    ap.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="throughput: alternate between the engine counts this many times",
    )
    ap.add_argument(
        "--parts",
        default="1,2,3,4,5,6,7,8",
        help="which measurements to run (comma-separated, default all: 1,2,3,4,5,6,7,8)",
    )
    ap.add_argument(
        "--levels-file",
        type=Path,
        action="append",
        default=[],
        help="part 6: also serve this levels file beside the shipped one (repeatable; "
        "e.g. the levels file a figure was first measured with)",
    )
    args = ap.parse_args()
    parts = {int(part) for part in args.parts.split(",")}
    exe = engine()
    cores = os.cpu_count() or 1
    print(f"engine: {exe}\ncores: {cores}  position: {VARIANT} after {' '.join(MOVES)}")
    with calibration_paused():
        print(f"load average at the start: {load_average()}\n")
        if 1 in parts:
            part_overhead(exe, args.reps)
        if parts & {2, 3}:
            part_throughput(exe, cores, args.seconds, args.rounds, parts)
        if 4 in parts:
            part_workers(exe, cores, args.seconds, args.rounds)
        if 5 in parts:
            part_fast_path(exe, args.reps)
        if 6 in parts:
            part_cpu_split(exe, args.seconds, args.levels_file)
        if 7 in parts:
            part_hash_sizes(exe, args.reps)
        if 8 in parts:
            part_saturation(exe, cores, args.seconds, args.rounds)
        print(f"\nload average at the end: {load_average()}")


def part_fast_path(exe: Path, reps: int) -> None:
    print(
        f"\n5. The /v1/move fast path (1 engine each, {reps} requests per level and server, "
        "alternating;\n   through the lean client): server CPU ms per request, and the "
        "median wall ms"
    )
    with stopping({"with": Server(1, exe), "without": Server(1, exe, fast_path=False)}) as servers:
        clients = {name: LeanClient(srv.url) for name, srv in servers.items()}
        print(
            f"{'level':>5} | {'cpu with':>8} {'without':>8} {'saved':>6} {'ratio':>6} | "
            f"{'wall with':>9} {'without':>8}"
        )
        try:
            for level in (1, 3):
                body = json.dumps({"variant": VARIANT, "moves": MOVES, "level": level, "seed": 1})
                encoded = body.encode()
                for client in clients.values():
                    for _ in range(5):
                        client.move(encoded)
                cpu = dict.fromkeys(servers, 0.0)
                wall: dict[str, list[float]] = {name: [] for name in servers}
                for _ in range(reps):
                    for name, srv in servers.items():
                        c0 = srv.cpu()
                        t0 = time.perf_counter()
                        clients[name].move(encoded)
                        wall[name].append(time.perf_counter() - t0)
                        cpu[name] += srv.cpu() - c0
                with_ms, without_ms = (1000 * cpu[name] / reps for name in ("with", "without"))
                print(
                    f"{level:>5} | {with_ms:>8.3f} {without_ms:>8.3f} {without_ms - with_ms:>6.3f} "
                    f"{with_ms / without_ms:>6.3f} | "
                    f"{1000 * statistics.median(wall['with']):>9.2f} "
                    f"{1000 * statistics.median(wall['without']):>8.2f}"
                )
        finally:
            for client in clients.values():
                client.close()


def part_cpu_split(exe: Path, seconds: float, extra_levels: list[Path]) -> None:
    """Every level's CPU per move, the server's and the engine's, out of the book and
    past the variety window: one engine per server, one request at a time through the
    lean client (seeds varying), each level's requests in a block (no Hash change inside
    one), the servers (one per levels file) taking turns level by level."""
    files: dict[str, Path | None] = {"shipped": None}
    files.update({path.name: path for path in extra_levels})
    print(
        f"\n6. CPU per move at every level ({VARIANT} after {len(LATE_MOVES)} plies: out of "
        "the book, past\n   the variety window; 1 engine, one request at a time, about "
        f"{seconds:g} s a level):\n   srv / eng: CPU ms per move of the server process / "
        "its engine; share: eng / (eng + srv)"
    )
    print(
        f"{'levels':>22} {'level':>5} {'nodes':>7} {'moves':>5} {'srv':>6} {'eng':>7} "
        f"{'share':>6} {'wall ms':>8}"
    )
    tables = {
        name: load_levels(path)[VARIANT] if path else load_levels()[VARIANT]
        for name, path in files.items()
    }
    with stopping({name: Server(1, exe, levels=path) for name, path in files.items()}) as servers:
        clients = {name: LeanClient(srv.url) for name, srv in servers.items()}
        try:
            for level in range(1, 9):
                for name, srv in servers.items():
                    client = clients[name]

                    def body(seed: int, level: int = level) -> bytes:
                        return json.dumps(
                            {"variant": VARIANT, "moves": LATE_MOVES, "level": level, "seed": seed}
                        ).encode()

                    for seed in range(3):  # warm up: the level's MultiPV and Hash set
                        client.move(body(seed))
                    c0, e0 = srv.cpu(), srv.engine_cpu()
                    walls: list[float] = []
                    until = time.monotonic() + seconds
                    while len(walls) < 5 or time.monotonic() < until:
                        t0 = time.perf_counter()
                        client.move(body(1000 + len(walls)))
                        walls.append(time.perf_counter() - t0)
                    srv_ms = (srv.cpu() - c0) / len(walls) * 1000
                    eng_ms = (srv.engine_cpu() - e0) / len(walls) * 1000
                    print(
                        f"{name:>22} {level:>5} {tables[name][level].nodes:>7} {len(walls):>5} "
                        f"{srv_ms:>6.3f} {eng_ms:>7.3f} {eng_ms / (eng_ms + srv_ms):>6.3f} "
                        f"{1000 * statistics.median(walls):>8.2f}",
                        flush=True,
                    )
        finally:
            for client in clients.values():
                client.close()


def part_hash_sizes(exe: Path, reps: int) -> None:
    """Level 1 after level 7 and after level 1 on one engine; level 1 in a pool of two
    engines given the same mix (``reps`` level-1 moves of each)."""
    levels = load_levels()[VARIANT]
    print(
        f"\n7. Hash sizes: level 1 (Hash {levels[1].hash_mb} MB) after level 7 (Hash "
        f"{levels[7].hash_mb} MB) and after level 1;\n   {reps} level-1 moves each, "
        "alternating; median wall ms and engine CPU ms per level-1 move"
    )

    def body(level: int, seed: int) -> bytes:
        return json.dumps(
            {"variant": VARIANT, "moves": LATE_MOVES, "level": level, "seed": seed}
        ).encode()

    series = {
        "1 engine, after level 7": (1, 7),
        "1 engine, after level 1": (1, 1),
        "2 engines, after level 7": (2, 7),
    }
    wall: dict[str, list[float]] = {name: [] for name in series}
    cpu = dict.fromkeys(series, 0.0)
    servers = {1: Server(1, exe), 2: Server(2, exe)}
    with stopping(servers):
        clients = {k: LeanClient(srv.url) for k, srv in servers.items()}
        try:
            for k in servers:  # both tables made once, as a served pool has them
                for seed in range(3):
                    clients[k].move(body(7, seed))
                    clients[k].move(body(1, seed))
            for i in range(reps):
                for name, (k, before) in series.items():
                    clients[k].move(body(before, 10_000 + i))
                    e0 = servers[k].engine_cpu()
                    t0 = time.perf_counter()
                    clients[k].move(body(1, i))
                    wall[name].append(time.perf_counter() - t0)
                    cpu[name] += servers[k].engine_cpu() - e0
        finally:
            for client in clients.values():
                client.close()
    base = statistics.median(wall["1 engine, after level 1"])
    base_cpu = cpu["1 engine, after level 1"]
    print(f"{'level 1 on':>26} {'wall ms':>8} {'ratio':>6} {'eng ms':>7} {'ratio':>6}")
    for name in series:
        w = statistics.median(wall[name])
        print(
            f"{name:>26} {w * 1000:>8.2f} {w / base:>6.2f} {cpu[name] / reps * 1000:>7.2f} "
            f"{cpu[name] / base_cpu:>6.2f}"
        )


#: wrk's script: POST /v1/move with part 6's position, the seed counting up.
WRK_SCRIPT = """
local n = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
request = function()
  n = n + 1
  return wrk.format(nil, "/v1/move", nil, string.format(BODY, n))
end
"""


def run_wrk(url: str, level: int, connections: int, seconds: float) -> tuple[int, float, float]:
    """wrk against ``url`` (one thread, ``connections`` connections) for ``seconds``
    (whole seconds): (moves answered, seconds it took, wrk's CPU seconds). Any answer
    but a 200 fails."""
    import tempfile

    wrk = shutil.which("wrk")
    if wrk is None:
        raise SystemExit("part 8 needs wrk: make bench-tools (apt-get install wrk)")
    body = json.dumps({"variant": VARIANT, "moves": LATE_MOVES, "level": level, "seed": 0})
    body = body.replace("%", "%%").replace('"seed": 0', '"seed": %d')
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(f"BODY = [[{body}]]\n{WRK_SCRIPT}")
    try:
        c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        out = subprocess.run(
            [
                wrk,
                "-t1",
                f"-c{connections}",
                f"-d{max(1, round(seconds))}s",
                "-s",
                script.name,
                url,
            ],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    finally:
        os.unlink(script.name)
    if "Non-2xx" in out or "Socket errors" in out:
        raise SystemExit(f"wrk saw failed requests:\n{out}")
    match = re.search(r"(\d+) requests in ([\d.]+)(m?s)", out)
    if match is None:
        raise SystemExit(f"cannot read wrk's output:\n{out}")
    moves = int(match.group(1))
    took = float(match.group(2)) / (1000 if match.group(3) == "ms" else 1)
    cpu = (c1.ru_utime - c0.ru_utime) + (c1.ru_stime - c0.ru_stime)
    return moves, took, cpu


def raw_pool(engines: list[LevelRawEngine], level: int, seconds: float) -> Totals:
    """The raw pool: one thread per engine searching part 6's position at ``level`` (its
    nodes, MultiPV and Hash there) back to back for ``seconds``."""
    import threading

    lv = load_levels()[VARIANT][level]
    variety = lv.variety_at(len(LATE_MOVES))
    mpv = variety.multipv if variety else 1
    fen, since = Game.from_fen(VARIANT, None, LATE_MOVES).engine_position()
    counts = [0] * len(engines)
    until = time.monotonic() + seconds

    def drive(i: int) -> None:
        while time.monotonic() < until:
            engines[i].level_search(fen, since, lv.nodes, mpv, lv.hash_mb)
            counts[i] += 1

    for raw in engines:  # MultiPV and Hash set before the clock starts
        raw.level_search(fen, since, lv.nodes, mpv, lv.hash_mb)
    e0 = sum(process_cpu(raw.proc.pid) for raw in engines)
    c0 = time.process_time()
    t0 = time.perf_counter()
    threads = [threading.Thread(target=drive, args=(i,)) for i in range(len(engines))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - t0
    return Totals(
        moves=sum(counts),
        elapsed=elapsed,
        server_cpu=time.process_time() - c0,
        engine_cpu=sum(process_cpu(raw.proc.pid) for raw in engines) - e0,
    )


def part_saturation(exe: Path, cores: int, seconds: float, rounds: int) -> None:
    """``ladder serve`` under wrk against a raw pool of as many engines, alternating."""
    engines = max(2, cores)
    connections = 4 * engines
    print(
        f"\n8. Saturation: {engines} engines, wrk at {connections} connections against "
        f"`ladder serve`, beside a raw\n   pool of {engines} engines driven over pipes (a "
        f"thread each); {rounds} rounds alternating, {seconds:g} s each side in all;\n"
        "   srv: CPU ms per move of the server (raw: of the pool's driver), eng: of the "
        "engines,\n   load: of wrk; share: eng / (eng + srv)"
    )
    print(
        f"{'level':>5} {'side':>7} {'moves':>6} {'moves/s':>8} {'ratio':>6} {'srv':>6} "
        f"{'eng':>6} {'load':>6} {'share':>6}"
    )
    srv = Server(engines, exe)
    raws = [LevelRawEngine(exe) for _ in range(engines)]
    try:
        with stopping({0: srv}):
            for level in (1, 4):
                served, raw = Totals(), Totals()
                run_wrk(srv.url, level, connections, 1.0)  # warm up
                for _ in range(rounds):
                    c0, e0 = srv.cpu(), srv.engine_cpu()
                    moves, took, load = run_wrk(srv.url, level, connections, seconds / rounds)
                    served.moves += moves
                    served.elapsed += took
                    served.load_cpu += load
                    served.server_cpu += srv.cpu() - c0
                    served.engine_cpu += srv.engine_cpu() - e0
                    pooled = raw_pool(raws, level, seconds / rounds)
                    raw.moves += pooled.moves
                    raw.elapsed += pooled.elapsed
                    raw.server_cpu += pooled.server_cpu
                    raw.engine_cpu += pooled.engine_cpu
                for side, t in (("service", served), ("raw", raw)):
                    srv_ms, eng_ms = t.per_move(t.server_cpu), t.per_move(t.engine_cpu)
                    print(
                        f"{level:>5} {side:>7} {t.moves:>6} {t.rate:>8.1f} "
                        f"{t.rate / raw.rate:>6.2f} {srv_ms:>6.3f} {eng_ms:>6.3f} "
                        f"{t.per_move(t.load_cpu):>6.3f} {eng_ms / (eng_ms + srv_ms):>6.3f}",
                        flush=True,
                    )
    finally:
        for engine in raws:
            engine.close()


def part_overhead(exe: Path, reps: int) -> None:
    print(
        f"1. Overhead vs the raw engine over pipes (1 engine, {reps} requests each, "
        "interleaved;\n   median and minimum ms; the minimum is the least disturbed by "
        "other load).\n   in-proc: MoveService in this process; httpx: HTTP through "
        "httpx.Client; lean: HTTP\n   through a minimal http.client connection (the "
        "counterpart of the raw engine's\n   minimal pipe loop); ratio and extra: lean vs "
        "raw; +httpx: httpx vs raw;\n   srv: the server process's CPU ms per HTTP request"
    )
    head = (
        f"{'raw':>6} {'in-proc':>7} {'httpx':>6} {'lean':>6} {'ratio':>6} {'extra':>6} "
        f"{'+httpx':>6}"
    )
    print(f"{'level':>5} {'nodes':>6} | {head} | {head} | {'srv':>5}")
    levels = load_levels()[VARIANT]
    for t in overhead(exe, reps):
        cells = []
        for f in (statistics.median, min):
            r, lo, hx, ln = (f(v) * 1000 for v in (t.raw, t.local, t.httpx, t.lean))
            cells.append(
                f"{r:>6.2f} {lo:>7.2f} {hx:>6.2f} {ln:>6.2f} {ln / r:>6.3f} "
                f"{ln - r:>6.2f} {hx - r:>6.2f}"
            )
        print(
            f"{t.level:>5} {levels[t.level].nodes:>6} | {cells[0]} | {cells[1]} | "
            f"{t.server_cpu * 1000:>5.2f}"
        )


def part_throughput(exe: Path, cores: int, seconds: float, rounds: int, parts: set[int]) -> None:
    print(
        "\n2. Throughput (closed loop, 2 requests in flight per engine), moves/s; "
        f"{rounds} rounds\n   alternating between the engine counts; srv: the "
        "server process's CPU ms per move;\n   load: the load generator's CPU ms per "
        "move (its own process, same cores)"
    )
    print(
        f"{'level':>5} {'engines':>7} {'moves/s':>8} {'per engine':>11} {'scaling':>8} "
        f"{'srv':>5} {'load':>5}"
    )
    with stopping({k: Server(k, exe) for k in range(1, cores + 1)}) as servers:
        for level in (1, 3) if 2 in parts else ():
            totals = measure_rounds(servers, level, lambda k: 2 * k, seconds, rounds)
            base = totals[1].rate
            for k, t in totals.items():
                print(
                    f"{level:>5} {k:>7} {t.rate:>8.1f} {t.rate / k:>11.1f} "
                    f"{t.rate / (base * k):>8.2f} {t.per_move(t.server_cpu):>5.2f} "
                    f"{t.per_move(t.load_cpu):>5.2f}"
                )

        print(f"\n3. Latency at saturation ({cores} engines, {2 * cores} requests in flight)")
        print(f"{'level':>5} {'requests':>8} {'p50 ms':>8} {'p99 ms':>8} {'p99/p50':>8}")
        for level in (1, 3) if 3 in parts else ():
            res = _run_load_process(servers[cores].url, level, 2 * cores, 1.0, seconds, None)
            lat = res["latencies"]
            assert isinstance(lat, list)
            p50, p99 = pct(lat, 0.5), pct(lat, 0.99)
            print(
                f"{level:>5} {len(lat):>8} {p50 * 1000:>8.1f} {p99 * 1000:>8.1f} {p99 / p50:>8.2f}"
            )


def part_workers(exe: Path, cores: int, seconds: float, rounds: int) -> None:
    """``--workers 1`` and ``--workers 2`` with the same engines, side by side."""
    engines = max(2, cores)
    print(
        f"\n4. Workers: {engines} engines behind --workers 1 and --workers 2 (closed loop, "
        f"2 requests\n   in flight per engine), {rounds} rounds alternating between them; "
        "srv: CPU ms per move of\n   the server's processes (supervisor and workers), "
        "eng: of the engines, load: of the load generator"
    )
    print(
        f"{'level':>5} {'workers':>7} {'moves/s':>8} {'ratio':>6} {'srv':>5} {'eng':>5} {'load':>5}"
    )
    with stopping({w: Server(engines, exe, workers=w) for w in (1, 2)}) as servers:
        for level in (1, 3):
            totals = measure_rounds(servers, level, lambda w: 2 * engines, seconds, rounds)
            base = totals[1].rate
            for w, t in totals.items():
                print(
                    f"{level:>5} {w:>7} {t.rate:>8.1f} {t.rate / base:>6.2f} "
                    f"{t.per_move(t.server_cpu):>5.2f} {t.per_move(t.engine_cpu):>5.2f} "
                    f"{t.per_move(t.load_cpu):>5.2f}"
                )


if __name__ == "__main__":
    main()
