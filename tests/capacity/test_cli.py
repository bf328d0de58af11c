"""`ladder capacity` as an operator runs it: a bad mix or option refused in one line
naming the value (exit 2); a stated level-times file's costs used as measured; the
simulation's waits agree with queueing theory (Pollaczek-Khinchine for one engine, the
Allen-Cunneen form of Erlang C for several) and fall with more engines; the lanes keep
the fast levels' waits short under a slow load; sizing meets its target."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from ladder.engine_binary import engine_build_key
from ladder.levels import LEVELS_FILE, levels_version
from ladder.variants import VARIANT_IDS
from tests.service.helpers import run_ladder, service_engine

#: The stated costs (seconds a move) of the tests' level-times file.
COSTS = {1: 0.02, 4: 0.01, 6: 0.2, 8: 1.0}


@pytest.fixture(scope="module")
def times_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A level-times file of this engine build and ladder, with stated costs."""
    path = tmp_path_factory.mktemp("capacity") / "level-times.json"
    seconds = {v: {str(n): COSTS.get(n, 0.05) for n in range(1, 9)} for v in VARIANT_IDS}
    path.write_text(
        json.dumps(
            {
                "format": 1,
                "engine_build": engine_build_key(service_engine()),
                "levels_version": levels_version(LEVELS_FILE),
                "moves": 6,
                "measured_at": "2026-12-06T00:00:00Z",
                "machine": "the tests' statement",
                "seconds": seconds,
            }
        )
    )
    return path


def capacity(times_file: Path, *args: str) -> dict[str, Any]:
    done = run_ladder("capacity", "--level-times", str(times_file), "--json", *args)
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--mix", "1:abc"], "'abc'"),
        (["--mix", "1:0.3,4:0.3"], "sum to 0.6"),
        (["--mix", "9:1"], "no level 9"),
        (["--mix", "x:1"], "'x' is not a level"),
        (["--mix", "1"], "'1' has no share"),
        (["--mix", "1:0.5,1:0.5"], "'1' given twice"),
        (["--mix", "1:1.5"], "'1.5'"),
        (["--mix", "1:1", "--variants", "chess"], "no variant 'chess'"),
        (["--mix", "1:1", "--variants", "xiangqi:0.5"], "sum to 0.5"),
        (["--mix", "1:1", "--book-share", "1.2"], "1.2"),
        (["--mix", "1:1", "--games", "0"], "0"),
        (["--mix", "1:1", "--level-times", "/nonexistent/times.json"], "/nonexistent/times.json"),
    ],
)
def test_bad_input_is_one_line_naming_the_value(args: list[str], named: str) -> None:
    if "--games" not in args:
        args = [*args, "--games", "100"]
    done = run_ladder("capacity", *args)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert named in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_the_stated_file_costs_are_used(times_file: Path) -> None:
    out = capacity(
        times_file,
        *("--games", "300", "--mix", "1:0.5,8:0.5", "--variants", "xiangqi,atomic-xiangqi"),
        *("--requests", "5000"),
    )
    costs = {
        (c["variant"], c["level"]): (c["seconds"], c["source"], c["lane"]) for c in out["costs"]
    }
    assert costs == {
        (v, n): (COSTS[n], "measured", "long" if n == 8 else "short")
        for v in ("xiangqi", "atomic-xiangqi")
        for n in (1, 8)
    }
    assert out["model_output"] is True
    # 20 moves/s, half of them level 8's 1 s (log-normal mean: e^(0.5^2/2) above it)
    assert out["busy_engines"] == pytest.approx(20 * 0.5 * (0.02 + 1.0) * math.exp(0.125))
    # the text names where the costs come from
    text = run_ladder(
        *("capacity", "--level-times", str(times_file), "--games", "300"),
        *("--mix", "1:0.5,8:0.5", "--requests", "5000", "--instances", "20"),
    )
    assert text.returncode == 0, text.stderr
    assert "measured on the tests' statement" in text.stdout
    assert "model output" in text.stdout


def one_lane(times_file: Path, engines: int, games: int, spread: float) -> dict[str, Any]:
    """Level 4 alone (0.01 s) on one instance of `engines` engines, no queue bound: an
    M/G/c queue with log-normal costs."""
    return capacity(
        times_file,
        *("--mix", "4:1", "--games", str(games), "--instances", "1"),
        *("--engines", str(engines), "--short-engines", "0"),
        *("--max-queue", "1000000", "--queue-timeout", "100000", "--overhead-ms", "0"),
        *("--cost-spread", str(spread), "--requests", "40000"),
    )


def expected_wait(engines: int, rate: float, spread: float) -> float:
    """Mean wait of M/G/c: Erlang C's M/M/c wait times (1 + CV^2) / 2 (Allen-Cunneen;
    exact for c = 1, Pollaczek-Khinchine), for log-normal costs of median 0.01 s."""
    mean = COSTS[4] * math.exp(spread**2 / 2)
    cv2 = math.exp(spread**2) - 1
    a = rate * mean
    top = a**engines / math.factorial(engines) * engines / (engines - a)
    waits = top / (sum(a**k / math.factorial(k) for k in range(engines)) + top)
    return waits * mean / (engines - a) * (1 + cv2) / 2


@pytest.mark.parametrize(
    ("engines", "load", "spread"), [(1, 0.7, 0.5), (1, 0.5, 1.0), (3, 0.8, 0.5)]
)
def test_the_simulation_agrees_with_queueing_theory(
    times_file: Path, engines: int, load: float, spread: float
) -> None:
    mean = COSTS[4] * math.exp(spread**2 / 2)
    games = round(load * engines / mean * 15)  # a move every 15 s a game
    out = one_lane(times_file, engines, games, spread)
    assert out["wait_mean_s"] == pytest.approx(expected_wait(engines, games / 15, spread), rel=0.12)
    assert out["refused"] == 0


def test_more_engines_wait_less(times_file: Path) -> None:
    p99 = [one_lane(times_file, e, 1200, 0.5)["wait_p99_s"] for e in (1, 2, 4)]
    assert p99[0] > p99[1] > p99[2], p99


def test_the_fast_levels_keep_an_engine_under_a_slow_load(times_file: Path) -> None:
    """Levels 1 and 8 on 4 instances of 2 engines, level 8 over its lane (6 busy engines): with
    an engine kept for the fast levels (the default), level 1's p99 stays near its cost;
    without one (--short-engines 0) it waits behind level 8's searches."""
    base = (
        *("--games", "180", "--mix", "1:0.5,8:0.5", "--instances", "4", "--engines", "2"),
        *("--requests", "20000"),
    )
    kept = capacity(times_file, *base)["kind_p99_s"]["xiangqi 1"]
    shared = capacity(times_file, *base, "--short-engines", "0")["kind_p99_s"]["xiangqi 1"]
    assert kept < 0.2 < shared, (kept, shared)


def test_sizing_meets_its_target_with_the_fewest_instances(times_file: Path) -> None:
    args = ("--games", "3000", "--mix", "1:0.5,6:0.5", "--requests", "20000")
    sized = capacity(times_file, *args, "--target-p99-wait", "0.2")
    assert sized["wait_p99_s"] <= 0.2
    n = sized["instances"]
    assert sized["cores"] == sized["engines"] == 2 * n
    fewer = capacity(times_file, *args, "--instances", str(n - 1))
    assert fewer["wait_p99_s"] is None or fewer["wait_p99_s"] > 0.2, fewer
