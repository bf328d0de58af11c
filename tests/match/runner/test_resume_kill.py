"""A `ladder match` killed with SIGKILL mid-run resumes with no game lost or doubled."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Sequence
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import psutil
import pytest

from ladder.match.output.pgn import read_pgn
from ladder.match.output.store import ResultStore
from ladder.match.runner.errors import MatchError
from ladder.match.runner.execute import execute
from ladder.match.runner.match_run import match_tasks
from tests.match.helpers import match_config, match_workers, start_interruptible

GAMES = 10


def _stored(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return conn.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def test_sigkill_then_resume(tmp_path: Path, engine_exe: Path) -> None:
    db, pgn, out = tmp_path / "k.sqlite", tmp_path / "k.pgn", tmp_path / "k.json"
    cmd = [
        sys.executable,
        "-m",
        "ladder.cli",
        "match",
        "level:1",
        "greedy",
        "--variant",
        "xiangqi",
        "--games",
        str(GAMES),
        "-j",
        "2",
        "--seed",
        "9",
        "--max-plies",
        "200",
        "--db",
        str(db),
        "--pgn",
        str(pgn),
        "--json",
        str(out),
        "--json-interval",
        "1",  # (default 100) a running document to find after the kill
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while (
            (_stored(db) < 2 or not out.exists())
            and time.monotonic() < deadline
            and proc.poll() is None
        ):
            time.sleep(0.05)
        assert proc.poll() is None, "the match ended before it could be killed"
        assert _stored(db) < GAMES
        family = psutil.Process(proc.pid).children(recursive=True)
        os.kill(proc.pid, signal.SIGKILL)  # the driver only: workers must follow it
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    _, alive = psutil.wait_procs(family, timeout=10)
    assert not alive, f"orphans left: {alive}"
    before = _stored(db)
    assert 2 <= before < GAMES
    # --json FILE is rewritten whole every game here: the killed run left a running one
    running = json.loads(out.read_text())
    assert running["status"] == "running" and running["exit_code"] is None
    assert 1 <= len(running["games"]) == running["result"]["games"] <= before

    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"resumed past {before}" in done.stdout
    final = json.loads(out.read_text())
    assert (final["status"], final["exit_code"], len(final["games"])) == ("done", 0, GAMES)

    with sqlite3.connect(db) as conn:
        numbers = [row[0] for row in conn.execute("SELECT game_no FROM games ORDER BY game_no")]
    assert numbers == list(range(GAMES))
    games = list(read_pgn(pgn.read_text()))
    assert sorted(int(g.headers["GameNo"]) for g in games) == list(range(GAMES))


def test_ctrl_c_abandons_long_games_at_once(tmp_path: Path, engine_exe: Path) -> None:
    """SIGINT (Ctrl-C) in the middle of searches that would take minutes: the command
    exits promptly with 130, and no worker or engine is left behind."""
    slow = f"engine:{engine_exe},nodes=500000000"
    cmd = [sys.executable, "-m", "ladder.cli", "match", slow, slow]
    cmd += ["--variant", "xiangqi", "--games", "2", "-j", "2", "--db", str(tmp_path / "i.sqlite")]
    proc = start_interruptible(cmd)
    try:
        driver = psutil.Process(proc.pid)
        deadline = time.monotonic() + 120

        def searching_in_a_worker() -> bool:
            return any(
                p.name().startswith("fairy-stockfish") and p.ppid() != proc.pid
                for p in driver.children(recursive=True)
                if p.is_running()
            )

        while not searching_in_a_worker() and time.monotonic() < deadline:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            time.sleep(0.05)
        assert searching_in_a_worker(), "no game started in a worker"
        family = driver.children(recursive=True)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)  # a game alone would take minutes
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    _, alive = psutil.wait_procs(family, timeout=20)
    assert not alive, f"left behind: {alive}"


def test_a_dead_worker_aborts_the_match_with_exit_1(tmp_path: Path, engine_exe: Path) -> None:
    """A worker process killed under the driver: not an engine's failure and not a
    result, so the match stops with exit 1 (aborted), says so in one line and in --json,
    leaves nothing running, and the same command then finishes it."""
    db, out = tmp_path / "a.sqlite", tmp_path / "a.json"
    cmd = [sys.executable, "-m", "ladder.cli", "match", "level:1", "greedy"]
    cmd += ["--variant", "xiangqi", "--games", str(GAMES), "-j", "2", "--max-plies", "200"]
    cmd += ["--db", str(db), "--json", str(out)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        driver = psutil.Process(proc.pid)
        deadline = time.monotonic() + 60
        while _stored(db) < 1 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert proc.poll() is None, "the match ended before a worker could be killed"
        workers = match_workers(driver)
        assert workers, "no worker process"
        family = driver.children(recursive=True)
        workers[0].kill()
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 1, err
    assert "Traceback" not in err
    (says,) = [line for line in err.splitlines() if line.startswith("ladder match:")]
    assert says.startswith("ladder match: a game failed: BrokenProcessPool"), says
    doc = json.loads(out.read_text())
    assert (doc["status"], doc["exit_code"]) == ("aborted", 1)
    assert len(doc["games"]) == _stored(db) < GAMES
    _, alive = psutil.wait_procs([p for p in family if p.is_running()], timeout=20)
    assert not alive, f"left behind: {alive}"

    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text())["status"] == "done" and _stored(db) == GAMES


class _BrokenAtSubmit:
    """A process pool whose worker died before its game's failure was seen: the next
    submit raises (as concurrent.futures does), then the game in flight fails too."""

    slots = 2
    batch = 1
    interruptible = False

    def __init__(self) -> None:
        self.submitted = 0
        self.cancelled = False

    def submit(self, task: object) -> object:
        self.submitted += 1
        if self.submitted > 1:
            raise BrokenProcessPool("A child process terminated abruptly")
        return task

    def wait(self, handles: Sequence[object], timeout: float | None) -> list[Any]:
        return [(h, BrokenProcessPool("A child process terminated abruptly")) for h in handles]

    def close(self, cancel: bool = False) -> None:
        self.cancelled = cancel


def test_a_pool_broken_at_submit_fails_the_run_like_a_dead_worker(tmp_path: Path) -> None:
    """The race of the test above (the pool found broken when the next game is handed to
    it) is the same failure: MatchError naming it, not a traceback out of the driver."""
    with pytest.raises(MatchError, match="a game failed: BrokenProcessPool"):
        execute(
            match_tasks(match_config("random", "random", 4)),
            ResultStore(tmp_path / "r.sqlite"),
            _BrokenAtSubmit(),
        )
