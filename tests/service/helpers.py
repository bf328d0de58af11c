"""Helpers of the service tests: `ladder serve` started as a subprocess (the door an
operator uses) on a loopback ephemeral port, with real engine processes; checking
answers against the rules."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest
from prometheus_client.parser import text_string_to_metric_families

from ladder.engine_binary import DEFAULT_ENGINE, UNPATCHED_ENGINE
from ladder.rules import Game
from ladder.service.operations.launch import ServeProcess, ladder_command

ROOT = Path(__file__).resolve().parents[2]

# A position past every variant's opening book (tests/level_engine/test_book.py checks it): a
# request
# that must reach an engine plays from here, since a book move is answered without one.
OUT_OF_BOOK = ["h3e3", "a10a9"]


def service_engine() -> Path:
    """The engine the service tests run: $LADDER_ENGINE, else the patched build,
    else (during development, before `make engine` built it) the unpatched reference."""
    env = os.environ.get("LADDER_ENGINE")
    if env:
        return Path(env).resolve()
    for path in (DEFAULT_ENGINE, UNPATCHED_ENGINE):
        if path.exists():
            return path.resolve()
    pytest.fail("no engine built: run `make engine`")


def run_ladder(*args: str, timeout: float = 120, **env: str) -> subprocess.CompletedProcess[str]:
    """The `ladder` command (the console script) as a user runs it, with the service
    tests' engine (``env`` added to the environment)."""
    return subprocess.run(
        [*ladder_command(), *args],
        cwd=ROOT,
        env={**os.environ, "LADDER_ENGINE": str(service_engine()), **env},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


class Server(ServeProcess):
    """A running `ladder serve`; :meth:`stop` also checks that no engine outlived it."""

    def __init__(self, args: list[str] | None = None, **kwargs: Any) -> None:
        # No pause with readiness off at each stop (tests/service/operations/test_drain.py has it).
        kwargs.setdefault("env", {"LADDER_ENGINE": str(service_engine())})
        kwargs["env"].setdefault("LADDER_DRAIN_DELAY", "0")
        kwargs.setdefault("cwd", ROOT)
        super().__init__(args or [], **kwargs)
        self.seen_engines: set[int] = set()

    def engine_pids(self) -> list[int]:
        """Pids of the engine processes the server runs now (remembered for the leak
        check at shutdown)."""
        pids = super().engine_pids()
        self.seen_engines.update(pids)
        return pids

    def client(self, **kw: Any) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=kw.pop("timeout", 120.0), **kw)

    @property
    def host_port(self) -> tuple[str, int]:
        host, port = self.url.removeprefix("http://").rsplit(":", 1)
        return host, int(port)

    def connect(self) -> socket.socket:
        """A raw TCP connection to the server."""
        return socket.create_connection(self.host_port, timeout=60)

    def health(self) -> dict[str, Any]:
        return dict(httpx.get(self.url + "/healthz", timeout=30).json())

    def wait_health(
        self, ok: Callable[[dict[str, Any]], bool], timeout: float = 60
    ) -> dict[str, Any]:
        """Poll /healthz until `ok` says yes (an event the server reports, not a delay)."""
        deadline = time.monotonic() + timeout
        while True:
            health = self.health()
            if ok(health):
                return health
            if time.monotonic() > deadline:
                pytest.fail(f"health never reached the expected state: {health}")
            time.sleep(0.02)

    def stop(self, timeout: float = 30.0) -> int | None:
        """SIGTERM, wait, and check that no engine process outlived the server."""
        if self.proc is not None and self.proc.poll() is None:
            self.engine_pids()
        code = super().stop(timeout)
        deadline = time.monotonic() + 5
        leaked = self._alive(self.seen_engines)
        while leaked and time.monotonic() < deadline:
            time.sleep(0.1)
            leaked = self._alive(self.seen_engines)
        assert not leaked, f"engine processes outlived the server: {leaked}"
        return code

    @staticmethod
    def _alive(pids: set[int]) -> list[int]:
        out = []
        for pid in pids:
            try:
                if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                    out.append(pid)
            except psutil.NoSuchProcess:
                pass
        return out


def wait_until(condition: Callable[[], bool], timeout: float = 60) -> None:
    """Check `condition` until it holds (an event to wait for, with a generous deadline)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail("the expected state never came")
        time.sleep(0.02)


def start_server(*args: str, engines: int = 2, **kwargs: Any) -> Server:
    """`ladder serve --port 0 --engines N ARGS...`, started; returns once it serves."""
    server = Server(["--engines", str(engines), "--log-format", "json", *args], **kwargs)
    server.start()
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


def samples(server: Server) -> dict[str, float]:
    """{'name{label="v",...}': value} of every sample /metrics shows."""
    text = httpx.get(server.url + "/metrics", timeout=30).text
    out = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            labels = ",".join(f'{k}="{v}"' for k, v in sorted(s.labels.items()))
            out[f"{s.name}{{{labels}}}" if labels else s.name] = s.value
    return out


def post_move(sock: socket.socket, body: dict[str, Any], request_id: str | None = None) -> None:
    """Send ``body`` to /v1/move over a raw connection; the answer is left to read (or
    not: closing the socket is a client that went away)."""
    data = json.dumps(body).encode()
    head = b"POST /v1/move HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
    if request_id is not None:
        head += b"x-request-id: %s\r\n" % request_id.encode()
    sock.sendall(head + b"content-length: %d\r\n\r\n%s" % (len(data), data))
