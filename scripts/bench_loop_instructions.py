#!/usr/bin/env python3
"""The match loop's instructions per move: a figure the machine's load does not move.

``scripts/bench_match.py`` times the loop's CPU per move, which on a shared machine moves
by half between runs. This counts instructions instead: it plays each player against
itself in this process with the worker's own code (``run_task``: the game loop, the
protocol client, the rules checker; the PGN with ``--pgn``, as a run with ``--pgn`` makes
it), under ``valgrind --tool=cachegrind``, once
with 1 game and once with ``--games`` games (each after the same warm-up game), and
prints the difference in instructions divided by the difference in moves, so that
start-up and imports cancel out. The engines run outside valgrind (it does not follow
children). The games are the match's (shipped openings, seed 1): the same in any tree,
so two trees compare move for move, e.g. ``PYTHONPATH=<other checkout> python
scripts/bench_loop_instructions.py``.

    .venv/bin/python scripts/bench_loop_instructions.py [--games 5] [--max-plies 200]

It needs ``valgrind`` (``apt-get install valgrind``) and takes about a minute per player.

``--without-protocol``: the game loop's own part alone (``play_game``: the rules
checker, the move records, the seeds, the adjudication; the WXF and the PGN with
``--pgn``), which the
engine's timing does not move. Games of FSF at 200 nodes are played once outside
valgrind (``--games`` + 7 of them), then replayed under it, 2 games against ``--games``
+ 7 after the same warm-up, by players that answer the recorded moves, each checked
legal as the protocol client checks an engine's answer (``validate_move=game.is_legal``).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Any

from bench_match import self_play  # scripts/ is on the path of a script run from it
from chess.engine import Cp, Mate

from ladder.engine_binary import engine_path
from ladder.match.game.clocks import MoveClocks
from ladder.match.game.play import play_game
from ladder.match.players.player import MoveInfo
from ladder.match.players.specs import PlayerSpec
from ladder.match.runner.game_process import run_task, shutdown
from ladder.match.runner.match_run import match_tasks
from ladder.rules import Game
from ladder.seeds import MoveSeed

_REFS = re.compile(r"I\s+refs:\s+([\d,]+)")

#: Set (to anything) for games that make their PGN, as a run with ``--pgn`` has them
#: make it; the children of :func:`_under_cachegrind` take it from the environment.
WITH_PGN = "BENCH_LOOP_PGN"


def _tasks(config: Any) -> list[Any]:
    """The match's tasks, making their PGN only under :data:`WITH_PGN`, as a run with
    ``--pgn`` asks them to (a tree from before ``GameTask.pgn`` always makes it)."""
    tasks = match_tasks(config)
    if WITH_PGN not in os.environ or not hasattr(tasks[0], "pgn"):
        return tasks
    return [dataclasses.replace(t, pgn=True) for t in tasks]


def play(spec: str, games: int, max_plies: int) -> int:
    """Play a warm-up game and ``games`` games of ``spec`` against itself in this
    process; return the moves searched in the ``games`` games."""
    tasks = _tasks(self_play(spec, "xiangqi", games + 1, max_plies))
    run_task(tasks[0])
    moves = 0
    for task in tasks[1 : games + 1]:
        record = run_task(task)
        moves += len(record.moves) - record.book_plies
    shutdown()
    return moves


class _Replayer:
    """A player answering one colour's recorded moves with their recorded search."""

    def __init__(self, spec: PlayerSpec, answers: list[tuple[str, dict[str, Any]]]) -> None:
        self.spec = spec
        self.answers = answers

    async def start(self) -> None:
        pass

    async def new_game(self, variant: str, seed: int) -> None:
        pass

    async def choose(
        self, game: Game, seed: MoveSeed, clocks: MoveClocks | None = None
    ) -> MoveInfo:
        move, info = self.answers.pop(0)
        if not game.is_legal(move):  # what the protocol client's validate_move asks
            raise RuntimeError(f"recorded move {move} is not legal")
        cp, mate = info.get("cp"), info.get("mate")
        score = Cp(cp) if cp is not None else Mate(mate) if mate is not None else None
        depth, nodes = info.get("depth"), info.get("nodes")
        return MoveInfo(move, score, depth, nodes, info["seconds"], info.get("restarts", 0))

    async def close(self) -> None:
        pass


def record_games(games: int, max_plies: int) -> str:
    """Play ``games`` FSF 200-node games (outside valgrind); the JSON file of their moves
    and moves' records."""
    spec = f"engine:{engine_path()},nodes=200,name=fsf-200"
    out = []
    for task in match_tasks(self_play(spec, "xiangqi", games, max_plies)):
        record = run_task(task)
        plies = record.moves[record.book_plies :]
        infos = [
            i if isinstance(i, dict) else i.to_dict() for i in record.infos
        ]  # older trees: dicts
        out.append({"moves": plies, "infos": infos})
    shutdown()
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"spec": spec, "max_plies": max_plies, "games": out}, f)
    return f.name


def replay(path: str, games: int) -> int:
    """Replay the first 2 recorded games (warm-up), then the first ``games`` through
    ``play_game``; return the moves of the latter."""
    with open(path) as f:
        recorded = json.load(f)
    config = self_play(recorded["spec"], "xiangqi", len(recorded["games"]), recorded["max_plies"])
    tasks = _tasks(config)
    loop = asyncio.new_event_loop()
    moves = 0
    for count in (2, games):
        moves = 0
        for task, game in zip(tasks[:count], recorded["games"], strict=False):
            answers = list(zip(game["moves"], game["infos"], strict=True))
            first = 0 if len(task.opening.moves) % 2 == 0 else 1  # Red's index
            red = _Replayer(task.red, answers[first::2])
            black = _Replayer(task.black, answers[1 - first :: 2])
            record = loop.run_until_complete(play_game(task, red, black))
            if record.moves[record.book_plies :] != game["moves"]:
                raise RuntimeError(f"game {task.game_no} replayed otherwise")
            moves += len(game["moves"])
    return moves


def counted(spec: str, games: int, max_plies: int) -> tuple[int, int]:
    """(instructions, moves) of :func:`play` in a child process under cachegrind."""
    return _under_cachegrind(["--child", spec, str(games), str(max_plies)])


def _under_cachegrind(child: list[str]) -> tuple[int, int]:
    """(instructions, moves) of this script run with ``child``'s arguments under
    cachegrind (the child prints its moves last)."""
    command = [
        "valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
        sys.executable, __file__, *child,
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
    ap.add_argument(
        "--without-protocol", action="store_true", help="the game loop's own part alone"
    )
    ap.add_argument("--replay-child", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument(
        "--pgn", action="store_true", help="games that make their PGN, as with `ladder match --pgn`"
    )
    args = ap.parse_args(argv)
    if args.pgn:
        os.environ[WITH_PGN] = "1"
    if args.child:
        spec, games, max_plies = args.child
        print(play(spec, int(games), int(max_plies)))
        return 0
    if args.replay_child:
        path, games = args.replay_child
        print(replay(path, int(games)))
        return 0
    if shutil.which("valgrind") is None:
        print("valgrind is not installed (apt-get install valgrind)", file=sys.stderr)
        return 2
    if args.games < 2:
        ap.error("--games must be at least 2")
    if args.without_protocol:
        return _without_protocol(args.games + 7, args.max_plies)
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
        " engines outside valgrind): the rules checker, the protocol client"
        + (", the PGN." if args.pgn else "; no PGN (--pgn: with it).")
    )
    return 0


def _without_protocol(games: int, max_plies: int) -> int:
    path = record_games(games, max_plies)
    try:
        counts = [_under_cachegrind(["--replay-child", path, str(n)]) for n in (2, games)]
    finally:
        os.unlink(path)
    (one, one_moves), (many, many_moves) = counts
    per_move = (many - one) / (many_moves - one_moves)
    print(
        f"the game loop without the protocol client, FSF 200-node games replayed: "
        f"{many_moves - one_moves} moves, {per_move / 1e3:.1f} k instructions a move"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
