"""A fast level never waits for a slow search: with two engines, level-8 searches hold
at most one of them (the `long` lane), so a level-1 move is answered while every
level-8 request is still searching or queued. `ladder serve` as a subprocess, real
engines, real sockets; the order of events, not timings."""

from __future__ import annotations

import re
import socket
from pathlib import Path

from ladder.levels import LEVELS_FILE

from .helpers import OUT_OF_BOOK, post_move, samples, start_server, wait_until

SLOW = {"variant": "xiangqi", "moves": OUT_OF_BOOK, "level": 8}
FAST = {"variant": "xiangqi", "moves": [*OUT_OF_BOOK, "h1g3"], "level": 1, "seed": 5}


def answered(sock: socket.socket) -> bool:
    """Whether an answer has come on `sock` (without waiting)."""
    sock.setblocking(False)
    try:
        return bool(sock.recv(1, socket.MSG_PEEK))
    except BlockingIOError:
        return False
    finally:
        sock.setblocking(True)


def endless_level_8(path: Path) -> Path:
    """The shipped levels with xiangqi's level 8 at 50,000,000 nodes: its search outlasts
    the test whatever the shipped node count (the test ends it by leaving)."""
    text, found = re.subn(
        r"(\[variant\.xiangqi\.8\]\n)nodes = [\d_]+",
        r"\1nodes = 50_000_000",
        LEVELS_FILE.read_text(),
    )
    assert found == 1, "the shipped file has no [variant.xiangqi.8] nodes line"
    path.write_text(text)
    return path


def test_a_fast_level_is_answered_while_slow_ones_search(tmp_path: Path) -> None:
    # the queued level-8 requests must still be waiting at the end (not 503 busy)
    levels = endless_level_8(tmp_path / "levels.toml")
    server = start_server("--queue-timeout", "300", "--levels", str(levels), engines=2)
    slow = [server.connect() for _ in range(3)]
    try:
        for i, sock in enumerate(slow):
            post_move(sock, {**SLOW, "seed": i})
        # one level-8 search runs; the two others wait, though an engine is idle
        wait_until(lambda: samples(server)['ladder_queued_moves{level="8"}'] == 2)
        metrics = samples(server)
        assert metrics['ladder_searches_in_flight{level="8"}'] == 1
        assert metrics['ladder_lane_in_flight{lane="long"}'] == 1
        assert server.health()["engines_busy"] == 1
        with server.client() as client:
            for _ in range(5):
                reply = client.post("/v1/move", json=FAST)
                assert reply.status_code == 200, reply.text
        assert not any(answered(sock) for sock in slow)  # no level-8 answer yet
        assert samples(server)['ladder_searches_in_flight{level="8"}'] == 1
    finally:
        for sock in slow:  # gone: their searches are cancelled (499)
            sock.close()
        wait_until(lambda: server.health()["engines_busy"] == 0)
        server.stop()
