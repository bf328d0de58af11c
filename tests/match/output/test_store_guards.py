"""The results database guards a match's games: a ``--name`` (cutechess: ``-event``)
given again with other settings is refused, not merged into the stored match; and two
runs of one match into one database cannot both play it (the second is refused while
the first lives; a killed run's mark is taken over)."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from ladder.match.exit_codes import ExitCode
from ladder.match.output.store import STALE_AFTER_S
from tests.match.helpers import run_ladder


def _games(db: Path) -> list[tuple[str, str, str]]:
    with sqlite3.connect(db) as conn:
        return list(conn.execute("SELECT match_id, red, black FROM games ORDER BY game_no"))


def test_a_name_given_again_with_other_settings_is_refused(
    tmp_path: Path, engine_exe: Path
) -> None:
    db, pgn = tmp_path / "n.sqlite", tmp_path / "n.pgn"
    first = ["match", "random", "greedy", "--variant", "xiangqi", "--games", "2"]
    done = run_ladder(*first, "--db", str(db), "--name", "X")
    assert done.returncode == ExitCode.DONE, done.stderr
    # the reviewer's reproduction: other players, another variant, the same name
    other = ["match", "level:1", "level:2", "--variant", "crazyhouse-xiangqi", "--games", "4"]
    refused = run_ladder(*other, "--db", str(db), "--name", "X", "--pgn", str(pgn))
    assert refused.returncode == ExitCode.USAGE, refused.stderr
    message = refused.stderr.strip()
    assert message.startswith("ladder match: --name X:") and "\n" not in message, message
    assert "variant" in message and "another --name" in message
    assert len(_games(db)) == 2 and not pgn.exists()
    # cutechess's -event is the same name
    event = run_ladder(
        "match", "-engine", f"cmd={engine_exe}", "name=A", "-engine", f"cmd={engine_exe}",
        "name=B", "-each", "proto=uci", "nodes=300", "-variant", "xiangqi", "-games", "4",
        "-event", "X", "--db", str(db),
    )  # fmt: skip
    assert event.returncode == ExitCode.USAGE and "--name X:" in event.stderr, event.stderr
    # the same settings again: a resume (and a bigger --games extends it)
    again = run_ladder(*first[:-1], "3", "--db", str(db), "--name", "X")
    assert again.returncode == ExitCode.DONE, again.stderr
    assert len(_games(db)) == 3


def test_one_match_is_played_by_one_run_at_a_time(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    command = [
        "match", "level:1", "level:1", "--variant", "xiangqi", "--games", "400",
        "--db", str(db), "--seed", "5",
    ]  # fmt: skip
    first = subprocess.Popen(
        [sys.executable, "-m", "ladder.cli", *command],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not _running(db) and first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _running(db) == [first.pid]
        second = run_ladder(*command)
        assert second.returncode == ExitCode.USAGE, second.stderr
        message = second.stderr.strip()
        assert f"is being played by process {first.pid}" in message and "\n" not in message
        first.send_signal(signal.SIGKILL)  # its mark stays behind
        first.wait(timeout=30)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    assert _running(db) == [first.pid]
    # a dead process's mark is taken over: the match resumes (nothing left to play)
    taken = run_ladder(*command[:6], "1", *command[7:])
    assert taken.returncode == ExitCode.DONE, taken.stderr
    assert _running(db) == []  # and let go at the end


def _running(db: Path) -> list[int]:
    """The pids that mark a match of ``db`` as being played."""
    if not db.exists():
        return []
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return [row[0] for row in conn.execute("SELECT pid FROM running")]
    except sqlite3.OperationalError:  # not created yet
        return []


def test_a_mark_from_another_host_counts_while_its_heartbeat_lasts(tmp_path: Path) -> None:
    """A run on another host (a container) cannot be asked whether it lives: its mark
    counts while its heartbeat is recent, and is taken over once it stopped (a killed
    container's: the reviewer's case, which would have blocked the match for ever)."""
    db = tmp_path / "h.sqlite"
    command = ["match", "random", "greedy", "--variant", "xiangqi", "--db", str(db)]
    assert run_ladder(*command, "--games", "1").returncode == ExitCode.DONE
    with sqlite3.connect(db) as conn:
        (match_id,) = conn.execute("SELECT match_id FROM matches").fetchone()
    for age, code in ((10.0, ExitCode.USAGE), (STALE_AFTER_S + 60, ExitCode.DONE)):
        with sqlite3.connect(db) as conn:
            conn.execute(
                "INSERT OR REPLACE INTO running VALUES (?, 'elsewhere', 1, 0, ?)",
                (match_id, time.time() - age),
            )
        done = run_ladder(*command, "--games", "2")
        assert done.returncode == code, done.stderr
        if code == ExitCode.USAGE:
            assert "played by process 1 on elsewhere" in done.stderr
    assert _running(db) == [] and len(_games(db)) == 2
