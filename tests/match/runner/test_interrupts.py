"""SIGINT on a `ladder match` process (as a supervisor or a script sends it, not a
terminal's process group) stops it at once, whatever it is doing when the signal lands:
probing its engines before any worker exists, starting its workers, in the middle of
searches that would take minutes, or between two games. Exit 130, one line saying so, no
traceback, and nothing left running: every process that carried the run's environment
marker (workers, engines, helpers) is gone, orphans included.

Inside the driver's loop a SIGINT is noted and raised between two steps
(``interrupts_deferred``): raised inside ``concurrent.futures``, it could leave a
future's lock held, and the exit then waited forever for the pool's manager thread.

Each stage is landed by watching the run from outside (its processes and its database),
so the signal meets the stage it names; ``test_sigint_at_random_moments`` adds signals at
random moments of the first seconds (argument parsing, imports, the probe, spawning).
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import psutil
import pytest

from ladder.match.output.store import ResultStore
from ladder.match.runner.execute import execute
from ladder.match.runner.interrupts import interrupts_deferred
from ladder.match.runner.match_run import match_tasks
from tests.match.helpers import match_config, match_workers, start_interruptible

FAULTY_ENGINE = Path(__file__).parents[2] / "faulty_engine.py"
MARK = "LADDER_INTERRUPT_TEST"


def _marked(mark: str) -> list[psutil.Process]:
    """Every live process started under this run (its environment carries ``mark``)."""
    found = []
    for process in psutil.process_iter():
        try:
            if process.environ().get(MARK) == mark and process.status() != "zombie":
                found.append(process)
        except psutil.Error:
            continue
    return found


def _stored(db: Path) -> int:
    try:
        with sqlite3.connect(db, timeout=1) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM games").fetchone()[0])
    except sqlite3.Error:
        return 0


def _engines(process: psutil.Process) -> list[psutil.Process]:
    return [p for p in process.children(recursive=True) if p.name().startswith("fairy-stockfish")]


def _interrupt(
    cmd: list[str], ready: Callable[[psutil.Process], bool], *, group: bool = False
) -> tuple[int, str]:
    """Start ``cmd``, SIGINT it once ``ready(driver)`` holds, and check it stopped cleanly:
    returns (exit code, standard error). ``group``: the signal goes to the run's whole
    process group, as a terminal's Ctrl-C does (the run started in a session of its own),
    not to the driver alone."""
    mark = uuid.uuid4().hex
    env = {**os.environ, MARK: mark}
    proc = start_interruptible(cmd, env=env, start_new_session=group)
    try:
        driver = psutil.Process(proc.pid)
        deadline = time.monotonic() + 120
        while True:
            assert proc.poll() is None, "the run ended before the signal: " + (
                proc.stderr.read() if proc.stderr else ""
            )
            assert time.monotonic() < deadline, "the stage to interrupt never came"
            try:
                if ready(driver):
                    break
            except psutil.Error:
                pass  # a process went while we looked
            time.sleep(0.002)
        if group:
            os.killpg(proc.pid, signal.SIGINT)
        else:
            proc.send_signal(signal.SIGINT)
        # A game alone would take minutes: a run that does not stop at once times out.
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    deadline = time.monotonic() + 20
    while (left := _marked(mark)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not left, f"left behind: {[p.cmdline()[:3] for p in left]}\n{err}"
    return proc.returncode, err


def _match(tmp_path: Path, *players: str, games: int = 2, jobs: int = 2) -> list[str]:
    db = tmp_path / f"{uuid.uuid4().hex[:8]}.sqlite"
    cmd = [sys.executable, "-m", "ladder.cli", "match", *players, "--variant", "xiangqi"]
    return [*cmd, "--games", str(games), "-j", str(jobs), "--max-plies", "60", "--db", str(db)]


def _clean_stop(code: int, err: str) -> None:
    assert code == 130, err
    assert "Traceback" not in err and "Error" not in err, err
    (says,) = [line for line in err.splitlines() if "interrupted" in line]
    assert says.startswith("ladder match: interrupted"), err


def _slow(engine_exe: Path) -> str:
    return f"engine:{engine_exe},nodes=500000000"


def _delayed(engine_exe: Path) -> str:
    """An engine each of whose searches waits 5 s first (the probe's too)."""
    delay = f'args="{FAULTY_ENGINE} {engine_exe} --delay 5"'
    return f"engine:{sys.executable},{delay},nodes=1000,name=delayed"


def _slow_to_start(engine_exe: Path) -> str:
    """``_slow``'s engine, each copy started 1 s late: a worker stays in its players'
    start long enough to be seen there, however loaded the machine (a forked worker
    starts its engine within milliseconds, which a poll could miss)."""
    late = f'args="{FAULTY_ENGINE} {engine_exe} --start-delay 1"'
    return f"engine:{sys.executable},{late},nodes=500000000,name=late"


def _probing(driver: psutil.Process) -> bool:
    """The driver checks its engines (they are its own children); no worker yet."""
    return not match_workers(driver) and any(
        "faulty_engine" in " ".join(p.cmdline()) for p in driver.children()
    )


def _worker_starting(driver: psutil.Process) -> bool:
    """A worker process exists and has not started an engine yet."""
    workers = match_workers(driver)
    return bool(workers) and not any(_engines(w) for w in workers)


def _searching(driver: psutil.Process) -> bool:
    """Both workers have an engine that has been searching for a while."""
    workers = match_workers(driver)
    return len(workers) == 2 and all(
        any(e.cpu_times().user > 0.5 for e in _engines(w)) for w in workers
    )


#: Each stage once in `make test`, five more times in `make test-slow`.
REPEATS = [0, *(pytest.param(n, marks=pytest.mark.slow) for n in range(1, 6))]


@pytest.mark.parametrize("repeat", REPEATS)
def test_sigint_while_probing_before_any_worker(
    tmp_path: Path, engine_exe: Path, repeat: int
) -> None:
    delayed = _delayed(engine_exe)
    _clean_stop(*_interrupt(_match(tmp_path, delayed, "random"), _probing))


@pytest.mark.parametrize("repeat", REPEATS)
def test_sigint_while_workers_start(tmp_path: Path, engine_exe: Path, repeat: int) -> None:
    late = _slow_to_start(engine_exe)
    _clean_stop(*_interrupt(_match(tmp_path, late, late), _worker_starting))


@pytest.mark.parametrize("repeat", REPEATS)
def test_sigint_mid_search(tmp_path: Path, engine_exe: Path, repeat: int) -> None:
    slow = _slow(engine_exe)
    _clean_stop(*_interrupt(_match(tmp_path, slow, slow), _searching))


@pytest.mark.parametrize("repeat", REPEATS)
def test_sigint_between_games(tmp_path: Path, engine_exe: Path, repeat: int) -> None:
    """Right after a game is stored: the driver is storing it and handing out the next."""
    cmd = _match(tmp_path, "level:1", "greedy", games=20, jobs=1)
    db = Path(cmd[-1])
    _clean_stop(*_interrupt(cmd, lambda driver: _stored(db) >= 1))


def _fork_server_starting(driver: psutil.Process) -> bool:
    """The fork server that forks the workers runs (its imports take a tenth of a
    second or two); no worker yet."""
    return not match_workers(driver) and any(
        "forkserver" in " ".join(p.cmdline()) for p in driver.children()
    )


@pytest.mark.parametrize("repeat", REPEATS)
def test_ctrl_c_of_a_terminal_while_the_fork_server_starts(
    tmp_path: Path, engine_exe: Path, repeat: int
) -> None:
    """A terminal's Ctrl-C reaches the fork server too, in the middle of its imports."""
    cmd = _match(tmp_path, "level:1", "level:2", games=20)
    _clean_stop(*_interrupt(cmd, _fork_server_starting, group=True))


@pytest.mark.parametrize("repeat", REPEATS)
def test_ctrl_c_of_a_terminal_between_short_searches(
    tmp_path: Path, engine_exe: Path, repeat: int
) -> None:
    """A terminal's Ctrl-C reaches the workers too, while they read their engines'
    lines many times a second."""
    cmd = _match(tmp_path, "level:1", "level:2", games=20)
    db = Path(cmd[-1])
    _clean_stop(*_interrupt(cmd, lambda driver: _stored(db) >= 1, group=True))


@pytest.mark.slow
@pytest.mark.parametrize("repeat", range(12))
def test_sigint_at_random_moments(tmp_path: Path, engine_exe: Path, repeat: int) -> None:
    """A signal at a random moment of the first seconds: before the interpreter handles
    SIGINT at all the process dies of it (-2), which stops it too; otherwise the clean
    stop above."""
    slow = _slow(engine_exe)
    start = time.monotonic()
    delay = random.Random(repeat).uniform(0.0, 4.0)
    code, err = _interrupt(_match(tmp_path, slow, slow), lambda _: time.monotonic() - start > delay)
    if code != -signal.SIGINT:
        assert code == 130, err
        assert "interrupted" in err and "Error" not in err, err


@pytest.fixture
def python_sigint() -> Iterator[None]:
    """SIGINT handled by Python, as in a command started in the foreground."""
    assert threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_a_deferred_sigint_is_raised_by_check_and_not_before(python_sigint: None) -> None:
    with pytest.raises(KeyboardInterrupt), interrupts_deferred() as interrupt:
        interrupt.check()  # nothing yet
        signal.raise_signal(signal.SIGINT)  # noted, not raised here
        noted = interrupt.requested
        with pytest.raises(KeyboardInterrupt):
            interrupt.check()
    assert noted
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_deferred_sigint_never_checked_is_raised_on_leaving(python_sigint: None) -> None:
    with pytest.raises(KeyboardInterrupt), interrupts_deferred():
        signal.raise_signal(signal.SIGINT)
        done = True
    assert done


def test_a_sigint_within_raising_is_raised_where_it_lands(python_sigint: None) -> None:
    reached: list[str] = []
    with interrupts_deferred() as interrupt:
        with pytest.raises(KeyboardInterrupt), interrupt.raising():
            signal.raise_signal(signal.SIGINT)
            reached.append("after the signal")
        interrupt.requested = False  # that one is handled
        signal.raise_signal(signal.SIGINT)  # outside raising(): only noted
        with pytest.raises(KeyboardInterrupt), interrupt.raising():
            reached.append("inside, with one noted before")
        interrupt.requested = False
    assert reached == []


def test_an_ignored_sigint_stays_ignored(python_sigint: None) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with interrupts_deferred() as interrupt:
        signal.raise_signal(signal.SIGINT)
    assert not interrupt.requested
    assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN


class _InterruptedInWait:
    """A backend whose first wait gets a SIGINT in its middle: it must finish that wait
    (its bookkeeping is not cut short), and the driver then stops and cancels."""

    slots = 1
    batch = 1
    interruptible = False

    def __init__(self) -> None:
        self.waits_finished = 0
        self.cancelled = False

    def submit(self, task: object) -> object:
        return task

    def wait(self, handles: Sequence[object], timeout: float | None) -> list[Any]:
        signal.raise_signal(signal.SIGINT)
        self.waits_finished += 1
        return []

    def close(self, cancel: bool = False) -> None:
        self.cancelled = cancel


def test_a_sigint_inside_the_backend_stops_the_run_between_steps(
    tmp_path: Path, python_sigint: None
) -> None:
    config = match_config("random", "random", 4)
    backend = _InterruptedInWait()
    with pytest.raises(KeyboardInterrupt):
        execute(match_tasks(config), ResultStore(tmp_path / "r.sqlite"), backend)
    assert backend.waits_finished == 1
    assert backend.cancelled
