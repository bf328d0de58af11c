"""The `ladder` command's global options, through the real command in a subprocess."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from ladder.rules import Game
from tests.service.helpers import OUT_OF_BOOK

ROOT = Path(__file__).resolve().parents[1]
# A wire-log record: logger, engine name, pid, direction, line.
_WIRE = re.compile(r" DEBUG protocol\.engine: (.+) \(pid (\d+)\) ([<>]) (.*)$", re.MULTILINE)


def _ladder(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "MISTBOARD_LOG_LEVEL"}
    return subprocess.run(
        [sys.executable, "-m", "ladder.cli", *args],
        cwd=cwd,
        env={**env, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_log_level_debug_shows_every_engine_line(engine_exe: Path) -> None:
    # Level 4 out of the book and after ply 20 plays the engine's best move (no variety).
    late = f"{Game.from_fen('xiangqi', None, OUT_OF_BOOK).fen().rsplit(' ', 1)[0]} 11"
    move = ["move", "--variant", "xiangqi", "--fen", late, "--level", "4", "--seed", "1"]
    quiet = _ladder(*move)
    assert quiet.returncode == 0, quiet.stderr
    assert not _WIRE.search(quiet.stderr) and "protocol.engine" not in quiet.stderr
    loud = _ladder("--log-level", "debug", *move)
    assert loud.returncode == 0, loud.stderr
    assert loud.stdout == quiet.stdout  # the same answer, only more said on stderr
    wire = _WIRE.findall(loud.stderr)
    assert len({pid for _, pid, _, _ in wire}) == 1  # one engine, named by its pid
    sent = [line for _, _, arrow, line in wire if arrow == ">"]
    received = [line for _, _, arrow, line in wire if arrow == "<"]
    assert any(line.startswith(f"position fen {late}") for line in sent)
    best = f"bestmove {quiet.stdout.split()[0]}"
    assert any(line == best or line.startswith(f"{best} ponder ") for line in received)
    # Named by its executable until it has said its name.
    assert wire[0][0] == engine_exe.name and wire[-1][0].startswith("Fairy-Stockfish")


def test_log_level_reaches_the_match_workers(tmp_path: Path, engine_exe: Path) -> None:
    """`ladder match` plays in worker processes: the level goes with them."""
    done = _ladder(
        "--log-level",
        "debug",
        "match",
        "level:1",
        "random",
        "--variant",
        "xiangqi",
        "--games",
        "2",
        "-j",
        "1",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    searches = [line for _, _, arrow, line in _WIRE.findall(done.stderr) if arrow == ">"]
    assert sum(line.startswith("go nodes") for line in searches) >= 2


def test_a_bad_log_level_is_one_clear_line() -> None:
    done = _ladder("--log-level", "loud", "levels")
    assert done.returncode == 2
    assert "invalid choice: 'loud'" in done.stderr.strip().splitlines()[-1]
