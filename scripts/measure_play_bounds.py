#!/usr/bin/env python3
"""What the /play page's bounds cost (docs/play.md, "Bounds"): the 1,000 moves a request
takes (``ladder.rules.MAX_MOVES``) and the 400 plies one analysis request searches
(``--analysis-max-plies``).

Against a real ``ladder serve`` (one engine) started here: ``POST /v1/position`` (with
WXF, as the page asks after every move) and ``POST /v1/move`` (level 1) for a random
crazyhouse-xiangqi game of 100 and of 1,000 plies, side by side (median of the runs);
and ``POST /v1/analysis`` at the service's default nodes over the last plies of a
400-ply game (``from_ply``), per ply, and so for a whole 400-ply request.

    .venv/bin/python scripts/measure_play_bounds.py [--runs 5] [--plies 12]

(The random long game is the bound tests' own: ladder.rules.random_play.)
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import subprocess
import time
from pathlib import Path

import httpx

from ladder.rules.random_play import unfinished_random_game as long_game

LADDER = Path(__file__).resolve().parents[1] / ".venv" / "bin" / "ladder"
VARIANT = "crazyhouse-xiangqi"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def timed_ms(client: httpx.Client, path: str, body: dict[str, object], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        r = client.post(path, json=body)
        times.append((time.perf_counter() - started) * 1000)
        assert r.status_code == 200, r.text
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--plies", type=int, default=12, help="analysed plies measured")
    args = parser.parse_args()
    port = free_port()
    server = subprocess.Popen(
        [str(LADDER), "serve", "--port", str(port), "--engines", "1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=url, timeout=600) as client:
            for _ in range(600):
                try:
                    if client.get("/readyz").status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                time.sleep(0.1)
            games = {n: long_game(VARIANT, n, seed=1) for n in (100, 1000)}
            print(f"{VARIANT}, median of {args.runs} runs (ms):")
            print(f"{'plies':>6} {'position+wxf':>13} {'move L1':>9}")
            rows = {}
            for n, moves in games.items():
                pos = timed_ms(
                    client, "/v1/position", {"variant": VARIANT, "moves": moves, "wxf": True},
                    args.runs,
                )  # fmt: skip
                move = timed_ms(
                    client, "/v1/move", {"variant": VARIANT, "moves": moves, "level": 1,
                                         "seed": 1}, args.runs,
                )  # fmt: skip
                rows[n] = (pos, move)
                print(f"{n:>6} {pos:>13.1f} {move:>9.1f}")
            print(f"ratio 1000/100: position {rows[1000][0] / rows[100][0]:.1f}, "
                  f"move {rows[1000][1] / rows[100][1]:.1f}")  # fmt: skip
            game = long_game(VARIANT, 400, seed=1)
            body = {"variant": VARIANT, "moves": game, "from_ply": 400 - args.plies + 1}
            started = time.perf_counter()
            with client.stream("POST", "/v1/analysis", json=body) as r:
                lines = [json.loads(line) for line in r.iter_lines() if line]
            seconds = time.perf_counter() - started
            nodes = lines[0]["nodes"]
            per_ply = seconds / args.plies
            print(f"analysis at {nodes:,} nodes: {per_ply:.2f} s a ply over {args.plies} plies; "
                  f"a whole 400-ply request: about {400 * per_ply / 60:.0f} min")  # fmt: skip
    finally:
        server.terminate()
        server.wait(30)


if __name__ == "__main__":
    main()
