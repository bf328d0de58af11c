#!/usr/bin/env python3
"""How long does ``ladder move`` take from the shell? The installed console script, whole.

Issue 36 asks for a median under 0.3 s for 10 warm runs. Each round runs every case once,
as a subprocess, in the same order, so that the machine's load hits them all alike:

* ``python -c pass``: the interpreter's own start, the floor of any Python command;
* ``ladder --help``: the console script and ``ladder.cli``'s parser, nothing run;
* ``engine start``: the engine started, ``uci`` / ``isready`` answered, quit (what an
  in-process move off the book pays on top of the imports);
* ``book, level 1``: ``ladder move --variant xiangqi --level 1`` from the start (a book
  move: no engine started);
* ``search, level 1`` and ``search, level 4``: after the moves ``h3e3 a10a9``, past the
  book (a search).

Two warm-up rounds are run first, then ``--runs`` (default 10); prints each case's
median wall time and its ratio to ``python -c pass``'s median, its median CPU time (the
command's and its engine's: what the load does not stretch), and the load average, with
the machine's calibration paused (:func:`ladder.calibration.pause.calibration_paused`).
``--against LADDER`` (another checkout's console script, e.g. main's
``.venv/bin/ladder``) adds its ``ladder`` cases to each round, run beside this tree's: a
change measured side by side, under the same load.

    LADDER_ENGINE=... .venv/bin/python scripts/bench_cli_move.py [--runs 10] [--against LADDER]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from ladder.calibration.pause import calibration_paused
from ladder.engine_binary import engine_path

BIN = Path(sys.executable).parent
LADDER = str(BIN / "ladder")
#: Past the opening book at every level (tests/service/helpers.py's OUT_OF_BOOK).
OUT_OF_BOOK = "h3e3 a10a9"
WARMUP = 2


def ladder_cases(ladder: str, suffix: str = "") -> dict[str, tuple[list[str], str | None]]:
    """The cases of the ``ladder`` console script ``ladder`` (named with ``suffix``)."""
    move = [ladder, "move", "--variant", "xiangqi", "--seed", "7"]
    return {
        f"ladder --help{suffix}": ([ladder, "--help"], None),
        f"book, level 1{suffix}": ([*move, "--level", "1"], None),
        f"search, level 1{suffix}": ([*move, "--level", "1", "--moves", OUT_OF_BOOK], None),
        f"search, level 4{suffix}": ([*move, "--level", "4", "--moves", OUT_OF_BOOK], None),
    }


def cases(against: str | None) -> dict[str, tuple[list[str], str | None]]:
    """Each case's command and its standard input."""
    return {
        "python -c pass": ([sys.executable, "-c", "pass"], None),
        "engine start": ([os.fspath(engine_path())], "uci\nisready\nquit\n"),
        **ladder_cases(LADDER),
        **(ladder_cases(against, " (against)") if against else {}),
    }


def run_once(command: list[str], stdin: str | None) -> tuple[float, float]:
    """One run's wall time and CPU time (user + system, the command and its children:
    the engine), in s; a failing command stops the benchmark."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(command, input=stdin, text=True, check=True, capture_output=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--runs", type=int, default=10, help="measured rounds (default 10)")
    ap.add_argument("--against", help="another checkout's ladder console script, run beside")
    args = ap.parse_args()
    todo = cases(args.against)
    times: dict[str, list[float]] = {name: [] for name in todo}
    cpu: dict[str, list[float]] = {name: [] for name in todo}
    with calibration_paused():
        for round_ in range(WARMUP + args.runs):
            for name, (command, stdin) in todo.items():
                took, used = run_once(command, stdin)
                if round_ >= WARMUP:
                    times[name].append(took)
                    cpu[name].append(used)
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    floor = statistics.median(times["python -c pass"])
    print(f"{args.runs} runs after {WARMUP} warm-up rounds; load average {load}")
    print(f"{'case':<28} {'median s':>9} {'min s':>7} {'ratio':>7} {'CPU s':>7}")
    for name, runs in times.items():
        median = statistics.median(runs)
        used = statistics.median(cpu[name])
        print(f"{name:<28} {median:>9.3f} {min(runs):>7.3f} {median / floor:>7.2f} {used:>7.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
