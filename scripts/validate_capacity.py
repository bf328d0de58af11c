#!/usr/bin/env python3
"""The capacity model (``ladder capacity``) against real instances on this machine.

Two ``ladder serve --engines 1`` on 127.0.0.1 behind Debian's haproxy with
deploy/haproxy/haproxy.cfg (``balance leastconn``, ``retry-on 503``; started as
tests/deploy/test_balancers.py starts it), the calibration paused throughout:

1. **The model's inputs, measured here**: the path's own time (HTTP, haproxy: the
   median of book moves, which need no engine); each level's cost, the median of
   sequential moves at the mix's levels (random seeds) less that overhead, written as
   a stated level-times file; the spread of a move's cost (the log-normal sigma that
   gives those moves' mean from their medians). Also the costs by ``measure_levels.measure``
   (what ``ladder levels --measure`` runs: one seed a position), whose prediction is
   printed beside.
2. **Each load point** (a share of the two engines' capacity at the costs measured one
   move at a time): first a run at that rate whose searches, as the answers time them
   (``time_ms``), give **the costs under load** (each level's median and the spread).
   The engines share this machine's 2 cores with both servers, haproxy and this load
   generator, which the model counts as one core an engine: a search under load takes
   longer than alone, so the model is given the costs as served at that load. The
   prediction is ``ladder capacity --instances 2 --engines 1 --json`` with those inputs
   (printed beside: the predictions from the costs one at a time and from ``ladder levels
   --measure``'s); then ``--repeats`` runs of ``--requests`` moves at Poisson times (open
   loop) at the mix's levels, from the positions the costs were measured on with
   random seeds, from ``--clients`` players (X-Forwarded-For, which the instances take
   from haproxy), measured at the client. After each run, the servers' own means (their
   /metrics histograms: request, wait for an engine, search by level) are printed, and
   each run's moves are kept in the temporary folder the first line names.
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
from prometheus_client.parser import text_string_to_metric_families

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
from ladder.service.operations.metrics import Metrics  # noqa: E402
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
) -> tuple[list[float], list[float]]:
    """`bodies` sent at Poisson times of `rate` a second, each from one of `clients`
    players: each one's time at the client (inf if refused), and its search's time as
    the answer gives it (``time_ms``; nan if refused or from the book)."""
    rng = random.Random(seed)
    limits = httpx.Limits(max_connections=256, max_keepalive_connections=256)
    times: list[float] = [math.nan] * len(bodies)
    costs: list[float] = [math.nan] * len(bodies)
    sent: list[float] = [math.nan] * len(bodies)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as c:

        async def one(i: int, body: dict[str, Any], player: int) -> None:
            headers = {"x-forwarded-for": f"10.0.{player // 250}.{player % 250 + 1}"}
            t0 = sent[i] = time.perf_counter()
            r = await c.post("/v1/move", json=body, headers=headers)
            elapsed = time.perf_counter() - t0
            if r.status_code == 200:
                times[i] = elapsed
                answer = r.json()
                if not answer["book"]:
                    costs[i] = answer["time_ms"] / 1000
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
    return times, costs


def level_costs(bodies: list[dict[str, Any]], costs: list[float]) -> tuple[float, dict[int, float]]:
    """The moves' spread around their level's median, and each level's median.

    The spread is the log-normal's sigma whose mean, exp(sigma^2 / 2) times the median,
    is the moves' mean cost: the engines' load (the rate times the mean cost) is then the
    measured one, which the waits depend on most. (The spread of the costs' logarithms,
    used before, gave 0.33-0.40 where this gives about 0.5: it discounts the slow tail,
    and the model's load came out a fifth too low.)"""
    samples: dict[int, list[float]] = {}
    for body, cost in zip(bodies, costs, strict=True):
        if math.isfinite(cost):
            samples.setdefault(body["level"], []).append(max(cost, 1e-4))
    medians = {n: statistics.median(s) for n, s in sorted(samples.items())}
    ratio = sum(sum(s) for s in samples.values()) / sum(
        medians[n] * len(s) for n, s in samples.items()
    )
    return math.sqrt(2 * math.log(ratio)) if ratio > 1 else 0.0, medians


#: The servers' histograms read after each run: the request, the wait, the search.
SERVER_SIDE = (
    Metrics.request_seconds.name,
    Metrics.queue_wait_seconds.name,
    Metrics.search_seconds.name,
)


def scrape(urls: list[str]) -> dict[tuple[str, str, str], float]:
    """The servers' own histograms' sums and counts (request, queue wait, search), added
    over the instances, keyed by (histogram, level, sum|count)."""
    out: dict[tuple[str, str, str], float] = {}
    for url in urls:
        text = httpx.get(f"{url}/metrics", timeout=10).text
        for family in text_string_to_metric_families(text):
            if family.name not in SERVER_SIDE:
                continue
            for sample in family.samples:
                kind = sample.name.removeprefix(family.name).lstrip("_")
                if kind not in ("sum", "count"):
                    continue
                if family.name == SERVER_SIDE[0] and sample.labels.get("route") != "/v1/move":
                    continue
                key = (family.name, sample.labels.get("level", "all"), kind)
                out[key] = out.get(key, 0.0) + sample.value
    return out


def server_side(
    before: dict[tuple[str, str, str], float], after: dict[tuple[str, str, str], float]
) -> str:
    """Mean milliseconds the servers saw between two scrapes: the request, the wait for
    an engine, each level's search."""
    parts = []
    for name, label in zip(SERVER_SIDE, ("request", "queue wait", "search"), strict=True):
        levels = sorted({k[1] for k in after if k[0] == name})
        for level in levels:
            n = after.get((name, level, "count"), 0) - before.get((name, level, "count"), 0)
            total = after.get((name, level, "sum"), 0) - before.get((name, level, "sum"), 0)
            if n > 0:
                where = "" if level == "all" else f" L{level}"
                parts.append(f"{label}{where} {total / n * 1000:.1f}")
    return ", ".join(parts)


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


def record(
    path: Path, bodies: list[dict[str, Any]], costs: list[float], times: list[float]
) -> None:
    """A run's moves, for a second look: each one's level, search time and client time."""
    rows = [
        {"level": b["level"], "cost": c, "time": t}
        for b, c, t in zip(bodies, costs, times or [math.nan] * len(bodies), strict=True)
    ]
    path.write_text(json.dumps(rows, allow_nan=True))


def served_costs(
    url: str, mix: dict[int, float], games: list[list[str]], rng: random.Random
) -> tuple[float, float, dict[int, float]]:
    """The path's own time (the median of book moves, which need no engine), the
    log-normal spread of a move's cost, and each level's median cost (sequential moves
    less that time)."""
    book = [{"variant": VARIANT, "moves": [], "level": 4, "seed": i} for i in range(100)]
    overhead = statistics.median(asyncio.run(sequential(url, book)))
    alone = bodies_for(mix, games, 60 * len(mix), rng)
    took = asyncio.run(sequential(url, alone))
    spread, served = level_costs(alone, [t - overhead for t in took])
    return overhead, spread, served


def predict(
    times_file: Path,
    mix_text: str,
    rate: float,
    spread: float,
    overhead_ms: float,
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
    print(f"[validate] inputs and raw runs in {folder}", flush=True)
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
                direct = [s.url for s in servers]
                alone_before = scrape(direct)
                overhead, spread, served = served_costs(url, mix, games, rng)
                print(
                    "[validate]   one at a time, servers' means (ms): "
                    + server_side(alone_before, scrape(direct)),
                    flush=True,
                )
                print(
                    f"[validate] overhead (book moves through {args.balancer}): "
                    f"{overhead * 1000:.2f} ms; cost spread (sigma): {spread:.3f}; medians "
                    "of sequential moves less it: "
                    + ", ".join(f"{n}: {s:.4f}" for n, s in served.items()),
                    flush=True,
                )
                # the rate from the costs one move at a time
                mean_cost = sum(mix[n] * served[n] for n in mix) * math.exp(spread**2 / 2)
                rate = load * 2 / mean_cost
                alone_file = folder / f"level-times-alone-{load}.json"
                write(
                    replace(times, seconds={VARIANT: dict(times.seconds[VARIANT]) | served}),
                    alone_file,
                )
                # the costs under this load: a first run's searches as the answers time
                # them (the engines share this machine's cores with the servers, haproxy
                # and this load generator, which the model counts as one core an engine)
                load_line(f"load {load:.2f} ({rate:.1f} moves/s), the costs under load")
                bodies = bodies_for(mix, games, args.requests, rng)
                _, costs = asyncio.run(open_loop(url, rate, bodies, args.clients, seed=99))
                spread_load, under_load = level_costs(bodies, costs)
                record(folder / f"costs-under-load-{load}.json", bodies, costs, [])
                print(
                    f"[validate] costs under load: spread (sigma) {spread_load:.3f}; medians "
                    + ", ".join(f"{n}: {s:.4f}" for n, s in under_load.items()),
                    flush=True,
                )
                load_file = folder / f"level-times-under-load-{load}.json"
                write(
                    replace(times, seconds={VARIANT: dict(times.seconds[VARIANT]) | under_load}),
                    load_file,
                )
                overhead_ms = overhead * 1000
                predictions = {
                    "under load": predict(load_file, args.mix, rate, spread_load, overhead_ms),
                    "one at a time": predict(alone_file, args.mix, rate, spread, overhead_ms),
                    "levels --measure": predict(times_file, args.mix, rate, spread, overhead_ms),
                }
                predicted = predictions["under load"]
                runs = []
                seen = scrape(direct)
                for repeat in range(args.repeats):
                    load_line(f"load {load:.2f} ({rate:.1f} moves/s), run {repeat + 1}")
                    bodies = bodies_for(mix, games, args.requests, rng)
                    answered, run_costs = asyncio.run(
                        open_loop(url, rate, bodies, args.clients, seed=repeat)
                    )
                    record(folder / f"run-{load}-{repeat + 1}.json", bodies, run_costs, answered)
                    refused = sum(1 for x in answered if math.isinf(x))
                    runs.append((percentile(answered, 50), percentile(answered, 99), refused))
                    now = scrape(direct)
                    finite = [x for x in answered if math.isfinite(x)]
                    print(
                        f"[validate]   client mean {statistics.fmean(finite) * 1000:.1f} ms; "
                        f"servers' means (ms): {server_side(seen, now)}",
                        flush=True,
                    )
                    seen = now
                for i, name in ((0, "p50"), (1, "p99")):
                    values = [r[i] for r in runs]
                    measured = statistics.fmean(values)
                    spread_rel = (max(values) - min(values)) / measured
                    tolerance = max(0.20, 2 * spread_rel)
                    # the model gives None where it refuses more than 1 % (an endless p99)
                    pred = predicted[f"{name}_s"] or math.inf
                    error = (pred - measured) / measured if math.isfinite(measured) else math.nan
                    ok = abs(error) <= tolerance or (math.isinf(pred) and math.isinf(measured))
                    failed += not ok
                    beside = [
                        "refused"
                        if (other := p[f"{name}_s"]) is None
                        else f"{other * 1000:.1f} ({(other - measured) / measured:+.0%})"
                        for key, p in predictions.items()
                        if key != "under load"
                    ]
                    rows.append(
                        f"| {load:.2f} | {rate:.1f} | {name} | {pred * 1000:.1f} | "
                        + " | ".join(beside)
                        + " | "
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
        "| load | moves/s | | predicted (costs under load) | from costs one at a time | "
        "from `levels --measure` | measured runs | measured mean | error | tolerance | agrees |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for row in rows:
        print(row)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
