"""Helpers of the service tests: a real uvicorn server in a subprocess, on a loopback
ephemeral port, with real engine processes; checking answers against the rules."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest

from ladder.client import wait_until_healthy
from ladder.engine_binary import DEFAULT_ENGINE, UNPATCHED_ENGINE
from ladder.rules import Game

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 60.0


def service_engine() -> Path:
    """The engine the service tests run: $MISTBOARD_ENGINE, else the patched build,
    else (during development, before `make engine` built it) the unpatched reference."""
    env = os.environ.get("MISTBOARD_ENGINE")
    if env:
        return Path(env).resolve()
    for path in (DEFAULT_ENGINE, UNPATCHED_ENGINE):
        if path.exists():
            return path.resolve()
    pytest.fail("no engine built: run `make engine`")


@dataclass
class Server:
    """A running service subprocess."""

    proc: subprocess.Popen[str]
    url: str
    seen_engines: set[int] = field(default_factory=set)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def engine_pids(self) -> list[int]:
        """Pids of the engine processes the server runs now (remembered for the leak
        check at shutdown)."""
        try:
            kids = psutil.Process(self.proc.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            return []
        pids = [k.pid for k in kids if k.is_running() and k.status() != psutil.STATUS_ZOMBIE]
        self.seen_engines.update(pids)
        return pids

    def client(self, **kw: Any) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=kw.pop("timeout", 120.0), **kw)

    def stop(self) -> None:
        """SIGTERM, wait, and check that no engine process outlived the server."""
        self.engine_pids()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
                pytest.fail("server did not stop within 20 s of SIGTERM")
        deadline = time.monotonic() + 5
        leaked = self._alive(self.seen_engines)
        while leaked and time.monotonic() < deadline:
            time.sleep(0.1)
            leaked = self._alive(self.seen_engines)
        assert not leaked, f"engine processes outlived the server: {leaked}"

    @staticmethod
    def _alive(pids: set[int]) -> list[int]:
        out = []
        for pid in pids:
            try:
                p = psutil.Process(pid)
                if p.status() != psutil.STATUS_ZOMBIE:
                    out.append(pid)
            except psutil.NoSuchProcess:
                pass
        return out


def start_server(**config: Any) -> Server:
    """Start `tests.service.server_main` with this ServiceConfig; wait until healthy."""
    config.setdefault("engine_path", str(service_engine()))
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.service.server_main", json.dumps(config)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ},
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line.startswith("PORT "):
        proc.kill()
        proc.wait()
        pytest.fail(f"server did not start: {line!r}")
    server = Server(proc, f"http://127.0.0.1:{int(line.split()[1])}")
    if not wait_until_healthy(server.url, START_TIMEOUT, alive=lambda: proc.poll() is None):
        server.stop()
        pytest.fail("server did not become healthy")
    server.engine_pids()
    return server


def check_move_reply(
    variant: str, moves: list[str], reply: dict[str, Any], fen: str | None = None
) -> None:
    """Check an answer against the rules checker: legal, and fen/check/outcome right."""
    game = Game.from_fen(variant, fen, moves)
    assert reply["move"] in game.legal_moves(), reply
    game.push(reply["move"])
    assert reply["fen"] == game.fen()
    assert reply["gives_check"] == game.is_check()
    outcome = game.outcome()
    if outcome is None:
        assert reply["outcome"] is None
    else:
        assert reply["outcome"]["result"] == outcome.result
        assert reply["outcome"]["reason"] == str(outcome.reason)
    if reply["ponder"] is not None and outcome is None:
        assert reply["ponder"] in game.legal_moves()
    score = reply["score"]
    # cp or mate; neither for a move the variety rule drew at random outside the lines
    # the engine searched (levels with `random_move_pct`)
    assert score["cp"] is None or score["mate"] is None
