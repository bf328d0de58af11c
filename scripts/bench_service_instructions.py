#!/usr/bin/env python3
"""The server's own instructions per move over HTTP: a figure the machine's load does not move.

``scripts/bench_service.py`` part 1 times the server process's CPU per level-1 move,
which on a shared 2-core VM moves by half between runs (docs/service.md). This counts
instructions instead: ``ladder serve --engines 1`` runs under ``valgrind
--tool=callgrind`` with counting off; after ``--warmup`` requests it is switched on
(``callgrind_control -i on``) for ``--reps`` requests of bench_service's position, one
at a time through a minimal ``http.client`` connection, then off, and the count is
divided by the requests. The engine runs outside valgrind (it does not follow
children), so the figure is the server's Python, uvicorn, FastAPI and the level move,
and not the search.

``--tree DIR`` (repeatable) runs another checkout's ``ladder serve`` the same way
(``PYTHONPATH=DIR``, with DIR's ``.venv/bin/python`` if it has one), so two trees
compare side by side in one run; every tree must answer each level with the same move.
``--cpu-requests N`` then also times them, without valgrind: one server per tree,
requests alternating between them N times, the server process's CPU per request (what
instructions do not show: a C loop runs many of them a cycle, the interpreter few).

``--decompose`` says where a request's instructions go, each counted the same way:
the same move played in-process (``MoveService.move`` through the in-process
:class:`ladder.client.Ladder`, no HTTP: the rules checker, the queue, the engine's
lines and the level's choice), and a bare FastAPI app under the same uvicorn
(httptools, asyncio, no log) whose ``POST /v1/move`` reads the same JSON body and
answers a fixed body of the answer's size: the floor of any FastAPI endpoint here.

    .venv/bin/python scripts/bench_service_instructions.py [--levels 1,3] [--reps 200]
        [--tree ../other-checkout] [--levels-file FILE] [--cpu-requests 2000] [--decompose]

It needs ``valgrind`` (``apt-get install valgrind``) and takes about 15 s a level and tree.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import uvicorn
from bench_service import MOVES, VARIANT, engine, free_port, process_cpu  # scripts/ is on the path
from fastapi import FastAPI, Request, Response  # at the top: the routes' annotations name them

from ladder.client import Ladder, wait_until_healthy

HERE = Path(__file__).resolve().parent.parent
_TOTALS = re.compile(r"^totals: (\d+)", re.MULTILINE)


class TreeServer:
    """``ladder serve --engines 1`` of one tree; with ``out_dir``, under callgrind with
    counting switched off (its output files there)."""

    def __init__(
        self, tree: Path, exe: Path, out_dir: Path | None = None, levels_file: Path | None = None
    ) -> None:
        python = tree / ".venv" / "bin" / "python"
        if not python.exists():
            python = Path(sys.executable)
        self.port = free_port()
        self.out = (out_dir or Path()) / f"callgrind.{self.port}"
        env = {**os.environ, "LADDER_ENGINE": str(exe), "PYTHONPATH": str(tree)}
        command = [
            str(python), "-m", "ladder.cli", "serve", "--port", str(self.port), "--engines", "1",
        ]  # fmt: skip
        if levels_file is not None:
            command += ["--levels", str(levels_file)]
        if out_dir is not None:
            command = [*under_callgrind(self.out), *command]
        self.proc = subprocess.Popen(  # in the tree: `python -m` puts the cwd first on the path
            command, cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        url = f"http://127.0.0.1:{self.port}"
        if not wait_until_healthy(url, 180, alive=lambda: self.proc.poll() is None):
            self.stop()
            raise RuntimeError(f"ladder serve of {tree} did not start")
        self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)

    def move(self, level: int) -> str:
        body = json.dumps({"variant": VARIANT, "moves": MOVES, "level": level, "seed": 1})
        self.conn.request("POST", "/v1/move", body, {"content-type": "application/json"})
        response = self.conn.getresponse()
        answer = json.loads(response.read())
        if response.status != 200:
            raise RuntimeError(f"level {level}: HTTP {response.status}: {answer}")
        return str(answer["move"])

    def _control(self, *args: str) -> None:
        subprocess.run(
            ["callgrind_control", *args, str(self.proc.pid)], check=True, capture_output=True
        )

    def counted(self, level: int, warmup: int, reps: int) -> tuple[float, str]:
        """Instructions per request over ``reps`` requests after ``warmup``; the move."""
        moves = {self.move(level) for _ in range(warmup)}
        for old in self.out.parent.glob(self.out.name + ".*"):
            old.unlink()
        self._control("-z")  # zero what counting may have left
        self._control("-i", "on")
        for _ in range(reps):
            moves.add(self.move(level))
        self._control("-i", "off")
        self._control("-d")
        if len(moves) != 1:
            raise RuntimeError(f"level {level}: the same request gave moves {sorted(moves)}")
        return callgrind_total(self.out) / reps, moves.pop()

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def callgrind_total(out: Path) -> int:
    """The instruction count of callgrind's last dump of ``out`` (``out.N``)."""
    dumps = sorted(out.parent.glob(out.name + ".*"), key=lambda f: int(f.suffix[1:]))
    found = _TOTALS.search(dumps[-1].read_text()) if dumps else None
    if found is None:
        raise RuntimeError(f"no instruction count in {dumps}")
    return int(found.group(1))


def under_callgrind(out: Path) -> list[str]:
    """valgrind's command line: callgrind, counting off until switched on, into ``out``."""
    return ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}"]


def in_process_count(level: int, warmup: int, reps: int) -> None:
    """(Run under callgrind by :func:`in_process`.) The move played ``reps`` times by an
    in-process :class:`Ladder` with one engine, counting switched on around them."""

    def control(*args: str) -> None:
        subprocess.run(["callgrind_control", *args, str(os.getpid())], check=True)

    async def run() -> None:
        async with Ladder(engines=1) as ladder:
            for _ in range(warmup):
                await ladder.move(variant=VARIANT, moves=MOVES, level=level, seed=1)
            # callgrind_control waits for this process to answer: from another thread
            await asyncio.to_thread(control, "-z")
            await asyncio.to_thread(control, "-i", "on")
            for _ in range(reps):
                await ladder.move(variant=VARIANT, moves=MOVES, level=level, seed=1)
            await asyncio.to_thread(control, "-i", "off")
            await asyncio.to_thread(control, "-d")

    asyncio.run(run())


def in_process(exe: Path, level: int, warmup: int, reps: int, tmp: Path) -> float:
    """Instructions per in-process move (no HTTP) at ``level``."""
    out = tmp / f"callgrind.in-process.{level}"
    command = [sys.executable, __file__, "--in-process-count", str(level), str(warmup), str(reps)]
    env = {**os.environ, "LADDER_ENGINE": str(exe), "PYTHONPATH": str(HERE)}
    subprocess.run(
        [*under_callgrind(out), *command], check=True, env=env, cwd=HERE,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    return callgrind_total(out) / reps


def floor_app(port: int, answer_size: int) -> None:
    """(Run under callgrind by :func:`floor`.) A bare FastAPI app under uvicorn as
    ``ladder serve`` runs it (httptools, asyncio, no access log)."""
    app = FastAPI()
    answer = json.dumps({"move": "x" * max(0, answer_size - 12)}).encode()

    @app.post("/v1/move")
    async def move(request: Request) -> Response:
        json.loads(await request.body())
        return Response(answer, media_type="application/json")

    @app.get("/healthz")
    async def healthz() -> dict[str, bool]:
        return {"ready": True}

    uvicorn.run(app, host="127.0.0.1", port=port, http="httptools", loop="asyncio",
                log_level="warning", access_log=False)  # fmt: skip


def floor(warmup: int, reps: int, answer_size: int, tmp: Path) -> float:
    """Instructions per ``POST /v1/move`` of :func:`floor_app`."""
    port = free_port()
    out = tmp / "callgrind.floor"
    command = [sys.executable, __file__, "--floor-app", str(port), str(answer_size)]
    proc = subprocess.Popen(
        [*under_callgrind(out), *command], cwd=HERE,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        url = f"http://127.0.0.1:{port}"
        if not wait_until_healthy(url, 180, alive=lambda: proc.poll() is None):
            raise RuntimeError("the bare FastAPI app did not start")
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        body = json.dumps({"variant": VARIANT, "moves": MOVES, "level": 1, "seed": 1})

        def post() -> None:
            conn.request("POST", "/v1/move", body, {"content-type": "application/json"})
            conn.getresponse().read()

        def control(*args: str) -> None:
            subprocess.run(["callgrind_control", *args, str(proc.pid)], check=True,
                           capture_output=True)  # fmt: skip

        for _ in range(warmup):
            post()
        control("-z")
        control("-i", "on")
        for _ in range(reps):
            post()
        control("-i", "off")
        control("-d")
        return callgrind_total(out) / reps
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def decompose(
    exe: Path, levels: list[int], over_http: dict[int, float], args: argparse.Namespace
) -> None:
    """Where a request's instructions go: in-process, HTTP, and the bare floor."""
    with tempfile.TemporaryDirectory() as tmp:
        size = len(json.dumps(_answer(exe, levels[0])))
        bare = floor(args.warmup, args.reps, size, Path(tmp))
        print(f"\n{'level':>5} {'over HTTP':>10} {'in-process':>11} {'HTTP layer':>11}")
        for level in levels:
            inside = in_process(exe, level, args.warmup, args.reps, Path(tmp))
            total = over_http[level]
            cells = (f"{n / 1e6:.3f}M" for n in (total, inside, total - inside))
            print(
                f"{level:5d} "
                + " ".join(f"{c:>{w}}" for c, w in zip(cells, (10, 11, 11), strict=True))
            )
    print(
        "in-process: the same move by an in-process Ladder (MoveService.move, no HTTP); "
        "HTTP layer: the difference (uvicorn, FastAPI, the middlewares, the access log); "
        f"a bare FastAPI POST endpoint under the same uvicorn: {bare / 1e6:.3f}M"
    )


def _answer(exe: Path, level: int) -> dict[str, Any]:
    """The server's answer to the bench's request (its size sizes the floor's)."""
    server = TreeServer(HERE, exe)
    try:
        body = json.dumps({"variant": VARIANT, "moves": MOVES, "level": level, "seed": 1})
        server.conn.request("POST", "/v1/move", body, {"content-type": "application/json"})
        answer: dict[str, Any] = json.loads(server.conn.getresponse().read())
        return answer
    finally:
        server.stop()


def cpu_side_by_side(
    trees: list[Path], exe: Path, level: int, requests: int, levels_file: Path | None = None
) -> None:
    """The trees' servers (no valgrind) timed side by side: ``requests`` requests each,
    alternating between them one by one, so that a change of the machine's speed hits
    all alike; the server process's CPU per request (bench_service's ``process_cpu``)."""
    servers = [TreeServer(tree, exe, levels_file=levels_file) for tree in trees]
    try:
        for server in servers:
            for _ in range(30):
                server.move(level)
        cpu = [0.0] * len(servers)
        for _ in range(requests):
            for i, server in enumerate(servers):
                before = process_cpu(server.proc.pid)
                server.move(level)
                cpu[i] += process_cpu(server.proc.pid) - before
    finally:
        for server in servers:
            server.stop()
    for tree, seconds in zip(trees, cpu, strict=True):
        per_request = seconds / requests * 1000
        print(f"{tree!s:<40} {level:5d} {per_request:17.3f} ms {seconds / cpu[0]:6.3f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--levels", default="1", help="comma-separated levels (default 1)")
    ap.add_argument("--reps", type=int, default=200, help="requests counted per level")
    ap.add_argument("--warmup", type=int, default=30, help="requests before counting")
    ap.add_argument("--tree", type=Path, action="append", default=[], help="another checkout")
    ap.add_argument(
        "--cpu-requests",
        type=int,
        default=0,
        metavar="N",
        help="also time the trees side by side, without valgrind: N requests each, alternating",
    )
    ap.add_argument(
        "--decompose",
        action="store_true",
        help="also count the move in-process (no HTTP) and a bare FastAPI endpoint",
    )
    ap.add_argument(
        "--levels-file",
        type=Path,
        default=None,
        help="every tree serves this levels file (`ladder serve --levels`; default: each "
        "tree's shipped one), e.g. the file as an issue found it",
    )
    args = ap.parse_args(argv)
    levels_file = args.levels_file.resolve() if args.levels_file else None
    if levels_file is not None and args.decompose:
        ap.error("--decompose counts the shipped levels only: drop --levels-file")
    for tool in ("valgrind", "callgrind_control"):
        if shutil.which(tool) is None:
            print(f"{tool} is not installed (apt-get install valgrind)", file=sys.stderr)
            return 2
    levels = [int(x) for x in args.levels.split(",")]
    trees = [HERE, *(t.resolve() for t in args.tree)]
    exe = engine()
    print(f"engine: {exe}\nposition: {VARIANT} after {' '.join(MOVES)}")
    print(f"{'tree':<40} {'level':>5} {'instructions/request':>21} {'ratio':>6}  move")
    over_http: dict[int, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for level in levels:
            first: tuple[float, str] | None = None
            for tree in trees:
                server = TreeServer(tree, exe, Path(tmp), levels_file)
                try:
                    per_request, move = server.counted(level, args.warmup, args.reps)
                finally:
                    server.stop()
                first = first or (per_request, move)
                over_http.setdefault(level, per_request)
                if move != first[1]:
                    print(f"{tree} answers {move}, {trees[0]} {first[1]}", file=sys.stderr)
                    return 1
                ratio = per_request / first[0]
                print(f"{tree!s:<40} {level:5d} {per_request / 1e6:20.3f}M {ratio:6.3f}  {move}")
    print(
        f"the server process's instructions per POST /v1/move ({args.reps} requests after"
        f" {args.warmup}; the engine outside valgrind); ratio: against the first tree"
    )
    if args.decompose:
        decompose(exe, levels, over_http, args)
    if args.cpu_requests > 0:
        print(f"\n{'tree':<40} {'level':>5} {'server CPU/request':>20} {'ratio':>6}")
        for level in levels:
            cpu_side_by_side(trees, exe, level, args.cpu_requests, levels_file)
        print(
            f"the server process's CPU per request, {args.cpu_requests} requests per tree"
            " alternating between the trees; ratio: against the first tree"
        )
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--in-process-count"]:  # the decomposition's own runs
        in_process_count(*(int(x) for x in sys.argv[2:5]))
    elif sys.argv[1:2] == ["--floor-app"]:
        floor_app(int(sys.argv[2]), int(sys.argv[3]))
    else:
        sys.exit(main())
