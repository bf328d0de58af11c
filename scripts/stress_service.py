#!/usr/bin/env python3
"""The move service under abuse, measured: what docs/service.md reports.

Each subcommand starts its own ``ladder serve --port 0`` from this checkout (real
engines, loopback only; or ``--url``/``--pid`` for a server already running), is
bounded in requests and time, prints its progress, and ends with a summary; the exit
code is 1 when the service failed the check.

    .venv/bin/python scripts/stress_service.py fuzz [--requests 5000]
        bad input of every kind; counted by status; check: no 5xx
    .venv/bin/python scripts/stress_service.py kill [--seconds 60] [--every 2]
        SIGKILL a random engine every 2 s under load; failed requests, p50/p99
    .venv/bin/python scripts/stress_service.py soak [--minutes 10]
        steady mixed load; RSS of the server and each engine over time
    .venv/bin/python scripts/stress_service.py disconnect [--normal 200] [--slow 50]
        normal-close disconnects and slow-loris connections; server alive, all closed
    .venv/bin/python scripts/stress_service.py headers [--attacks 20]
        64 MiB headers while a client plays level-1 moves: its latency, server memory
    .venv/bin/python scripts/stress_service.py lanes [--seconds 60] [--slow 6]
        key A keeps 6 level-8 requests running, key B plays level-1 moves one after
        another: B's latency idle and loaded, 503s, A's level-8 moves, with
        --short-engines 1 (lanes) and 0 (every engine for any level) side by side
    .venv/bin/python scripts/stress_service.py freeze [--rounds 5]
        SIGSTOP an idle engine: time until it is replaced, /healthz meanwhile, and the
        latency of a level-1 move after the replacement (--at-once: one sent right
        after freezing, before any check)

Runs pause a background calibration (`ladder calibrate`, SIGSTOP) while they measure
and resume it (SIGCONT) however they end, and print the load average.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.client
import json
import os
import random
import signal
import socket
import statistics
import string
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import psutil

from ladder.calibration.pause import calibration_paused
from ladder.service.operations.launch import ServeProcess

MOVES = ["h3e3", "h10g8", "h1g3", "i10h10"]
START = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"


def say(*parts: object) -> None:
    print(*parts, flush=True)


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))] if s else float("nan")


def mib(n: float) -> str:
    return f"{n / 2**20:.1f}"


class Target:
    """The server under test: started here, or one already running (--url, --pid)."""

    def __init__(self, args: argparse.Namespace, extra: list[str]) -> None:
        self.proc: ServeProcess | None = None
        if args.url:
            self.url, self.pid = args.url.rstrip("/"), args.pid
        else:
            self.proc = ServeProcess(
                ["--engines", str(args.engines), "--log-level", "warning", *extra]
            ).start()
            self.url, self.pid = self.proc.url, self.proc.server_pid()
        host, port = self.url.removeprefix("http://").rsplit(":", 1)
        self.host, self.port = host, int(port)
        say(f"server {self.url} (pid {self.pid}); load average {os.getloadavg()[0]:.2f}")

    def engines(self) -> list[psutil.Process]:
        if self.pid is None:
            return []
        try:
            kids = psutil.Process(self.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            return []
        return [k for k in kids if _alive(k)]

    def rss(self) -> tuple[int, list[int]]:
        """RSS of the server and of each engine, bytes."""
        server = psutil.Process(self.pid).memory_info().rss if self.pid else 0
        engines = []
        for engine in self.engines():
            with contextlib.suppress(psutil.Error):
                engines.append(engine.memory_info().rss)
        return server, engines

    def alive(self) -> bool:
        try:
            return httpx.get(self.url + "/healthz", timeout=30).status_code == 200
        except httpx.TransportError:
            return False

    def metric(self, name: str) -> float:
        text = httpx.get(self.url + "/metrics", timeout=30).text
        return sum(
            float(line.split()[-1])
            for line in text.splitlines()
            if line.startswith(name + " ") or line.startswith(name + "{")
        )

    def stop(self) -> None:
        if self.proc is not None:
            code = self.proc.stop()
            if any("Traceback" in line for line in self.proc.log_lines):
                say("the server logged a traceback:")
                for line in self.proc.log_lines[-20:]:
                    say("  ", line)
            say(f"server stopped (exit {code})")


def _alive(proc: psutil.Process) -> bool:
    try:
        return proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


# ---------------------------------------------------------------------------------------
# fuzz


def _junk(rng: random.Random) -> Any:
    """A JSON value of any type and shape."""
    kind = rng.randrange(12)
    if kind == 0:
        return rng.randint(-(2**70), 2**70)
    if kind == 1:
        return rng.random() * 10 ** rng.randint(-5, 30) * rng.choice((1, -1))
    if kind == 2:
        return "".join(rng.choice(string.printable) for _ in range(rng.randrange(40)))
    if kind == 3:
        return (
            "".join(chr(rng.randrange(0x110000)) for _ in range(rng.randrange(12)))
            .encode("utf-8", "replace")
            .decode("utf-8", "replace")
        )
    if kind == 4:
        return None
    if kind == 5:
        return rng.choice((True, False))
    if kind == 6:
        return [_junk(rng) for _ in range(rng.randrange(4))]
    if kind == 7:
        return {
            rng.choice(("a", "level", "moves", "")): _junk(rng) for _ in range(rng.randrange(3))
        }
    if kind == 8:
        return "x" * rng.choice((255, 256, 257, 1000, 70_000))
    if kind == 9:
        return rng.choice(("h3e3", "A@e3", "e1e3", "h3e3\ngo infinite", "quit", "", " ", "h3"))
    if kind == 10:
        return rng.randint(-2, 10)
    return rng.choice(("xiangqi", "atomic-xiangqi", "crazyhouse-xiangqi", "chess", "XIANGQI"))


def _fen(rng: random.Random) -> str:
    chars = list(START)
    for _ in range(rng.randint(1, 4)):
        chars[rng.randrange(len(chars))] = rng.choice("rnbakcpRNBAKCP123456789/ wb-[]@\n\x00")
    return "".join(chars)


def _bad_move_body(rng: random.Random) -> dict[str, Any]:
    body: dict[str, Any] = {
        "variant": rng.choice(("xiangqi", "atomic-xiangqi", "crazyhouse-xiangqi")),
        "level": rng.randint(1, 3),
        "moves": list(MOVES[: rng.randint(0, 4)]),
    }
    mutation = rng.randrange(7)
    if mutation == 0:
        body["moves"].insert(rng.randrange(len(body["moves"]) + 1), _junk(rng))
    elif mutation == 1:
        body["fen"] = _fen(rng)
    elif mutation == 2:
        body[rng.choice(("variant", "level", "seed", "moves", "fen"))] = _junk(rng)
    elif mutation == 3:
        body[rng.choice(("levle", "extra", "Variant"))] = _junk(rng)
    elif mutation == 4:
        del body[rng.choice(("variant", "level"))]
    elif mutation == 5:
        body["moves"] = [
            rng.choice(("h3e3", "h10g8", "a1a2", "b3e3", "A@e3")) for _ in range(rng.randint(1, 12))
        ]
    else:
        body["moves"] = ["h3e3"] * rng.choice((1001, 5000))
    return body


def _fuzz_request(rng: random.Random) -> tuple[str, str, bytes, dict[str, str]]:
    """(method, path, body, headers) of one bad request."""
    json_type = {"content-type": "application/json"}
    kind = rng.randrange(10)
    if kind < 5:
        return "POST", "/v1/move", json.dumps(_bad_move_body(rng)).encode(), json_type
    if kind == 5:
        body = _bad_move_body(rng)
        body.pop("level", None)
        return "POST", "/v1/position", json.dumps(body).encode(), json_type
    if kind == 6:  # not JSON, or cut short
        raw = json.dumps(_bad_move_body(rng)).encode()
        return (
            "POST",
            rng.choice(("/v1/move", "/v1/position")),
            raw[: rng.randrange(len(raw))],
            json_type,
        )
    if kind == 7:  # another content type, or none
        kind_header = rng.choice(
            (
                "text/plain",
                "application/x-www-form-urlencoded",
                "",
                "application/json; charset=latin-1",
            )
        )
        headers = {"content-type": kind_header} if kind_header else {}
        return "POST", "/v1/move", json.dumps(_bad_move_body(rng)).encode(), headers
    if kind == 8:  # a path or method that is not there
        method = rng.choice(("GET", "PUT", "DELETE", "PATCH", "POST", "OPTIONS"))
        path = rng.choice(
            (
                "/v1/move/",
                "/v1/",
                "/v2/move",
                "/v1/levels/9",
                "/%00",
                "/../etc/passwd",
                "/v1/move?x=" + "y" * 100,
            )
        )
        return method, path, b"", {}
    return (
        "POST",
        "/v1/move",
        bytes(rng.randrange(256) for _ in range(rng.randrange(200))),
        json_type,
    )


def _raw_garbage(rng: random.Random) -> bytes:
    """Bytes that are not a valid HTTP/1.1 request."""
    return rng.choice(
        (
            b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03",  # a TLS hello
            b"GET / HTTP/9.9\r\n\r\n",
            b"POST /v1/move HTTP/1.1\r\nContent-Length: -5\r\n\r\n",
            b"POST /v1/move HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            b"GET /healthz HTTP/1.1\r\nBad Header\r\n\r\n",
            bytes(rng.randrange(256) for _ in range(64)) + b"\r\n\r\n",
        )
    )


def _raw_status(host: str, port: int, data: bytes) -> int:
    with socket.create_connection((host, port), timeout=30) as sock:
        sock.sendall(data)
        with contextlib.suppress(ConnectionResetError):
            head = sock.recv(64)
            if head.startswith(b"HTTP/1."):
                return int(head.split()[1])
    return 0  # closed without an answer


def cmd_fuzz(args: argparse.Namespace) -> int:
    target = Target(args, [])
    rng = random.Random(args.seed)
    statuses: Counter[int] = Counter()
    codes: Counter[str] = Counter()
    bad: list[str] = []
    try:
        with httpx.Client(base_url=target.url, timeout=60) as client:
            for i in range(1, args.requests + 1):
                if rng.random() < 0.05:
                    status = _raw_status(target.host, target.port, _raw_garbage(rng))
                    statuses[status] += 1
                else:
                    method, path, body, headers = _fuzz_request(rng)
                    r = client.request(method, path, content=body, headers=headers)
                    statuses[r.status_code] += 1
                    if r.status_code >= 400:
                        try:
                            codes[r.json()["error"]["code"]] += 1
                        except (ValueError, KeyError, TypeError):
                            bad.append(f"{r.status_code} not the JSON envelope: {r.text[:100]!r}")
                    status = r.status_code
                if status >= 500:
                    bad.append(f"{status} for request {i}")
                if i % 500 == 0:
                    say(f"  {i}/{args.requests} sent; by status {dict(sorted(statuses.items()))}")
        alive = target.alive()
    finally:
        target.stop()
    say(f"fuzz: {args.requests} bad requests, by status: {dict(sorted(statuses.items()))}")
    say(f"  error codes: {dict(codes.most_common())}")
    say(f"  5xx or no envelope: {len(bad)}; server alive afterwards: {alive}")
    for line in bad[:10]:
        say("   ", line)
    return 0 if not bad and alive else 1


# ---------------------------------------------------------------------------------------
# load (kill, soak)


class Load:
    """Closed-loop load from `clients` asyncio connections until `stop` is set; per
    request (status, code, seconds)."""

    def __init__(self, url: str, clients: int, levels: list[int], rng: random.Random) -> None:
        self.url, self.clients, self.levels, self.rng = url, clients, levels, rng
        self.results: list[tuple[int, str, float]] = []
        self.stop = asyncio.Event()

    async def run(self) -> None:
        async with httpx.AsyncClient(base_url=self.url, timeout=120) as client:
            await asyncio.gather(*(self._client(client, i) for i in range(self.clients)))

    async def _client(self, client: httpx.AsyncClient, index: int) -> None:
        seed = index * 1_000_000
        while not self.stop.is_set():
            seed += 1
            body = {
                "variant": "xiangqi",
                "moves": MOVES,
                "level": self.rng.choice(self.levels),
                "seed": seed,
            }
            t0 = time.perf_counter()
            try:
                r = await client.post("/v1/move", json=body)
                code = "" if r.status_code == 200 else str(r.json().get("error", {}).get("code"))
                self.results.append((r.status_code, code, time.perf_counter() - t0))
            except httpx.TransportError as exc:
                self.results.append((0, type(exc).__name__, time.perf_counter() - t0))


def cmd_kill(args: argparse.Namespace) -> int:
    target = Target(args, [])
    rng = random.Random(args.seed)
    killed = 0

    async def main() -> None:
        nonlocal killed
        load = Load(target.url, args.clients, [1, 2, 3, 4], rng)
        runner = asyncio.create_task(load.run())
        end = time.monotonic() + args.seconds
        while time.monotonic() < end:
            await asyncio.sleep(args.every)
            engines = target.engines()
            if engines:
                victim = rng.choice(engines)
                with contextlib.suppress(psutil.Error):
                    victim.send_signal(signal.SIGKILL)
                    killed += 1
            ok = sum(1 for r in load.results if r[0] == 200)
            say(
                f"  {time.monotonic() - end + args.seconds:5.0f} s: {killed} engines killed, "
                f"{len(load.results)} requests, {ok} ok"
            )
        load.stop.set()
        await runner
        results.extend(load.results)

    results: list[tuple[int, str, float]] = []
    try:
        asyncio.run(main())
        restarts = target.metric("ladder_engine_restarts_total")
        engines_after = len(target.engines())
        alive = target.alive()
    finally:
        target.stop()
    ok = [s for status, _, s in results if status == 200]
    failed = Counter(f"{status} {code}" for status, code, _ in results if status != 200)
    every = [s for _, _, s in results]
    say(
        f"kill: {args.seconds} s, {args.clients} clients, levels 1-4, {args.engines} engines, "
        f"SIGKILL every {args.every:g} s: {killed} engines killed, {restarts:.0f} restarts"
    )
    say(
        f"  requests {len(results)}, ok {len(ok)}, failed {sum(failed.values())} "
        f"({100 * sum(failed.values()) / max(1, len(results)):.2f} %): {dict(failed)}"
    )
    say(
        f"  latency ok: p50 {pct(ok, 0.5) * 1000:.1f} ms, p99 {pct(ok, 0.99) * 1000:.1f} ms; "
        f"all: p50 {pct(every, 0.5) * 1000:.1f} ms, p99 {pct(every, 0.99) * 1000:.1f} ms, "
        f"max {max(every, default=0) * 1000:.0f} ms"
    )
    say(f"  afterwards: server alive {alive}, engines running {engines_after}")
    unclean = sum(n for key, n in failed.items() if not key.startswith(("502", "503")))
    return 0 if alive and engines_after == args.engines and not unclean else 1


def cmd_soak(args: argparse.Namespace) -> int:
    target = Target(args, [])
    rng = random.Random(args.seed)
    samples: list[tuple[float, int, int, list[int]]] = []

    async def main() -> None:
        load = Load(target.url, args.clients, [1, 2, 3, 4, 5, 6], rng)
        runner = asyncio.create_task(load.run())
        start = time.monotonic()
        end = start + args.minutes * 60
        say(f"  {'t s':>5} {'requests':>9} {'server MiB':>10}  engines MiB")
        while True:
            server, engines = target.rss()
            samples.append((time.monotonic() - start, len(load.results), server, engines))
            t, n = samples[-1][0], samples[-1][1]
            say(f"  {t:5.0f} {n:9d} {mib(server):>10}  {' '.join(mib(e) for e in engines)}")
            if time.monotonic() >= end:
                break
            await asyncio.sleep(min(args.every, max(0.0, end - time.monotonic())))
        load.stop.set()
        await runner
        results.extend(load.results)

    results: list[tuple[int, str, float]] = []
    try:
        asyncio.run(main())
        alive = target.alive()
    finally:
        target.stop()
    servers = [s for _, _, s, _ in samples]
    engine_totals = [sum(e) for _, _, _, e in samples]
    statuses = Counter(status for status, _, _ in results)
    warm = len(samples) // 5  # after the first fifth: caches and pools have filled
    say(
        f"soak: {args.minutes:g} min, {args.clients} clients, levels 1-6: {len(results)} requests, "
        f"by status {dict(statuses)}"
    )
    say(
        f"  server RSS: start {mib(servers[0])} MiB, after warm-up {mib(servers[warm])}, "
        f"max {mib(max(servers))}, end {mib(servers[-1])}"
    )
    say(
        f"  engines RSS (sum): start {mib(engine_totals[0])} MiB, after warm-up "
        f"{mib(engine_totals[warm])}, max {mib(max(engine_totals))}, end {mib(engine_totals[-1])}"
    )
    growth = servers[-1] - servers[warm]
    say(f"  server growth after warm-up: {mib(growth)} MiB; alive {alive}")
    return 0 if alive and statuses.get(500, 0) == 0 else 1


# ---------------------------------------------------------------------------------------
# disconnect


def cmd_disconnect(args: argparse.Namespace) -> int:
    target = Target(args, ["--request-timeout", str(args.request_timeout)])
    move = json.dumps({"variant": "xiangqi", "moves": MOVES, "level": 1, "seed": 1}).encode()
    requests = [
        b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
        b"POST /v1/move HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n%s" % (len(move), move),
    ]
    try:
        for i in range(args.normal):
            with socket.create_connection((target.host, target.port), timeout=30) as sock:
                sock.sendall(requests[i % 2])  # then close without reading, normally
            if (i + 1) % 50 == 0:
                say(f"  {i + 1}/{args.normal} normal-close disconnects; alive {target.alive()}")
        alive_after_normal = target.alive()
        say(f"  opening {args.slow} slow-loris connections (a partial head each)")
        slow = []
        for _ in range(args.slow):
            sock = socket.create_connection((target.host, target.port), timeout=30)
            sock.sendall(b"POST /v1/move HTTP/1.1\r\nHost: x\r\nContent-Le")
            slow.append(sock)
        served_meanwhile = target.alive()
        t0 = time.monotonic()
        answers: Counter[str] = Counter()
        for sock in slow:
            sock.settimeout(args.request_timeout * 3 + 30)
            try:
                data = sock.recv(64)
                answers[data.split(b"\r\n")[0].decode() if data else "closed"] += 1
            except TimeoutError:
                answers["still open"] += 1
            except ConnectionResetError:
                answers["reset"] += 1
            sock.close()
        took = time.monotonic() - t0
        alive = target.alive()
        open_now = target.metric("ladder_http_connections")
    finally:
        target.stop()
    say(f"disconnect: {args.normal} normal-close disconnects: server alive {alive_after_normal}")
    say(
        f"  {args.slow} slow-loris connections: answered {dict(answers)} within {took:.1f} s "
        f"(request timeout {args.request_timeout:g} s); others served meanwhile "
        f"{served_meanwhile}; "
        f"alive afterwards {alive}; open connections then {open_now:.0f} (the scrape's own)"
    )
    closed = sum(n for answer, n in answers.items() if answer != "still open")
    return 0 if alive_after_normal and alive and closed == args.slow else 1


# ---------------------------------------------------------------------------------------
# headers


class Mover:
    """Level-1 moves back to back over one keep-alive connection, with latencies."""

    def __init__(self, host: str, port: int) -> None:
        self.conn = http.client.HTTPConnection(host, port, timeout=120)
        self.body = json.dumps(
            {"variant": "xiangqi", "moves": MOVES, "level": 1, "seed": 1}
        ).encode()

    def move(self) -> float:
        t0 = time.perf_counter()
        self.conn.request(
            "POST", "/v1/move", body=self.body, headers={"content-type": "application/json"}
        )
        response = self.conn.getresponse()
        response.read()
        if response.status != 200:
            raise SystemExit(f"level-1 move answered {response.status}")
        return time.perf_counter() - t0


def _big_header(host: str, port: int, size: int) -> tuple[int, str]:
    """Send a request with a `size`-byte header; (bytes the server took, its answer)."""
    sent = 0
    with socket.create_connection((host, port), timeout=120) as sock:
        sock.sendall(
            b"POST /v1/move HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Big: "
        )
        chunk = b"a" * 65536
        try:
            while sent < size:
                sock.sendall(chunk)
                sent += len(chunk)
            body = b'{"variant": "xiangqi", "level": 1}'
            sock.sendall(b"\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
            answer = sock.recv(100).split(b"\r\n")[0].decode() or "closed"
        except (BrokenPipeError, ConnectionResetError) as exc:
            answer = type(exc).__name__
    return sent, answer


@contextlib.contextmanager
def _rss_peak(pid: int) -> Iterator[Callable[[], int]]:
    proc = psutil.Process(pid)
    peak = [proc.memory_info().rss]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.01):
            with contextlib.suppress(psutil.Error):
                peak[0] = max(peak[0], proc.memory_info().rss)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    try:
        yield lambda: peak[0]
    finally:
        done.set()
        thread.join()


def cmd_headers(args: argparse.Namespace) -> int:
    target = Target(args, [])
    mover = Mover(target.host, target.port)
    assert target.pid is not None
    try:
        for _ in range(20):
            mover.move()  # warm up
        baseline = [mover.move() for _ in range(args.moves)]
        rss_before = psutil.Process(target.pid).memory_info().rss
        during: list[float] = []
        taken: list[int] = []
        answers: Counter[str] = Counter()
        with _rss_peak(target.pid) as peak:
            for i in range(args.attacks):
                result: list[tuple[int, str]] = []

                def send_big(result: list[tuple[int, str]] = result) -> None:
                    result.append(_big_header(target.host, target.port, args.size))

                attack = threading.Thread(target=send_big)
                attack.start()
                while attack.is_alive():
                    during.append(mover.move())
                attack.join()
                sent, answer = result[0]
                taken.append(sent)
                answers[answer] += 1
                say(
                    f"  attack {i + 1}/{args.attacks}: {mib(sent)} MiB sent before the server's "
                    f"answer ({answer}); {len(during)} moves meanwhile"
                )
            rss_peak = peak()
        after = [mover.move() for _ in range(args.moves)]
        rss_after = psutil.Process(target.pid).memory_info().rss
    finally:
        target.stop()
    say(
        f"headers: {args.attacks} requests with a {mib(args.size)} MiB header, a level-1 move "
        f"client running alongside"
    )
    say(
        f"  level-1 latency: before p50 {pct(baseline, 0.5) * 1000:.2f} ms "
        f"p99 {pct(baseline, 0.99) * 1000:.2f}; "
        f"during p50 {pct(during, 0.5) * 1000:.2f} ms p99 {pct(during, 0.99) * 1000:.2f} "
        f"({len(during)} moves); after p50 {pct(after, 0.5) * 1000:.2f} ms"
    )
    say(
        f"  bytes taken per attack: median {mib(statistics.median(taken))} MiB "
        f"(the client's socket buffers included); answers {dict(answers)}"
    )
    say(f"  server RSS: before {mib(rss_before)} MiB, peak {mib(rss_peak)}, after {mib(rss_after)}")
    return 0 if max(taken) < args.size else 1


# ---------------------------------------------------------------------------------------
# lanes: a fast level under slow ones

KEY_A, KEY_B = "stress-key-a-0123456789", "stress-key-b-0123456789"


def _move(client: httpx.Client, key: str, level: int, seed: int) -> tuple[int, str, float]:
    body = {"variant": "xiangqi", "moves": MOVES, "level": level, "seed": seed}
    t0 = time.perf_counter()
    try:
        headers = {"authorization": f"Bearer {key}"} if key else {}
        r = client.post("/v1/move", json=body, headers=headers)
        code = "" if r.status_code == 200 else str(r.json().get("error", {}).get("code"))
        return r.status_code, code, time.perf_counter() - t0
    except httpx.TransportError as exc:
        return 0, type(exc).__name__, time.perf_counter() - t0


def _fast_series(url: str, count: int, seconds: float) -> list[tuple[int, str, float]]:
    """Key B's level-1 moves, one after another: `count` of them or `seconds`."""
    out: list[tuple[int, str, float]] = []
    end = time.monotonic() + seconds
    with httpx.Client(base_url=url, timeout=120) as client:
        while len(out) < count and time.monotonic() < end:
            out.append(_move(client, KEY_B, 1, len(out)))
    return out


def _lanes_round(args: argparse.Namespace, short_engines: int, keys: str) -> dict[str, Any]:
    extra = ["--api-keys", keys, "--short-engines", str(short_engines)]
    target = Target(args, extra)
    try:
        _fast_series(target.url, 20, 30)  # warm up
        idle = _fast_series(target.url, args.requests, args.seconds)
        stop = threading.Event()
        slow: list[tuple[int, str, float]] = []

        def slow_client(index: int) -> None:
            seed = index * 1_000_000
            with httpx.Client(base_url=target.url, timeout=300) as client:
                while not stop.is_set():
                    seed += 1
                    slow.append(_move(client, KEY_A, 8, seed))

        threads = [threading.Thread(target=slow_client, args=(i,)) for i in range(args.slow)]
        for t in threads:
            t.start()
        time.sleep(1.0)  # the level-8 requests are searching and queued
        t0 = time.monotonic()
        loaded = _fast_series(target.url, 10**9, args.seconds)
        window = time.monotonic() - t0
        slow_done = [r for r in slow if r[0] == 200]
        slow_in_window = len(slow_done)
        stop.set()
        for t in threads:
            t.join()
        load = os.getloadavg()[0]
    finally:
        target.stop()
    return {
        "idle": idle,
        "loaded": loaded,
        "window": window,
        "slow": slow,
        "slow_ok_in_window": slow_in_window,
        "load": load,
    }


def _latency(results: list[tuple[int, str, float]]) -> str:
    ok = [s for status, _, s in results if status == 200]
    return (
        f"{len(results)} requests, p50 {pct(ok, 0.5) * 1000:.1f} ms, p90 "
        f"{pct(ok, 0.9) * 1000:.1f} ms, p99 {pct(ok, 0.99) * 1000:.1f} ms, "
        f"max {max(ok, default=0) * 1000:.0f} ms"
    )


def cmd_lanes(args: argparse.Namespace) -> int:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        keys = os.path.join(folder, "keys.txt")
        with open(keys, "w") as out:
            out.write(f"{KEY_A} key-a\n{KEY_B} key-b\n")
        rounds = {}
        with calibration_paused():
            for short in (1, 0):
                say(f"--short-engines {short}: measuring")
                rounds[short] = _lanes_round(args, short, keys)
    ok = True
    say(
        f"lanes: {args.engines} engines; key A keeps {args.slow} level-8 requests running; "
        f"key B plays level-1 moves one at a time for {args.seconds:g} s (idle: {args.requests})"
    )
    for short, r in rounds.items():
        idle_ok = [s for st, _, s in r["idle"] if st == 200]
        loaded_ok = [s for st, _, s in r["loaded"] if st == 200]
        b_failed = Counter(f"{st} {c}" for st, c, _ in r["loaded"] if st != 200)
        a_failed = Counter(f"{st} {c}" for st, c, _ in r["slow"] if st != 200)
        ratio = pct(loaded_ok, 0.99) / pct(idle_ok, 0.99)
        say(f"  --short-engines {short} (load average {r['load']:.2f}):")
        say(f"    B idle:   {_latency(r['idle'])}")
        say(f"    B loaded: {_latency(r['loaded'])}; failed {dict(b_failed)}")
        say(f"    B p99 loaded / idle: {ratio:.2f}")
        say(
            f"    A level-8: {r['slow_ok_in_window']} answered in {r['window']:.0f} s "
            f"({60 * r['slow_ok_in_window'] / r['window']:.1f}/min); all A requests "
            f"{len(r['slow'])}, failed {dict(a_failed)}"
        )
        if short == 1:
            ok = ok and len(r["loaded"]) >= 300 and not b_failed and ratio <= 2.0
    return 0 if ok else 1


# ---------------------------------------------------------------------------------------
# freeze: a frozen idle engine


def cmd_freeze(args: argparse.Namespace) -> int:
    target = Target(args, [])
    found: list[float] = []
    at_once: list[float] = []
    after: list[float] = []
    not_ready_seen = 0
    try:
        with calibration_paused(), httpx.Client(base_url=target.url, timeout=120) as client:
            for n in range(args.rounds):
                engines = target.engines()
                victim = engines[0]
                old = {e.pid for e in engines}
                victim.send_signal(signal.SIGSTOP)
                t0 = time.monotonic()
                # --at-once: a move sent right away meets the frozen engine before any
                # check (the search timeout finds it); else the check is what finds it
                first = _move(client, "", 1, n) if args.at_once else (200, "", 0.0)
                at_once.append(first[2])
                while {e.pid for e in target.engines()} >= old:
                    health = client.get("/healthz").json()
                    not_ready_seen += not health["ready"]
                    if time.monotonic() - t0 > 60:
                        say("  never replaced within 60 s")
                        return 1
                    time.sleep(0.02)
                found.append(time.monotonic() - t0)
                with contextlib.suppress(psutil.Error):
                    victim.send_signal(signal.SIGCONT)
                while client.get("/healthz").json()["engines_live"] < args.engines:
                    time.sleep(0.02)
                later = _move(client, "", 1, 1000 + n)
                if first[0] != 200 or later[0] != 200:
                    say(f"  round {n + 1}: a move failed: {first[:2]}, {later[:2]}")
                    return 1
                after.append(later[2])
                say(
                    f"  round {n + 1}: replaced after {found[-1]:.2f} s; "
                    + (
                        f"a move sent at once {first[0]} in {at_once[-1] * 1000:.0f} ms, "
                        if args.at_once
                        else ""
                    )
                    + f"a move after the replacement {after[-1] * 1000:.0f} ms"
                )
            load = os.getloadavg()[0]
    finally:
        target.stop()
    say(
        f"freeze: {args.rounds} rounds, {args.engines} engines, load average {load:.2f}: "
        f"frozen idle engine replaced after {min(found):.2f}-{max(found):.2f} s (median "
        f"{statistics.median(found):.2f} s); "
        + (
            f"level-1 move sent at once: median {statistics.median(at_once) * 1000:.0f} ms, "
            f"max {max(at_once) * 1000:.0f} ms; "
            if args.at_once
            else ""
        )
        + f"level-1 move after the replacement: median {statistics.median(after) * 1000:.0f} ms; "
        f"/healthz not ready in {not_ready_seen} polls"
    )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--engines", type=int, default=2)
    parser.add_argument("--url", default=None, help="a running server instead of starting one")
    parser.add_argument(
        "--pid", type=int, default=None, help="its process id (for memory and engines)"
    )
    parser.add_argument("--seed", type=int, default=1)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("fuzz")
    p.add_argument("--requests", type=int, default=5000)
    p.set_defaults(func=cmd_fuzz)
    p = sub.add_parser("kill")
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--every", type=float, default=2.0)
    p.add_argument("--clients", type=int, default=4)
    p.set_defaults(func=cmd_kill)
    p = sub.add_parser("soak")
    p.add_argument("--minutes", type=float, default=10)
    p.add_argument("--every", type=float, default=30, help="seconds between RSS samples")
    p.add_argument("--clients", type=int, default=2)
    p.set_defaults(func=cmd_soak)
    p = sub.add_parser("disconnect")
    p.add_argument("--normal", type=int, default=200)
    p.add_argument("--slow", type=int, default=50)
    p.add_argument("--request-timeout", type=float, default=10.0)
    p.set_defaults(func=cmd_disconnect)
    p = sub.add_parser("headers")
    p.add_argument("--attacks", type=int, default=20)
    p.add_argument("--size", type=int, default=64 * 2**20)
    p.add_argument("--moves", type=int, default=200)
    p.set_defaults(func=cmd_headers)
    p = sub.add_parser("lanes")
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--requests", type=int, default=300, help="idle level-1 moves")
    p.add_argument("--slow", type=int, default=6, help="level-8 requests key A keeps running")
    p.set_defaults(func=cmd_lanes)
    p = sub.add_parser("freeze")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--at-once", action="store_true", help="send a move right after freezing")
    p.set_defaults(func=cmd_freeze)
    args = parser.parse_args()
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
