"""The results database (SQLite): matches, and every finished game of each.

A game is written in one transaction when it finishes, keyed by ``(match_id, game_no)``
(``INSERT OR IGNORE``: a game can never be stored twice). A match is identified by a
digest of everything that decides its games (players, variant, openings, seed,
adjudication), so running the same command again resumes it: the runner skips the games
already stored and plays the rest; a game that was running when the process died was
never stored, and is played again from the start. WAL mode keeps the database readable
while a match writes to it.
"""

from __future__ import annotations

import contextlib
import json
import socket
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import psutil

from ladder.match.game.play import GameRecord
from ladder.match.output.paths import check_output_path

__all__ = ["MatchBusy", "MatchConflict", "ResultStore", "StoreError", "check_db_path"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    match_id   TEXT PRIMARY KEY,
    tag        TEXT NOT NULL,
    variant    TEXT NOT NULL,
    player_a   TEXT NOT NULL,
    player_b   TEXT NOT NULL,
    config     TEXT NOT NULL,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    match_id       TEXT NOT NULL REFERENCES matches(match_id),
    game_no        INTEGER NOT NULL,
    pair_no        INTEGER NOT NULL,
    opening_no     INTEGER NOT NULL,
    variant        TEXT NOT NULL,
    red            TEXT NOT NULL,
    black          TEXT NOT NULL,
    red_slot       TEXT NOT NULL,
    result         TEXT NOT NULL,
    reason         TEXT NOT NULL,
    plies          INTEGER NOT NULL,
    search_seconds REAL NOT NULL,
    wall_seconds   REAL NOT NULL,
    worker         TEXT NOT NULL,
    finished_at    REAL NOT NULL,
    record         TEXT NOT NULL,
    pgn            TEXT NOT NULL,
    PRIMARY KEY (match_id, game_no)
);
CREATE INDEX IF NOT EXISTS games_variant ON games(variant);
CREATE TABLE IF NOT EXISTS running (
    match_id   TEXT PRIMARY KEY,
    host       TEXT NOT NULL,
    pid        INTEGER NOT NULL,
    started    REAL NOT NULL,
    since      REAL NOT NULL
);
"""


#: How often a run refreshes its "being played" marks (seconds).
HEARTBEAT_S = 30.0
#: A mark from another host whose heartbeat is older than this is a dead run's (seconds).
STALE_AFTER_S = 120.0


class StoreError(ValueError):
    """A ``--db`` file that cannot be a results database (not SQLite, not writable), or
    a match it cannot take now (:class:`MatchConflict`, :class:`MatchBusy`)."""


class MatchConflict(StoreError):
    """A named match that the database holds with other settings."""


class MatchBusy(StoreError):
    """A match another live process is playing into the same database."""


def check_db_path(path: Path) -> None:
    """FileNotFoundError, naming it, when the folder of a database ``path`` is missing;
    IsADirectoryError when ``path`` is a folder (:func:`check_output_path`)."""
    check_output_path("--db", path)


class ResultStore:
    """A results database file (created on first use, in a folder that exists: a typo
    in a path must not leave a database where nobody looks)."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        check_db_path(self.path)
        self._db = sqlite3.connect(self.path, timeout=30.0)
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
            self._db.commit()
        except sqlite3.DatabaseError as exc:  # another file's bytes, /dev/null, a locked file
            self._db.close()
            raise StoreError(
                f"--db {self.path}: cannot be used as a results database ({exc})"
            ) from None

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- matches -------------------------------------------------------------------------

    def ensure_match(
        self,
        match_id: str,
        *,
        tag: str,
        variant: str,
        player_a: str,
        player_b: str,
        config: dict[str, Any],
    ) -> None:
        """Register a match (no-op when it exists: that is a resume)."""
        with self._db:
            self._db.execute(
                "INSERT OR IGNORE INTO matches VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    match_id,
                    tag,
                    variant,
                    player_a,
                    player_b,
                    json.dumps(config, sort_keys=True),
                    time.time(),
                ),
            )

    def stored_config(self, match_id: str) -> dict[str, Any] | None:
        """The settings a registered match was registered with (None: not registered)."""
        row = self._db.execute(
            "SELECT config FROM matches WHERE match_id = ?", (match_id,)
        ).fetchone()
        return None if row is None else dict(json.loads(row[0]))

    @contextlib.contextmanager
    def playing(self, match_ids: Iterable[str]) -> Iterator[None]:
        """Mark ``match_ids`` as being played by this process while the block runs:
        :class:`MatchBusy` if another live process plays one of them into this database
        (both would play every game, and the one whose writes lose would report none).
        A mark left by a process that is gone (killed) is taken over: on this host, a
        pid that no longer runs; from another host (a container that is gone), a mark
        whose heartbeat (:data:`HEARTBEAT_S`) stopped :data:`STALE_AFTER_S` ago."""
        ids = list(match_ids)
        me = psutil.Process()
        host, started = socket.gethostname(), me.create_time()
        mine = [(match_id, me.pid, host) for match_id in ids]
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")  # no other run between the check and the mark
            for match_id in ids:
                row = self._db.execute(
                    "SELECT host, pid, started, since FROM running WHERE match_id = ?",
                    (match_id,),
                ).fetchone()
                if row is not None and (row[0], row[1]) != (host, me.pid) and _alive(*row):
                    raise MatchBusy(
                        f"--db {self.path}: the match {match_id!r} is being played by process "
                        f"{row[1]} on {row[0]} (its last sign of life at "
                        f"{time.strftime('%H:%M:%S', time.localtime(row[3]))}): wait for it to "
                        "end, or stop it; then the same command resumes the match"
                    )
                self._db.execute(
                    "INSERT OR REPLACE INTO running VALUES (?, ?, ?, ?, ?)",
                    (match_id, host, me.pid, started, time.time()),
                )
        stop = threading.Event()
        beat = threading.Thread(target=self._heartbeat, args=(mine, stop), daemon=True)
        beat.start()
        try:
            yield
        finally:
            stop.set()
            beat.join()
            with self._db:
                self._db.executemany(
                    "DELETE FROM running WHERE match_id = ? AND pid = ? AND host = ?", mine
                )

    def _heartbeat(self, mine: list[tuple[str, int, str]], stop: threading.Event) -> None:
        """Refresh this process's marks every HEARTBEAT_S (its own connection: a thread)."""
        db = sqlite3.connect(self.path, timeout=30.0)
        try:
            while not stop.wait(HEARTBEAT_S):
                with contextlib.suppress(sqlite3.Error), db:  # a busy moment: the next beat
                    db.executemany(
                        "UPDATE running SET since = ? WHERE match_id = ? AND pid = ? AND host = ?",
                        [(time.time(), *key) for key in mine],
                    )
        finally:
            db.close()

    def matches(self, tag: str | None = None) -> list[dict[str, Any]]:
        """Registered matches (optionally with one tag)."""
        sql = "SELECT match_id, tag, variant, player_a, player_b, config FROM matches"
        rows = (
            self._db.execute(sql + " WHERE tag = ?", (tag,))
            if tag is not None
            else self._db.execute(sql)
        )
        return [
            dict(
                zip(
                    ("match_id", "tag", "variant", "player_a", "player_b", "config"),
                    row,
                    strict=True,
                )
            )
            for row in rows
        ]

    # -- games ---------------------------------------------------------------------------

    def add_game(self, record: GameRecord) -> bool:
        """Store a finished game; False if that game was already stored."""
        with self._db:
            cur = self._db.execute(
                "INSERT OR IGNORE INTO games VALUES "
                "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    record.match_id,
                    record.game_no,
                    record.pair_no,
                    record.opening_no,
                    record.variant,
                    record.red,
                    record.black,
                    record.red_slot,
                    record.result,
                    record.reason,
                    len(record.moves),
                    sum(record.search_seconds.values()),
                    record.wall_seconds,
                    record.worker,
                    record.finished_at,
                    record.stored(),
                    record.pgn,
                ),
            )
        return cur.rowcount == 1

    def done_games(self, match_id: str) -> set[int]:
        """Numbers of the stored games of a match."""
        return {
            row[0]
            for row in self._db.execute("SELECT game_no FROM games WHERE match_id = ?", (match_id,))
        }

    def count_games(self, match_ids: Iterable[str], reason: str) -> int:
        """How many stored games of some matches ended for ``reason`` (an
        :class:`~ladder.match.game.endings.Ending`), read off its column: no game is
        decoded."""
        ids = list(match_ids)
        marks = ",".join("?" * len(ids))
        row = self._db.execute(
            f"SELECT COUNT(*) FROM games WHERE match_id IN ({marks}) AND reason = ?",
            [*ids, reason],
        ).fetchone()
        return int(row[0])

    def records(self, match_ids: Iterable[str] | None = None) -> Iterator[GameRecord]:
        """Stored games (of some matches), by match and game number."""
        if match_ids is None:
            rows = self._db.execute("SELECT record, pgn FROM games ORDER BY match_id, game_no")
        else:
            ids = list(match_ids)
            marks = ",".join("?" * len(ids))
            rows = self._db.execute(
                f"SELECT record, pgn FROM games WHERE match_id IN ({marks}) "
                "ORDER BY match_id, game_no",
                ids,
            )
        for text, pgn in rows:
            yield GameRecord.read(text, pgn)


def _alive(host: str, pid: int, started: float, since: float) -> bool:
    """Whether the process that marked a match as being played still runs: on this host,
    the same pid started at the same time (a pid is reused); on another host, whether
    its heartbeat is recent."""
    if host != socket.gethostname():
        return time.time() - since < STALE_AFTER_S
    try:
        return abs(psutil.Process(pid).create_time() - started) < 1.0
    except psutil.Error:
        return False
