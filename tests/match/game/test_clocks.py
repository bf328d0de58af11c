"""Real clocks with real engines: UCI gets ``go wtime/btime/winc/binc``, UCCI ``go time
increment opptime oppincrement``, the PGN carries ``[%clk]``, and an engine that cannot
keep to its clock loses on time."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import chess.pgn
import pytest

from ladder.match.game.clocks import Clock, TimeControl
from ladder.match.output.pgn import read_pgn
from ladder.match.output.store import ResultStore

FAULTY_ENGINE = Path(__file__).parents[2] / "faulty_engine.py"


def ladder(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ladder.cli", *args], capture_output=True, text=True, timeout=600
    )


@pytest.mark.parametrize(
    ("proto", "go", "start"),
    [
        ("uci", r"> go wtime (\d+) btime (\d+) winc 100 binc 100", "3000"),
        ("ucci", r"> go time (\d+) increment 100 opptime (\d+) oppincrement 100", "3000"),
        # XBoard: `level` once a game, then the clocks in centiseconds before each `go`.
        # Sjaak II: the patched engine in XBoard mode cannot load our variants, and
        # (found out) it prints a move it did not make when its clock leaves it no time
        ("xboard", r"> time (\d+)\n.*> otim (\d+)", "300"),
    ],
)
def test_engines_play_on_the_clock(
    tmp_path: Path, engine_exe: Path, proto: str, go: str, start: str
) -> None:
    pgn, out = tmp_path / "c.pgn", tmp_path / "c.json"
    cmd = "/usr/games/sjaakii" if proto == "xboard" else str(engine_exe)
    options = [] if proto == "xboard" else ["option.Move Overhead=200"]
    done = ladder(
        "--log-level", "debug", "match", "level:1",
        "-engine", f"cmd={cmd}", f"proto={proto}", "tc=3+0.1", "timemargin=2000", *options,
        "name=clocked",
        # one game at a time: a game's protocol lines come in order on stderr
        "--variant", "xiangqi", "--games", "2", "-j", "1", "--max-plies", "24",
        "--db", str(tmp_path / "c.sqlite"), "--pgn", str(pgn), "--json", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    wire = re.findall(go, done.stderr)
    assert wire, "no clocked go on the wire"
    if proto == "xboard":  # the time control before each game's clocks (at least once a
        # game: an engine restarted mid-game, as a loaded machine may cause, gets it again)
        assert done.stderr.count("> level 0 0:03 0.1\n") >= 2
    # both clocks are the engine's own (level:1 has none): 3 s at first, then they move
    assert (start, start) in wire and len(set(wire)) > 1
    doc = json.loads(out.read_text())
    assert doc["players"]["b"]["tc"] == "3+0.1"
    assert {g["reason"] for g in doc["games"]} <= {"max-plies", "checkmate", "stalemate"}
    with ResultStore(tmp_path / "c.sqlite") as store:
        records = {r.game_no: r for r in store.records()}
    for parsed in read_pgn(pgn.read_text()):
        rec = records[int(parsed.headers["GameNo"])]
        clocked_red = rec.red == "clocked"
        clocks = []
        for ply, comment in enumerate(parsed.comments):
            node = chess.pgn.Game()
            node.comment = comment or ""
            if ply >= rec.book_plies and (ply % 2 == 0) == clocked_red:
                clocks.append(node.clock())
            else:
                assert node.clock() is None  # level:1 plays without a clock
        # the clock after each move: the one before, less the search, plus the increment
        infos = [
            i for k, i in enumerate(rec.infos) if ((rec.book_plies + k) % 2 == 0) == clocked_red
        ]
        expected, before = [], 3.0
        for info in infos:
            before = before - info.seconds + 0.1
            assert info.clock == pytest.approx(before, abs=0.002)
            expected.append(int(before * 10) / 10)
        assert clocks == pytest.approx(expected, abs=0.11)


def test_an_engine_that_overruns_its_clock_loses_on_time(tmp_path: Path, engine_exe: Path) -> None:
    # every search held back 1 s, against a 0.5 s clock and no margin: the first overruns it
    out = tmp_path / "t.json"
    slow = f'engine:{sys.executable},args="{FAULTY_ENGINE} {engine_exe} --delay 1",tc=0.5,name=slow'
    done = ladder(
        "match", slow, "random",
        "--variant", "xiangqi", "--games", "2", "-j", "2",
        "--db", str(tmp_path / "t.sqlite"), "--json", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    games = json.loads(out.read_text())["games"]
    assert [g["reason"] for g in games] == ["timeout", "timeout"]
    assert all(g["winner"] == ("black" if g["red"] == "slow" else "red") for g in games)


def test_clock_periods() -> None:
    clock = Clock(TimeControl(2, 10.0, 1.0))
    assert clock.spend(4.0) and (clock.remaining, clock.moves_left) == (7.0, 1)
    assert clock.spend(4.0) and (clock.remaining, clock.moves_left) == (14.0, 2)
    assert not clock.spend(14.5)  # no margin
    late = Clock(TimeControl(None, 1.0), margin=0.5)
    assert late.spend(1.4) and late.remaining == 0.0 and late.moves_left is None
