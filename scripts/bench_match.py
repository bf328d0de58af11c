#!/usr/bin/env python3
"""Match throughput: a fixed match, timed, against the engine-only bound.

Plays ``--games`` games of ``--a`` against ``--b`` (default level:5, 2,500 nodes, against itself,
xiangqi, the shipped openings, seed 1) on the local process pool with one game per core,
into a throw-away database, and reports:

* games/hour;
* the engine-only bound: the sum of every search's time (from writing ``ucinewgame`` /
  ``position`` / ``go``, one write, to reading ``bestmove``) divided by the concurrency
  -- the wall time if nothing but the engines' searching took time;
* the ratio wall / bound (1.00 = no overhead; the target is <= 1.10);
* CPU use of the whole process tree (driver, workers, engines) over wall x cores;
* a stricter bound beside it: the engine processes' own CPU time divided by the
  concurrency. Under full load a search's wall time also holds the moments its engine
  waited for a core (taken by a game loop) and the wait for its game loop to read
  ``bestmove``; the engines' CPU time does not.
* Python's CPU (issue 37's figure), per searched move (book plies left out), and its
  parts: the driver's own (SQLite included), each worker's own from its start to its
  exit (its ``getrusage(RUSAGE_SELF)``, written by an exit hook this script installs in
  the workers: they import it as ``__mp_main__``, spawned or forked by the fork server),
  and multiprocessing's helpers: its resource tracker and its fork server. The engines'
  CPU is the rest of the process tree's (with the children the fork server reaped): the
  engines started by the workers and by the driver's check of the players, start-up and
  exit included. (Sampling the engines every 0.1 s, as this bench did before, missed the
  engines' last tenth of a second and the check's short-lived ones, about 0.5 CPU-s of
  a 200-game match, and counted it as Python's.)

The default 100 games (about 40 s at level 5) keep the pool's start-up and the last,
lone game's idle core to about 1 % of the wall time; at 20 games they were several %.

    .venv/bin/python scripts/bench_match.py [--games 100] [--pgn]

``--pgn``: the match writes a PGN file, as ``ladder match --pgn FILE`` does (its games'
PGN is then made by the workers); without it, as without ``--pgn``, the games make none.

Part 3 (``--driver``): the driver's own work per game as a match grows (issue 37):
``random`` against ``greedy`` at 60 plies on 2 workers, 200 and 2,000 games, with and
without ``--json`` (and ``--pgn`` in both), run through the CLI of each tree named by
``--tree NAME=PATH`` (``PYTHONPATH``; default this checkout), one run after the other:
wall time and the driver process's own CPU (its ``getrusage(RUSAGE_SELF)`` at exit), and
the ratios with/without ``--json`` side by side. Then, in this process on this tree, the
driver's CPU per game in windows of ``--window`` games over a ``--growing``-game match
(an output that reads ``time.process_time()`` at every game, added to the run's
outputs for the bench only), the last window's against the first's.

    .venv/bin/python scripts/bench_match.py --loop-games 0 --driver --tree before=/work/main

Part 4 (``--ray GAMES``): the driver's CPU per game on Ray (issue 37: at most 2 ms):
``level:1`` against ``level:2`` with an SPRT (0, 10) on a local Ray instance with 2
CPUs, in this process, its CPU from the first game stored to the last over the games
between (the start, Ray's included, left out), all its threads and the run loop's own;
once as a log, once with the live progress bar of a terminal. Ray's own threads take
about 1 ms of CPU a second whatever the driver does, so the figure per game depends on
how fast the games come (the machine's load).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psutil

#: The folder where each pool worker writes its own CPU time as it exits.
WORKER_CPU_DIR = "BENCH_WORKER_CPU_DIR"


def _write_worker_cpu() -> None:
    """At a pool worker's exit, after its players closed: its own CPU seconds, its
    engines' left out, in the folder of the pool run that started it (a worker of the
    fork server takes the driver's environment only as it starts, after it imported
    this script: the folder is looked up here)."""
    if WORKER_CPU_DIR not in os.environ:
        return
    own = resource.getrusage(resource.RUSAGE_SELF)
    Path(os.environ[WORKER_CPU_DIR], f"worker-{os.getpid()}").write_text(
        str(own.ru_utime + own.ru_stime)
    )


class _WorkerHook:
    """Has :func:`_write_worker_cpu` run as a pool worker exits, after its players
    closed. A worker imports this script as ``__mp_main__`` as it starts. A spawned one
    then runs atexit hooks at its exit. One forked by the fork server leaves by
    ``os._exit`` instead, after multiprocessing's finalizers, and runs its after-fork
    hooks as it starts, so this one registers the finalizer there (the lowest priority:
    after the worker's own shutdown)."""

    def __call__(self, _: object) -> None:
        from multiprocessing import util

        util.Finalize(None, _write_worker_cpu, exitpriority=-1)


_worker_hook = _WorkerHook()  # (the after-fork registry holds it weakly)
if __name__ == "__mp_main__":
    import atexit
    from multiprocessing import util

    atexit.register(_write_worker_cpu)
    util.register_after_fork(_worker_hook, _worker_hook)

# A pool worker imports this script as __mp_main__ and
# needs none of the driver's modules: imported there, they would count in the workers'
# CPU as if the match needed them (a `ladder match` worker imports only the `ladder`
# script, 0.07 s; these 0.06 s more a worker).
if __name__ != "__mp_main__":
    from ladder.calibration.pause import calibration_paused
    from ladder.engine_binary import engine_path
    from ladder.match.config import MatchConfig
    from ladder.match.game.adjudication import Adjudication
    from ladder.match.openings import load_openings
    from ladder.match.output.pgn import PgnOptions
    from ladder.match.players.specs import PlayerSpec
    from ladder.match.runner.match_run import match_tasks, register_match, run_match

ROOT = Path(__file__).resolve().parent.parent


def _load_average() -> str:
    """The machine's load averages over 1, 5 and 15 minutes, for the lines before and
    after a part's measurement."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _workers() -> list[psutil.Process]:
    """The pool's worker processes: the children of multiprocessing's fork server (a
    child of this process), or this process's spawned children (a tree that spawned)."""
    found: list[psutil.Process] = []
    for child in psutil.Process().children():
        with contextlib.suppress(psutil.Error):
            line = " ".join(child.cmdline())
            if "forkserver" in line:
                found += child.children()
            elif "spawn_main" in line:
                found.append(child)
    return found


def _tree() -> tuple[float, float, float]:
    """CPU seconds now of (this driver, its worker processes, their engines)."""
    driver = time.process_time()
    workers = engines = 0.0
    for worker in _workers():
        try:
            t = worker.cpu_times()
            workers += t.user + t.system
            for grandchild in worker.children(recursive=True):
                g = grandchild.cpu_times()
                engines += g.user + g.system
        except psutil.Error:
            continue
    return driver, workers, engines


def bench_config(a: str, b: str, variant: str, games: int, **options: Any) -> MatchConfig:
    """Every match of this bench: ``a`` against ``b`` (as ``#A`` and ``#B`` when they have
    the same name), the shipped openings of ``variant``, seed 1; ``options``: the rest of
    :class:`MatchConfig`."""
    player_a, player_b = PlayerSpec.parse(a), PlayerSpec.parse(b)
    if player_a.name == player_b.name:
        player_a = player_a.with_name(player_a.name + "#A")
        player_b = player_b.with_name(player_b.name + "#B")
    return MatchConfig(
        variant=variant,
        player_a=player_a,
        player_b=player_b,
        openings=load_openings(variant),
        games=games,
        seed=1,
        **options,
    )


def self_play(spec: str, variant: str, games: int, max_plies: int) -> MatchConfig:
    """``spec`` against itself (as ``#A`` and ``#B``): the shipped openings, seed 1."""
    return bench_config(spec, spec, variant, games, adjudication=Adjudication(max_plies=max_plies))


def measure_loop(spec: str, variant: str, games: int, max_plies: int) -> dict[str, float]:
    """The match loop's own CPU per move (driver and workers, engines excluded) beside
    the engines' search time per move, for ``spec`` against itself on one worker: a
    warm-up game first (worker and engine start-up, imports), then ``games`` games
    between two CPU snapshots of the live processes."""
    from ladder.match.output.store import ResultStore
    from ladder.match.runner.backends import LocalBackend
    from ladder.match.runner.execute import execute

    config = self_play(spec, variant, games + 1, max_plies)
    tasks = match_tasks(config)
    backend = LocalBackend(1)
    with tempfile.TemporaryDirectory() as tmp, ResultStore(Path(tmp) / "b.sqlite") as store:
        register_match(store, config)
        try:
            execute(tasks[:1], store, backend)  # warm-up
            before, t0 = _tree(), time.perf_counter()
            result = execute(tasks, store, backend)
            after, wall = _tree(), time.perf_counter() - t0
        finally:
            backend.close()
        records = [r for r in store.records([config.match_id]) if r.game_no > 0]
    moves = sum(len(r.moves) - r.book_plies for r in records)
    driver, workers, engines = (x1 - x0 for x0, x1 in zip(before, after, strict=True))
    return {
        "games": result.played,
        "moves": moves,
        "wall": wall,
        "games_per_hour": 3600 * result.played / wall,
        "loop_ms": 1000 * (driver + workers) / moves,
        "driver_ms": 1000 * driver / moves,
        "worker_ms": 1000 * workers / moves,
        "search_ms": 1000 * result.search_seconds / moves,
        "engine_cpu_ms": 1000 * engines / moves,
    }


def side_by_side(specs: list[str], variant: str, games: int, max_plies: int) -> None:
    """Part 1: the loop's CPU per move against the engines' search time, per level."""
    print(f"load average before: {_load_average()}")
    print(
        f"{'players (each against itself)':<44} {'games/h':>8} {'loop ms':>8} "
        f"{'(driver':>8} {'worker)':>8} {'search ms':>9} {'engine CPU':>10}  bound"
    )
    for spec in specs:
        m = measure_loop(spec, variant, games, max_plies)
        bound = "the engines' search" if m["search_ms"] > m["loop_ms"] else "the match loop"
        shown = spec.rsplit("name=", 1)[-1] if "name=" in spec else spec
        print(
            f"{shown:<44} {m['games_per_hour']:8.0f} {m['loop_ms']:8.3f} "
            f"{m['driver_ms']:8.3f} {m['worker_ms']:8.3f} {m['search_ms']:9.3f} "
            f"{m['engine_cpu_ms']:10.3f}  {bound}"
        )
    print(f"load average after:  {_load_average()}")
    print(
        "loop ms: the driver's and the worker's own CPU per searched move (rules checker,"
        " protocol, notation, storing), engines excluded; search ms: the engines' search"
        " time per move (go .. bestmove), engine CPU their CPU time; goal: loop <= 0.3 ms."
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--a", default="level:5")
    ap.add_argument("--b", default="level:5")
    ap.add_argument("--variant", default="xiangqi")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--concurrency", "-j", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--max-plies", type=int, default=300)
    ap.add_argument(
        "--loop-games",
        type=int,
        default=20,
        help="games per level in part 1 (the loop's CPU per move); 0: skip part 1",
    )
    ap.add_argument("--pool", action="store_true", help="also part 2: the pool run of --a vs --b")
    ap.add_argument(
        "--pgn", action="store_true", help="part 2: with a --pgn file (the default form)"
    )
    ap.add_argument("--driver", action="store_true", help="also part 3: the driver per game")
    ap.add_argument(
        "--tree",
        action="append",
        default=[],
        metavar="NAME=PATH",
        help="part 3: a checkout to run the CLI of, side by side with this one",
    )
    ap.add_argument("--driver-games", type=int, nargs="+", default=[200, 2000])
    ap.add_argument("--growing", type=int, default=6000, help="part 3: the growing match's games")
    ap.add_argument("--window", type=int, default=1000)
    ap.add_argument("--ray", type=int, default=0, metavar="GAMES", help="also part 4: on Ray")
    args = ap.parse_args(argv)
    with calibration_paused():
        if args.loop_games:
            engine = engine_path()
            specs = [
                f"engine:{engine},nodes=200,name=fsf-200",
                f"engine:{engine},nodes=3000,name=fsf-3000",
                "level:1",  # 3,000 nodes, MultiPV 99: every legal move's line
            ]
            side_by_side(specs, args.variant, args.loop_games, args.max_plies)
        if args.pool:
            pool_run(args)
        if args.driver:
            trees = dict(t.split("=", 1) for t in args.tree)
            driver_side_by_side({**trees, "this": str(ROOT)}, args.driver_games)
            driver_growing(args.growing, args.window)
        if args.ray:
            driver_on_ray(args.ray)
    return 0


#: Runs the ladder CLI of the tree on PYTHONPATH, then writes its own CPU seconds (the
#: driver's: RUSAGE_SELF, not its workers') to the file named by $BENCH_RUSAGE.
_RUN_CLI = """
import os, resource, sys
from ladder.cli import main
try:
    code = main(sys.argv[1:])
finally:
    r = resource.getrusage(resource.RUSAGE_SELF)
    open(os.environ["BENCH_RUSAGE"], "w").write(str(r.ru_utime + r.ru_stime))
sys.exit(code)
"""


def driver_cli_run(tree: str, games: int, with_json: bool) -> tuple[float, float]:
    """Wall seconds and the driver's CPU seconds of ``ladder match random greedy`` at 60
    plies on 2 workers, with ``--pgn`` (and ``--json``), in the tree ``tree``."""
    import subprocess

    with tempfile.TemporaryDirectory() as tmp:
        cmd = [
            sys.executable, "-c", _RUN_CLI, "match", "random", "greedy",
            "--variant", "xiangqi", "--games", str(games), "--max-plies", "60", "-j", "2",
            "--db", f"{tmp}/m.sqlite", "--pgn", f"{tmp}/m.pgn",
        ]  # fmt: skip
        if with_json:
            cmd += ["--json", f"{tmp}/m.json"]
        env = {**os.environ, "PYTHONPATH": tree, "BENCH_RUSAGE": f"{tmp}/cpu"}
        t0 = time.perf_counter()
        subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, cwd=tmp)
        wall = time.perf_counter() - t0
        return wall, float(Path(f"{tmp}/cpu").read_text())


def driver_side_by_side(trees: dict[str, str], game_counts: list[int]) -> None:
    """Part 3a: each tree's match with and without --json, one after the other."""
    print(f"load average before: {_load_average()}")
    print(
        f"{'tree':<8} {'games':>6} {'wall s':>8} {'+json s':>8} {'ratio':>6} "
        f"{'driver s':>9} {'+json s':>8} {'ratio':>6}  driver ms/game (+json)"
    )
    for games in game_counts:
        for name, tree in trees.items():
            wall, cpu = driver_cli_run(tree, games, False)
            jwall, jcpu = driver_cli_run(tree, games, True)
            print(
                f"{name:<8} {games:>6} {wall:8.1f} {jwall:8.1f} {jwall / wall:6.2f} "
                f"{cpu:9.2f} {jcpu:8.2f} {jcpu / cpu:6.2f}  "
                f"{1000 * cpu / games:.2f} ({1000 * jcpu / games:.2f})",
                flush=True,
            )
    print(f"load average after:  {_load_average()}")


def _driver_clock(
    config: MatchConfig, main_thread: list[float] | None = None, **options: Any
) -> list[float]:
    """Play ``config`` in this process (``options``: :class:`RunOptions`'), and the
    driver's CPU clock (``time.process_time()``: every thread) as each game was stored;
    ``main_thread``, if given, gets the main thread's own (``time.thread_time()``)."""
    from ladder.match.game.play import GameRecord
    from ladder.match.output import registry
    from ladder.match.output.outputs import Output, OutputContext
    from ladder.match.runner.match_run import play_match
    from ladder.match.runner.run_loop import RunOptions

    clock: list[float] = []

    class CpuClock(Output):
        def add(self, record: GameRecord) -> None:
            clock.append(time.process_time())
            if main_thread is not None:
                main_thread.append(time.thread_time())

    def cpu_clock(context: OutputContext) -> Output:
        return CpuClock()

    saved = registry.OUTPUTS
    registry.OUTPUTS = (*saved, cpu_clock)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            run_options = RunOptions(
                db=Path(tmp) / "m.sqlite",
                pgn=PgnOptions(Path(tmp) / "m.pgn"),
                json_path=Path(tmp) / "m.json",
                out=open(os.devnull, "w"),  # noqa: SIM115
                **options,
            )
            play_match(config, run_options)
    finally:
        registry.OUTPUTS = saved
    return clock


def driver_growing(games: int, window: int) -> None:
    """Part 3b: the driver's CPU per game, window by window, over one growing match (this
    tree, in process, with --pgn and --json at the default interval)."""
    config = bench_config(
        "random", "greedy", "xiangqi", games, adjudication=Adjudication(max_plies=60)
    )
    print(f"load average before: {_load_average()}")
    clock = _driver_clock(config, concurrency=2)
    per_window = [
        1000 * (clock[k + window - 1] - clock[k]) / (window - 1)
        for k in range(0, len(clock) - window + 1, window)
    ]
    print(f"driver CPU ms per game, windows of {window} games over {len(clock)}:")
    print("  " + "  ".join(f"{ms:.3f}" for ms in per_window))
    if per_window:
        print(f"  last / first window: {per_window[-1] / per_window[0]:.2f}")
    print(f"load average after:  {_load_average()}")


def driver_on_ray(games: int) -> None:
    """Part 4: the driver's CPU per game of level:1 against level:2 with an SPRT on a
    local Ray instance with 2 CPUs: as a log (no live bar), then with the live bar a
    terminal shows (drawn into /dev/null)."""
    from rich.console import Console

    from ladder.match.statistics.sprt import Sprt

    config = bench_config("level:1", "level:2", "xiangqi", games, sprt=Sprt(elo0=0, elo1=10))
    with open(os.devnull, "w") as devnull:
        terminal = Console(file=devnull, force_terminal=True, width=150)
        for shown, console in (("as a log", None), ("with the live bar", terminal)):
            print(f"load average before: {_load_average()}")
            main_thread: list[float] = []
            t0 = time.perf_counter()
            clock = _driver_clock(
                config, main_thread, concurrency=2, ray_address="local", console=console
            )
            wall = time.perf_counter() - t0
            if len(clock) >= 2:
                n = len(clock) - 1
                per_game = 1000 * (clock[-1] - clock[0]) / n
                own = 1000 * (main_thread[-1] - main_thread[0]) / n
                print(
                    f"driver CPU on Ray, {shown}: {per_game:.2f} ms a game over {n} games "
                    f"(from the first game stored to the last; the target is <= 2 ms): "
                    f"{own:.2f} ms in the run loop's thread, {per_game - own:.2f} ms in "
                    f"Ray's and the bar's threads; {len(clock)} games in {wall:.1f} s "
                    f"({len(clock) / wall:.2f} a second)",
                    flush=True,
                )
            print(f"load average after:  {_load_average()}")


def pool_run(args: argparse.Namespace) -> None:
    """Part 2: games/hour of a match on the whole pool, against the engine-only bound."""
    config = bench_config(
        args.a,
        args.b,
        args.variant,
        args.games,
        adjudication=Adjudication(max_plies=args.max_plies),
    )
    with tempfile.TemporaryDirectory() as tmp:
        # (a fork server started by part 1 lives on: its figures so far are not this run's)
        helpers0, reaped0 = _helpers_cpu()
        cpu0, t0, driver0 = _cpu(), time.perf_counter(), time.process_time()
        os.environ[WORKER_CPU_DIR] = tmp  # (the workers take the driver's environment)
        try:
            stats, result = run_match(
                config,
                db=Path(tmp) / "bench.sqlite",
                concurrency=args.concurrency,
                pgn=Path(tmp) / "bench.pgn" if args.pgn else None,
            )
        finally:
            del os.environ[WORKER_CPU_DIR]
        wall = time.perf_counter() - t0
        driver = time.process_time() - driver0
        workers = [float(f.read_text()) for f in Path(tmp).glob("worker-*")]
        helpers1, reaped1 = _helpers_cpu()
        helpers, reaped = helpers1 - helpers0, reaped1 - reaped0
        cpu = _cpu() - cpu0 + helpers + reaped
        moves, players = _searched_moves(Path(tmp) / "bench.sqlite")
    if len(workers) < players:
        raise SystemExit(f"{players} workers played, {len(workers)} reported their CPU")
    worker_cpu = sum(workers)
    python = driver + worker_cpu + helpers
    engines = cpu - python
    bound = result.search_seconds / args.concurrency
    cpu_bound = engines / args.concurrency
    plies = sum(stats.reasons.values())
    print(
        f"match: {args.a} vs {args.b}, {args.variant}, {result.played} games, "
        f"concurrency {args.concurrency} ({plies} games finished)"
        + (", with a --pgn file" if args.pgn else ", no --pgn file")
    )
    print(f"wall time            {wall:8.1f} s  (incl. start-up of workers and engines)")
    print(f"games/hour           {3600 * result.played / wall:8.0f}")
    print(
        f"engine-only bound    {bound:8.1f} s  (sum of search time {result.search_seconds:.1f} s"
        f" / {args.concurrency})"
    )
    print(f"wall / bound         {wall / bound:8.3f}" if bound else "wall / bound: n/a")
    print(
        f"run loop / bound     {result.wall_seconds / bound:8.3f}  (excluding pool start-up)"
        if bound
        else ""
    )
    print(
        f"CPU busy             {100 * cpu / (wall * args.concurrency):8.1f} %  "
        f"({cpu:.1f} CPU-s over {wall:.1f} s x {args.concurrency} cores)"
    )
    print(
        f"engine CPU bound     {cpu_bound:8.1f} s  (the engines' CPU time "
        f"{engines:.1f} s / {args.concurrency}; start-up included)"
    )
    print(f"wall / CPU bound     {wall / cpu_bound:8.3f}" if cpu_bound else "wall / CPU bound: n/a")
    print(
        f"Python CPU           {python:8.2f} s  ({1000 * python / moves:.3f} ms a move over "
        f"{moves} searched moves; the driver {driver:.2f} s, the {len(workers)} workers "
        f"{worker_cpu:.2f} s from start to exit, multiprocessing's helpers {helpers:.2f} s)"
    )
    print(stats.report())


def _helpers_cpu() -> tuple[float, float]:
    """The CPU seconds of multiprocessing's helpers, the children of this process still
    running after the pool has closed (its resource tracker and fork server), and of the
    children the fork server reaped (the workers and their engines): (0, 0) if none."""
    own = reaped = 0.0
    for child in psutil.Process().children():
        with contextlib.suppress(psutil.Error):
            line = " ".join(child.cmdline())
            if "resource_tracker" in line or "forkserver" in line:
                times = child.cpu_times()
                own += times.user + times.system
                reaped += times.children_user + times.children_system
    return own, reaped


def _searched_moves(db: Path) -> tuple[int, int]:
    """The moves the players searched in the games stored in ``db`` (book plies left
    out), and how many worker processes played them."""
    from ladder.match.output.store import ResultStore

    store = ResultStore(db)
    try:
        records = list(store.records())
    finally:
        store.close()
    return sum(len(r.moves) - r.book_plies for r in records), len({r.worker for r in records})


if __name__ == "__main__":
    sys.exit(main())
