"""The Python client (async, blocking, in-process) and the `ladder` subcommands."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import threading
from typing import Any

import httpx
import pytest

from ladder.client import Ladder, LadderSync
from ladder.notation.chinese import parse_chinese
from ladder.notation.wxf import parse_wxf
from ladder.rules import Game
from ladder.service.domain.errors import ServiceError
from ladder.service.operations.config import ServiceConfig
from ladder.service.operations.launch import ladder_command

from .helpers import (
    OUT_OF_BOOK,
    ROOT,
    Server,
    check_move_reply,
    run_ladder,
    service_engine,
    start_server,
    wait_until,
)


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


def _free_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_cli_move_in_process_and_url(server: Server) -> None:
    move = ["move", "--variant", "xiangqi", "--moves", "h3e3 h10g8", "--level", "2", "--seed", "3"]
    local = run_ladder(*move, "--json")
    assert local.returncode == 0, local.stderr
    reply = json.loads(local.stdout)
    check_move_reply("xiangqi", ["h3e3", "h10g8"], reply)
    remote = run_ladder(*move, "--url", server.url)
    assert remote.returncode == 0, remote.stderr
    assert remote.stdout.split()[0] == reply["move"]
    # which ladder played it, as the JSON answer says
    assert f"ladder {reply['levels_version']}" in remote.stdout
    bad = run_ladder(
        "move", "--variant", "xiangqi", "--moves", "h3e3 h3e3", "--level", "2", "--url", server.url
    )
    assert bad.returncode == 2 and "ply 2" in bad.stderr
    book = run_ladder("move", "--variant", "xiangqi", "--level", "3", "--seed", "1")
    assert book.returncode == 0 and book.stdout.split()[1] == "book", book.stdout  # not "cp None"


def test_cli_move_in_notations(server: Server) -> None:
    """`--notation` writes the move after its coordinates, in-process and over --url, in
    the order asked; the JSON answer has them by name, and none without the option."""
    move = ["move", "--variant", "xiangqi", "--moves", " ".join(OUT_OF_BOOK), "--level", "2"]
    move += ["--seed", "5"]
    asked = ["--notation", "chinese-traditional", "--notation", "wxf"]
    local = run_ladder(*move, *asked, "--json")
    assert local.returncode == 0, local.stderr
    reply = json.loads(local.stdout)
    game = Game.from_fen("xiangqi", None, OUT_OF_BOOK)
    written = reply["notations"]
    assert parse_chinese(game, written["chinese-traditional"]) == reply["move"]
    assert parse_wxf(game, written["wxf"]) == reply["move"]
    remote = run_ladder(*move, *asked, "--url", server.url)
    assert remote.returncode == 0, remote.stderr
    assert remote.stdout.split()[:3] == [
        reply["move"],
        written["chinese-traditional"],
        written["wxf"],
    ]
    plain = run_ladder(*move, "--json")
    assert plain.returncode == 0 and "notations" not in json.loads(plain.stdout)


def test_blocking_client_position_in_notations(server: Server) -> None:
    with LadderSync(server.url) as ladder:
        answer = ladder.position(variant="xiangqi", moves=["h3e3", "h10g8"], notations=["chinese"])
    assert answer.notations == {"chinese": ["炮二平五", "马８进７"]}


def test_cli_levels() -> None:
    out = run_ladder("levels")
    assert out.returncode == 0 and "crazyhouse-xiangqi" in out.stdout
    # every level has a time per move: measured, or (~) its nodes at the engine's speed
    rows = [line for line in out.stdout.splitlines() if line.strip()[:1].isdigit()]
    assert len(rows) == 24 and all(re.search(r"\d(\.\d+)? m?s  ", row) for row in rows), rows
    data = json.loads(run_ladder("levels", "--json").stdout)
    assert [lv["level"] for lv in data["xiangqi"]] == list(range(1, 9))


def test_make_serve() -> None:
    """`make serve`'s command starts the service (HOST and PORT as the README says;
    PORT=0 picks a free port, printed), and SIGTERM stops it with its engines."""
    server = Server(
        command=[
            "make",
            "serve",
            "HOST=127.0.0.1",
            "PORT=0",
            "SERVE_ARGS=--engines 1 --log-format json",
        ],
    )
    with server:
        assert server.url.startswith("http://127.0.0.1:")
        health = httpx.get(server.url + "/healthz", timeout=30).json()
        assert health["engines"] == 1 and health["ready"]
        r = httpx.post(
            server.url + "/v1/move",
            json={"variant": "xiangqi", "moves": ["h3e3"], "level": 1, "seed": 1},
            timeout=60,
        )
        assert r.status_code == 200
        assert len(server.engine_pids()) == 1
    # Server.stop checked that no engine outlived it


def test_client_errors_are_service_errors() -> None:
    """No server, no answer, no scheme: ServiceError, never a raw httpx exception."""
    with pytest.raises(ServiceError) as err, LadderSync(f"http://127.0.0.1:{_free_port()}") as c:
        c.health()
    assert (err.value.status, err.value.code) == (503, "unreachable")
    with pytest.raises(ServiceError) as err, LadderSync("127.0.0.1:8000") as c:
        c.health()
    assert (err.value.status, err.value.code) == (400, "bad_url")
    with socket.socket() as silent:  # accepts connections (the backlog), never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        with pytest.raises(ServiceError) as err, LadderSync(url, timeout=0.5) as c:
            c.levels()
    assert (err.value.status, err.value.code) == (504, "timeout")


def test_client_retries_503_after_retry_after() -> None:
    """A busy server (one engine, no queue) answers 503 with Retry-After: the client
    tries again, a bounded number of times, and succeeds once the engine is free."""
    server = start_server("--max-queue", "0", engines=1)
    body = {"variant": "xiangqi", "moves": OUT_OF_BOOK, "level": 1, "seed": 2}
    try:
        (engine,) = server.engine_pids()
        os.kill(engine, signal.SIGSTOP)
        try:
            blocker = threading.Thread(
                target=lambda: httpx.post(server.url + "/v1/move", json=body, timeout=120)
            )
            blocker.start()
            server.wait_health(lambda h: h["engines_busy"] == 1)
            start = len(server.log_lines)
            with pytest.raises(ServiceError) as err, LadderSync(server.url, retries=2) as c:
                c.move(variant="xiangqi", moves=OUT_OF_BOOK, level=1, seed=3)
            assert err.value.status == 503 and err.value.code == "busy"
            # the first try and two retries, then it gave up (each is logged once its
            # answer is out, so the last line may come just after the client saw it)
            wait_until(
                lambda: len([x for x in server.log_lines[start:] if '"status": 503' in x]) >= 3
            )
            busy = [x for x in server.log_lines[start:] if '"status": 503' in x]
            assert len(busy) == 3
            results: list[Any] = []

            def patient() -> None:
                with LadderSync(server.url, retries=50) as c:
                    results.append(c.move(variant="xiangqi", moves=OUT_OF_BOOK, level=1, seed=3))

            waiter = threading.Thread(target=patient)
            waiter.start()
            server.wait_for_log(lambda x: '"status": 503' in x, start=start + len(busy) + 1)
        finally:
            os.kill(engine, signal.SIGCONT)
        waiter.join(timeout=120)
        blocker.join(timeout=120)
        assert len(results) == 1
        check_move_reply("xiangqi", OUT_OF_BOOK, results[0].model_dump())
    finally:
        server.stop()


async def test_in_process_client_retries_503_as_over_http() -> None:
    """The in-process client retries a 503 (`busy`: one engine, no queue) after its
    Retry-After as the HTTP client does, and with `retries=0` gives it up at once."""
    config = ServiceConfig(engines=1, max_queue=0, short_engines=0)

    def move(ladder: Ladder, level: int) -> Any:
        return ladder.move(variant="xiangqi", moves=OUT_OF_BOOK, level=level, seed=3)

    for retries in (0, 20):
        async with Ladder(config=config, retries=retries) as ladder:
            blocker = asyncio.create_task(move(ladder, 8))
            while (await ladder.health()).engines_busy == 0:
                await asyncio.sleep(0.01)
            if retries == 0:
                with pytest.raises(ServiceError) as err:
                    await move(ladder, 1)
                assert (err.value.status, err.value.code) == (503, "busy")
            else:
                reply = await move(ladder, 1)
                assert blocker.done()  # the engine was busy until then: it was retried
                check_move_reply("xiangqi", OUT_OF_BOOK, reply.model_dump())
            await blocker


def test_cli_errors_are_one_line() -> None:
    cases = [
        (
            (
                "move",
                "--variant",
                "xiangqi",
                "--level",
                "1",
                "--url",
                f"http://127.0.0.1:{_free_port()}",
            ),
            3,
            "cannot reach",
        ),
        (
            ("move", "--variant", "xiangqi", "--level", "1", "--url", "127.0.0.1:8000"),
            2,
            "bad service URL",
        ),
        (("move", "--variant", "xiangqi", "--level", "9"), 2, "level"),
        (("move", "--variant", "xiangqi", "--level", "1", "--notation", "san"), 2, "'san'"),
        (
            ("move", "--variant", "xiangqi", "--level", "1", "--levels", "x.toml", "--url", "x"),
            2,
            "--levels applies in-process, not with --url",
        ),
        (("serve", "--engines", "0"), 2, "--engines: must be at least 1"),
        (("serve", "--port", "70000"), 2, "--port"),
        (("serve", "--rate-limit", "0"), 2, "--rate-limit"),
        (("levels", "--bogus"), 2, "unrecognized arguments"),
    ]
    for args, code, text in cases:
        result = run_ladder(*args)
        lines = result.stderr.strip().splitlines()
        assert result.returncode == code, (args, result.stderr)
        assert len(lines) == 1 and text in lines[0], (args, result.stderr)
        assert "Traceback" not in result.stderr
    missing = run_ladder(
        "move", "--variant", "xiangqi", "--level", "1", LADDER_ENGINE="/nonexistent"
    )
    assert missing.returncode == 3 and missing.stderr.count("\n") == 1
    assert "run `make engine`" in missing.stderr
    missing = run_ladder("serve", "--port", "0", LADDER_ENGINE="/nonexistent")
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1


def test_serve_on_a_taken_port_is_one_line() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = run_ladder("serve", "--port", str(port), "--engines", "1")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"ladder serve: cannot listen on 127.0.0.1:{port}: Address already in use"
    ]


@pytest.mark.parametrize("workers", ["1", "2"])
def test_serve_with_an_engine_that_cannot_start_is_one_line(tmp_path: Any, workers: str) -> None:
    """The engine is tried before the server starts: one line and exit 2, no traceback
    from the server's startup, nothing left listening."""
    broken = tmp_path / "broken-engine"
    broken.write_text("#!/bin/sh\nexit 1\n")
    broken.chmod(0o755)
    args = ["serve", "--port", "0", "--engines", "2", "--workers", workers]
    result = run_ladder(*args, "--engine", str(broken))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("ladder serve: the engine cannot start: ")
    assert "exited (code 1) during handshake" in last


def _silent_server() -> tuple[socket.socket, threading.Event]:
    """A loopback server that accepts connections, reads, and never answers (or, after
    its request, one byte every 0.3 s: a read timeout alone would never trip)."""
    listener = socket.create_server(("127.0.0.1", 0))
    done = threading.Event()

    def serve() -> None:
        conns = []
        while not done.is_set():
            listener.settimeout(0.1)
            try:
                conn, _ = listener.accept()
                conns.append(conn)
            except OSError:
                pass
            for conn in conns:
                with contextlib.suppress(OSError):  # BlockingIOError: nothing to read yet
                    conn.setblocking(False)
                    if conn.recv(65536):
                        conn.sendall(b"HTTP/1.1 200 OK\r\n")  # a head that never ends
                with contextlib.suppress(OSError):
                    conn.sendall(b"x: y\r\n")
            done.wait(0.3)
        for conn in conns:
            conn.close()
        listener.close()

    threading.Thread(target=serve, daemon=True).start()
    return listener, done


def test_move_url_timeout_against_a_server_that_never_answers() -> None:
    listener, done = _silent_server()
    port = listener.getsockname()[1]
    try:
        argv = [*ladder_command(), "move", "--url", f"http://127.0.0.1:{port}"]
        argv += ["--variant", "xiangqi", "--level", "1", "--timeout", "1.5"]
        out = subprocess.run(argv, capture_output=True, text=True, timeout=60, cwd=ROOT)
    finally:
        done.set()
    assert out.returncode == 3, out
    assert out.stdout == ""
    assert out.stderr.splitlines() == [
        f"ladder move: no answer from http://127.0.0.1:{port} within 1.5 s (TimeoutError) "
        "[504 timeout]"
    ]


def test_move_url_timeout_default_is_stated() -> None:
    out = subprocess.run(
        [*ladder_command(), "move", "--help"], capture_output=True, text=True, timeout=60
    )
    assert "--timeout SECONDS" in out.stdout and "(default 30;" in " ".join(out.stdout.split())
