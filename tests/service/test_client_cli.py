"""The Python client (async, blocking, in-process) and the `ladder` subcommands."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import httpx
import psutil
import pytest

from ladder.client import Ladder, LadderSync, wait_until_healthy
from ladder.service.config import ServiceConfig
from ladder.service.errors import ServiceError

from .helpers import ROOT, Server, check_move_reply, service_engine


async def test_async_client(server: Server) -> None:
    async with Ladder(base_url=server.url) as ladder:
        reply = await ladder.move(variant="xiangqi", moves=["h3e3"], level=3, seed=4)
        check_move_reply("xiangqi", ["h3e3"], reply.model_dump())
        pos = await ladder.position(variant="xiangqi", moves=["h3e3", reply.move])
        assert pos.fen == reply.fen
        assert len((await ladder.levels()).levels["xiangqi"]) == 8
        assert (await ladder.variants()).variants[0].id == "xiangqi"
        assert (await ladder.health()).engines == 2
        with pytest.raises(ServiceError) as err:
            await ladder.move(variant="xiangqi", moves=["h3e3", "h3e3"], level=3)
        assert err.value.status == 422 and err.value.ply == 2
        with pytest.raises(ServiceError) as err:
            await ladder.move(variant="xiangqi", level=9)
        assert err.value.status == 422 and err.value.field == "level"


def test_blocking_client(server: Server) -> None:
    with LadderSync(server.url) as ladder:
        a = ladder.move(variant="atomic-xiangqi", moves=["h3e3"], level=2, seed=11)
        b = ladder.move(variant="atomic-xiangqi", moves=["h3e3"], level=2, seed=11)
        assert a.move == b.move
        check_move_reply("atomic-xiangqi", ["h3e3"], a.model_dump())


async def test_in_process_same_as_http(server: Server) -> None:
    cfg = ServiceConfig(engines=1, engine_path=service_engine())
    async with Ladder(config=cfg) as local, Ladder(base_url=server.url) as remote:
        for variant, level in (("xiangqi", 1), ("crazyhouse-xiangqi", 3)):
            a = await local.move(variant=variant, moves=["h3e3"], level=level, seed=5)
            b = await remote.move(variant=variant, moves=["h3e3"], level=level, seed=5)
            assert (a.move, a.score, a.fen) == (b.move, b.score, b.fen)
        with pytest.raises(ServiceError) as err:
            await local.move(variant="xiangqi", fen="bad", level=1)
        assert err.value.status == 422 and err.value.field == "fen"


def _ladder(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MISTBOARD_ENGINE": str(service_engine())}
    return subprocess.run(
        [sys.executable, "-m", "ladder.cli", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_cli_move_in_process_and_url(server: Server) -> None:
    local = _ladder(
        "move",
        "--variant",
        "xiangqi",
        "--moves",
        "h3e3 h10g8",
        "--level",
        "2",
        "--seed",
        "3",
        "--json",
    )
    assert local.returncode == 0, local.stderr
    reply = json.loads(local.stdout)
    check_move_reply("xiangqi", ["h3e3", "h10g8"], reply)
    remote = _ladder(
        "move",
        "--variant",
        "xiangqi",
        "--moves",
        "h3e3 h10g8",
        "--level",
        "2",
        "--seed",
        "3",
        "--url",
        server.url,
    )
    assert remote.returncode == 0, remote.stderr
    assert remote.stdout.split()[0] == reply["move"]
    bad = _ladder(
        "move", "--variant", "xiangqi", "--moves", "h3e3 h3e3", "--level", "2", "--url", server.url
    )
    assert bad.returncode == 2 and "ply 2" in bad.stderr


def test_cli_levels() -> None:
    out = _ladder("levels")
    assert out.returncode == 0 and "crazyhouse-xiangqi" in out.stdout
    data = json.loads(_ladder("levels", "--json").stdout)
    assert [lv["level"] for lv in data["xiangqi"]] == list(range(1, 9))


def test_cli_serve() -> None:
    """`ladder serve` starts uvicorn with the engines and stops cleanly on SIGTERM."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "MISTBOARD_ENGINE": str(service_engine())}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ladder.cli",
            "serve",
            "--port",
            str(port),
            "--engines",
            "1",
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        assert wait_until_healthy(url, 60, alive=lambda: proc.poll() is None)
        assert httpx.get(url + "/healthz").json()["engines"] == 1
        engines = psutil.Process(proc.pid).children(recursive=True)
        assert len(engines) == 1
    finally:
        proc.terminate()
        # uvicorn shuts down gracefully, then re-raises the signal: exit status -SIGTERM.
        assert proc.wait(timeout=20) in (0, -signal.SIGTERM)
    psutil.wait_procs(engines, timeout=5)
    assert not any(p.is_running() and p.status() != psutil.STATUS_ZOMBIE for p in engines)
