#!/usr/bin/env python3
"""The capacity model (``ladder capacity``) against real instances on this machine.

Two ``ladder serve --engines 1`` on 127.0.0.1 behind Debian's haproxy with
deploy/haproxy/haproxy.cfg (``balance leastconn``, ``retry-on 503``; started as
tests/deploy/test_balancers.py starts it), the calibration paused throughout:

1. **The model's inputs, measured here**: the path's own time (HTTP, haproxy: the
   median of book moves, which need no engine); each level's cost, the median of
   sequential moves at the mix's levels (random seeds) less that overhead, written as
   a stated level-times file; the spread of a move's cost (the log-normal sigma of
   those moves around their medians). Also the costs by ``measure_levels.measure``
   (what ``ladder levels --measure`` runs: one seed a position), whose prediction is
   printed beside.
2. **Each load point** (a share of the two engines' capacity at the measured costs):
   the prediction, ``ladder capacity --instances 2 --engines 1 --json`` with those
   inputs; then ``--repeats`` runs of ``--requests`` moves at Poisson times (open
   loop) at the mix's levels, from the positions the costs were measured on with
   random seeds, from ``--clients`` players (X-Forwarded-For, which the instances take
   from haproxy), measured at the client.
3. **Agreement**: the searched moves' p50 and p99 (a refused move an endless one),
   predicted against the repeats' mean, within max(20 %, twice the repeats' spread:
   (max - min) / mean).

    .venv/bin/python scripts/validate_capacity.py [--mix 1:0.3,5:0.4,6:0.3]
        [--loads 0.5,0.75] [--requests 2000] [--repeats 3]

Exit status 0 when every point agrees.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ladder.calibration.pause import calibration_paused  # noqa: E402
from ladder.capacity.mix import parse_levels  # noqa: E402
from ladder.capacity.simulation import percentile  # noqa: E402
from ladder.engine_binary import find_engine  # noqa: E402
from ladder.level_times import OUT_OF_BOOK, LevelTimes, write  # noqa: E402
from ladder.levels import LEVELS_FILE  # noqa: E402
from ladder.service.operations.launch import ServeProcess, ladder_command  # noqa: E402
from ladder.service.operations.measure_levels import measure  # noqa: E402
from tests.deploy.balancers import Balancer  # noqa: E402

VARIANT = "xiangqi"


def load_line(what: str) -> None:
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"[validate] {what}; load average {load}", flush=True)


async def positions(url: str, count: int) -> list[list[str]]:
    """The positions ``ladder levels --measure`` plays from: a level-4 game from
    OUT_OF_BOOK on, the move of ply i with seed i."""
    games: list[list[str]] = []
    moves = list(OUT_OF_BOOK)
    async with httpx.AsyncClient(base_url=url, timeout=60) as c:
        for ply in range(count):
            games.append(list(moves))
            r = await c.post(
                "/v1/move", json={"variant": VARIANT, "moves": moves, "level": 4, "seed": ply}
            )
            r.raise_for_status()
            if r.json().get("outcome") is not None:
                break
            moves.append(r.json()["move"])
    return games


async def sequential(url: str, bodies: list[dict[str, Any]]) -> list[float]:
    """Each body's time at the client, one at a time."""
    out = []
    async with httpx.AsyncClient(base_url=url, timeout=60) as c:
        for body in bodies:
            t0 = time.perf_counter()
            r = await c.post("/v1/move", json=body)
            out.append(time.perf_counter() - t0)
            r.raise_for_status()
    return out


async def open_loop(
    url: str, rate: float, bodies: list[dict[str, Any]], clients: int, seed: int
) -> list[float]:
    """`bodies` sent at Poisson times of `rate` a second, each from one of `clients`
    players: each one's time at the client (inf if refused)."""
    rng = random.Random(seed)
    limits = httpx.Limits(max_connections=256, max_keepalive_connections=256)
    times: list[float] = [math.nan] * len(bodies)
    sent: list[float] = [math.nan] * len(bodies)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as c:

        async def one(i: int, body: dict[str, Any], player: int) -> None:
            headers = {"x-forwarded-for": f"10.0.{player // 250}.{player % 250 + 1}"}
            t0 = sent[i] = time.perf_counter()
            r = await c.post("/v1/move", json=body, headers=headers)
            elapsed = time.perf_counter() - t0
            if r.status_code == 200:
                times[i] = elapsed
            elif r.status_code == 503:
                times[i] = math.inf
            else:
                raise RuntimeError(f"unexpected answer {r.status_code}: {r.text[:200]}")

        tasks = []
        start = time.perf_counter()
        due = 0.0
        for i, body in enumerate(bodies):
            due += rng.expovariate(rate)
            delay = start + due - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            tasks.append(asyncio.create_task(one(i, body, rng.randrange(clients))))
        await asyncio.gather(*tasks)
    slow = [sent[i] - start for i, t in enumerate(times) if t > 1.0]
    if slow:
        print(
            f"[validate] {len(slow)} moves over 1 s (or refused), sent from "
            f"{min(slow):.1f} s to {max(slow):.1f} s into the run",
            flush=True,
        )
    return times


def bodies_for(
    mix: dict[int, float], games: list[list[str]], count: int, rng: random.Random
) -> list[dict[str, Any]]:
    levels = rng.choices(list(mix), list(mix.values()), k=count)
    return [
        {
            "variant": VARIANT,
            "moves": rng.choice(games),
            "level": level,
            "seed": rng.randrange(2**31),
        }
        for level in levels
    ]


def served_costs(
    url: str, mix: dict[int, float], games: list[list[str]], rng: random.Random
) -> tuple[float, float, dict[int, float]]:
    """The path's own time (the median of book moves, which need no engine), the
    log-normal spread of a move's cost, and each level's median cost (sequential moves
    less that time)."""
    book = [{"variant": VARIANT, "moves": [], "level": 4, "seed": i} for i in range(100)]
    overhead = statistics.median(asyncio.run(sequential(url, book)))
    samples: dict[int, list[float]] = {}
    alone = bodies_for(mix, games, 60 * len(mix), rng)
    for body, took in zip(alone, asyncio.run(sequential(url, alone)), strict=True):
        samples.setdefault(body["level"], []).append(max(took - overhead, 1e-4))
    logs = [
        math.log(x) - statistics.median(math.log(y) for y in level_samples)
        for level_samples in samples.values()
        for x in level_samples
    ]
    served = {n: statistics.median(s) for n, s in sorted(samples.items())}
    return overhead, statistics.pstdev(logs), served


def predict(
    times_file: Path,
    mix_text: str,
    rate: float,
    spread: float,
    overhead_ms: float,
    clients: int,
) -> dict[str, Any]:
    """``ladder capacity`` for the two instances at `rate` moves a second."""
    games = 1000
    done = subprocess.run(
        [
            *ladder_command(),
            "capacity",
            *("--games", str(games), "--move-interval", f"{games / rate:.6f}"),
            *("--mix", mix_text, "--variants", VARIANT, "--level-times", str(times_file)),
            *("--instances", "2", "--engines", "1"),
            *("--cost-spread", f"{spread:.4f}", "--overhead-ms", f"{overhead_ms:.3f}"),
            *("--requests", "200000", "--json"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr)
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mix", default="1:0.3,5:0.4,6:0.3")
    ap.add_argument("--loads", default="0.5,0.75", help="shares of the engines' capacity")
    ap.add_argument("--requests", type=int, default=2000, help="moves a run")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--positions", type=int, default=6, help="positions the costs are measured on")
    ap.add_argument("--clients", type=int, default=1000, help="players sending the moves")
    ap.add_argument("--balancer", choices=("haproxy", "nginx"), default="haproxy")
    args = ap.parse_args()
    mix = parse_levels(args.mix, range(1, 9))
    loads = [float(x) for x in args.loads.split(",")]
    engine = find_engine().path
    folder = Path(tempfile.mkdtemp(prefix="validate-capacity-"))
    env = {"LADDER_ENGINE": str(engine), "LADDER_DRAIN_DELAY": "0"}
    with calibration_paused():
        load_line("start")
        # 1. the model's inputs
        times: LevelTimes = asyncio.run(measure(engine, LEVELS_FILE, [VARIANT], args.positions))
        times_file = folder / "level-times.json"
        write(times, times_file)
        medians = {n: times.seconds[VARIANT][n] for n in mix}
        print(
            "[validate] level costs (median s a move, level_times.measure): "
            + ", ".join(f"{n}: {s:.4f}" for n, s in medians.items()),
            flush=True,
        )
        servers = [
            ServeProcess(["--engines", "1"], env={**os.environ, **env}, cwd=ROOT).start()
            for _ in range(2)
        ]
        balancer = None
        try:
            balancer = Balancer(
                args.balancer, [s.url.removeprefix("http://") for s in servers], folder
            )
            url = balancer.url
            games = asyncio.run(positions(url, args.positions))
            rng = random.Random(7)
            failed = 0
            rows = []
            for load in loads:
                # the inputs again before each point: this machine's speed drifts
                overhead, spread, served = served_costs(url, mix, games, rng)
                print(
                    f"[validate] overhead (book moves through {args.balancer}): "
                    f"{overhead * 1000:.2f} ms; cost spread (sigma): {spread:.3f}; medians "
                    "of sequential moves less it: "
                    + ", ".join(f"{n}: {s:.4f}" for n, s in served.items()),
                    flush=True,
                )
                # the stated file: the costs as served here, one move at a time
                stated_file = folder / f"level-times-served-{load}.json"
                seconds = dict(times.seconds[VARIANT]) | served
                write(replace(times, seconds={VARIANT: seconds}), stated_file)
                mean_cost = sum(mix[n] * served[n] for n in mix) * math.exp(spread**2 / 2)
                rate = load * 2 / mean_cost
                predicted = predict(
                    stated_file, args.mix, rate, spread, overhead * 1000, args.clients
                )
                from_measure = predict(
                    times_file, args.mix, rate, spread, overhead * 1000, args.clients
                )
                runs = []
                for repeat in range(args.repeats):
                    load_line(f"load {load:.2f} ({rate:.1f} moves/s), run {repeat + 1}")
                    bodies = bodies_for(mix, games, args.requests, rng)
                    answered = asyncio.run(open_loop(url, rate, bodies, args.clients, seed=repeat))
                    refused = sum(1 for x in answered if math.isinf(x))
                    runs.append((percentile(answered, 50), percentile(answered, 99), refused))
                for i, name in ((0, "p50"), (1, "p99")):
                    values = [r[i] for r in runs]
                    measured = statistics.fmean(values)
                    spread_rel = (max(values) - min(values)) / measured
                    tolerance = max(0.20, 2 * spread_rel)
                    pred = predicted[f"{name}_s"]
                    error = (pred - measured) / measured
                    ok = abs(error) <= tolerance
                    failed += not ok
                    other = from_measure[f"{name}_s"]
                    beside = (
                        "refused"
                        if other is None
                        else f"{other * 1000:.1f} ({(other - measured) / measured:+.0%})"
                    )
                    rows.append(
                        f"| {load:.2f} | {rate:.1f} | {name} | {pred * 1000:.1f} | {beside} | "
                        + " / ".join(f"{v * 1000:.1f}" for v in values)
                        + f" | {measured * 1000:.1f} | {error:+.0%} | {tolerance:.0%} | "
                        + ("yes" if ok else "**no**")
                        + " |"
                    )
                print(
                    f"[validate] load {load:.2f}: refused {[r[2] for r in runs]} of "
                    f"{args.requests}; predicted refused {predicted['refused']:.2%}",
                    flush=True,
                )
        finally:
            if balancer is not None:
                balancer.stop()
            for s in servers:
                s.stop()
        load_line("end")
    print(
        f"\nmix {args.mix} ({VARIANT}), 2 instances x 1 engine behind {args.balancer}, "
        f"{args.requests} moves a run, {args.repeats} runs a point; times in ms\n"
    )
    print(
        "| load | moves/s | | predicted | from `levels --measure` | measured runs | "
        "measured mean | error | tolerance | agrees |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for row in rows:
        print(row)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
