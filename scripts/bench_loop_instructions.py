#!/usr/bin/env python3
"""The match loop's instructions per move: a figure the machine's load does not move.

``scripts/bench_match.py`` times the loop's CPU per move, which on a shared machine moves
by half between runs. This counts instructions instead: it plays each player against
itself in this process with the worker's own code (``run_task``: the game loop, the
protocol client, the rules checker, the PGN), under ``valgrind --tool=cachegrind``, once
with 1 game and once with ``--games`` games (each after the same warm-up game), and
prints the difference in instructions divided by the difference in moves, so that
start-up and imports cancel out. The engines run outside valgrind (it does not follow
children). The games are the match's (shipped openings, seed 1): the same in any tree,
so two trees compare move for move, e.g. ``PYTHONPATH=<other checkout> python
scripts/bench_loop_instructions.py``.

    .venv/bin/python scripts/bench_loop_instructions.py [--games 5] [--max-plies 200]

It needs ``valgrind`` (``apt-get install valgrind``) and takes about a minute per player.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import time

from bench_match import self_play  # scripts/ is on the path of a script run from it

from ladder.engine_binary import engine_path
from ladder.match.runner.game_process import run_task, shutdown
from ladder.match.runner.match_run import match_tasks

_REFS = re.compile(r"I\s+refs:\s+([\d,]+)")


def play(spec: str, games: int, max_plies: int) -> int:
    """Play a warm-up game and ``games`` games of ``spec`` against itself in this
    process; return the moves searched in the ``games`` games."""
    tasks = match_tasks(self_play(spec, "xiangqi", games + 1, max_plies))
    run_task(tasks[0])
    moves = 0
    for task in tasks[1 : games + 1]:
        record = run_task(task)
        moves += len(record.moves) - record.book_plies
    shutdown()
    return moves


def counted(spec: str, games: int, max_plies: int) -> tuple[int, int]:
    """(instructions, moves) of :func:`play` in a child process under cachegrind."""
    command = [
        "valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
        sys.executable, __file__, "--child", spec, str(games), str(max_plies),
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    found = _REFS.search(done.stderr)
    if found is None:
        raise RuntimeError(f"no instruction count from valgrind: {done.stderr[-500:]}")
    return int(found.group(1).replace(",", "")), int(done.stdout.split()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=5)
    ap.add_argument("--max-plies", type=int, default=200)
    ap.add_argument(
        "--child", nargs=3, metavar=("SPEC", "GAMES", "MAX_PLIES"), help=argparse.SUPPRESS
    )
    args = ap.parse_args(argv)
    if args.child:
        spec, games, max_plies = args.child
        print(play(spec, int(games), int(max_plies)))
        return 0
    if shutil.which("valgrind") is None:
        print("valgrind is not installed (apt-get install valgrind)", file=sys.stderr)
        return 2
    if args.games < 2:
        ap.error("--games must be at least 2")
    engine = engine_path()
    specs = [
        f"engine:{engine},nodes=200,name=fsf-200",
        f"engine:{engine},nodes=3000,name=fsf-3000",
        "level:1",
    ]
    print(f"{'players (each against itself)':<30} {'moves':>6} {'instructions/move':>18}  took")
    for spec in specs:
        t0 = time.perf_counter()
        one, one_moves = counted(spec, 1, args.max_plies)
        many, many_moves = counted(spec, args.games, args.max_plies)
        per_move = (many - one) / (many_moves - one_moves)
        shown = spec.rsplit("name=", 1)[-1] if "name=" in spec else spec
        took = time.perf_counter() - t0
        print(f"{shown:<30} {many_moves - one_moves:6d} {per_move / 1e6:17.3f}M  {took:.0f} s")
    print(
        f"instructions per move of the match loop in one process ({args.games} games less 1,"
        " engines outside valgrind): the rules checker, the protocol client, the PGN."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
