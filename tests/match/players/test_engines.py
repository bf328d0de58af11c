"""The engine players as a match starts them, through `ladder match` with Debian's
xiangqi engines: each engine is sent FENs in the letters it reads (found by setting up
the book's first position, or `fen=`), an engine that cannot take the book's positions
fails the match before its first game in its own words, and a depth- or node-limited
engine's search deadline comes from its own search in that check (or `timeout=`)."""

from __future__ import annotations

import json
import sqlite3
import sys
import time
from pathlib import Path

import pytest

from ladder.match.exit_codes import ExitCode
from ladder.match.players.engines import CHECK_SEARCH_BOUND, MIN_SEARCH_DEADLINE
from ladder.match.players.specs import parse_player
from ladder.match.players.start import probe
from tests.match.helpers import run_ladder

pytestmark = pytest.mark.timeout(600)

FAULTY_ENGINE = Path(__file__).parents[2] / "faulty_engine.py"
SJAAK, MAXQI = Path("/usr/games/sjaakii"), Path("/usr/games/maxqi")
INSTALL_HINT = "run scripts/install_reference_engines.sh (make test does)"
# Two positions after Red's first move (FSF's letters, as a book writes them): Black to
# move, so no game can start from the standard start.
BOOK = (
    'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - id "central cannon";\n'
    'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C4NC1/9/RNBAKAB1R b - - id "horse";\n'
)


def _engine(path: Path) -> Path:
    if not path.exists():
        pytest.fail(f"{path} missing: {INSTALL_HINT}")
    return path


def _match(tmp_path: Path, spec: str, *more: str) -> tuple[int, str, dict[str, object]]:
    book, db, out = tmp_path / "book.epd", tmp_path / "m.sqlite", tmp_path / "m.json"
    book.write_text(BOOK)
    done = run_ladder(
        "match", spec, "greedy", "--variant", "xiangqi", "--games", "2", "-j", "1",
        "--openings", str(book), "--max-plies", "30", "--db", str(db), "--json", str(out),
        *more,
    )  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, done.stderr, json.loads(out.read_text())


def _stored(db: Path) -> list[tuple[int, str]]:
    with sqlite3.connect(db) as conn:
        return list(conn.execute("SELECT game_no, reason FROM games ORDER BY game_no"))


@pytest.mark.parametrize("protocol", ["uci", "ucci"])
def test_sjaak_ii_plays_an_epd_book_in_its_own_letters(tmp_path: Path, protocol: str) -> None:
    # Sjaak II reads h/e, not FSF's n/b, and never answers `go` after a FEN it refused
    # (the match waited 310 s twice, then exit 3): the check finds its letters
    spec = f"engine:{_engine(SJAAK)},protocol={protocol},depth=2"
    code, err, doc = _match(tmp_path, spec)
    assert code == ExitCode.DONE, err
    assert (doc["engine_failures"], doc["error"]) == (0, None)
    games = doc["games"]
    assert isinstance(games, list) and len(games) == 2
    assert {g["reason"] for g in games} <= {"checkmate", "stalemate", "max-plies"}, games
    book = {line.split()[0] for line in BOOK.splitlines()}
    assert {g["start_fen"].split()[0] for g in games} <= book  # a pair: one opening
    assert all(g["plies"] > 0 for g in games)


def test_fen_letters_the_engine_refuses_fail_the_match_before_its_first_game(
    tmp_path: Path,
) -> None:
    code, err, doc = _match(tmp_path, f"engine:{_engine(SJAAK)},protocol=uci,depth=2,fen=fsf")
    assert code == ExitCode.ENGINE_FAILURE, err
    (line,) = err.strip().splitlines()
    # the engine's own words, on its standard error
    assert "refuses the book's position" in line and "unknown piece type 'n'" in line, line
    assert _stored(tmp_path / "m.sqlite") == []
    assert (doc["status"], doc["engine_failures"], doc["error"]) == ("engine-failure", 1, line[14:])


def test_fen_letters_given_are_used(tmp_path: Path) -> None:
    code, err, doc = _match(tmp_path, f"engine:{_engine(SJAAK)},protocol=uci,depth=2,fen=xboard")
    assert code == ExitCode.DONE, err
    assert doc["engine_failures"] == 0


def test_maxqi_without_setboard_fails_the_match_before_its_first_game(tmp_path: Path) -> None:
    # it failed once a game started, "aborted … the same command resumes" (exit 1)
    code, err, doc = _match(tmp_path, f"engine:{_engine(MAXQI)},protocol=xboard,depth=2")
    assert code == ExitCode.ENGINE_FAILURE, err
    (line,) = err.strip().splitlines()
    assert "cannot be given the book's positions" in line and "setboard" in line, line
    assert _stored(tmp_path / "m.sqlite") == []
    assert (doc["status"], doc["engine_failures"]) == ("engine-failure", 1)


@pytest.mark.parametrize(
    ("key", "says"),
    [("fen=foo", "fen must be fsf or xboard, got 'foo'"), ("timeout=0", "timeout must be")],
)
def test_bad_keys_are_one_line_and_exit_2(tmp_path: Path, key: str, says: str) -> None:
    for spec in (f"engine:{_engine(SJAAK)},depth=2,{key}",):
        done = run_ladder(
            "match", spec, "greedy", "--variant", "xiangqi", "--db", str(tmp_path / "x")
        )
        assert done.returncode == ExitCode.USAGE
        (line,) = done.stderr.strip().splitlines()
        assert says in line, line
    done = run_ladder(
        "match", "-engine", f"cmd={SJAAK}", "depth=2", key, "-engine", f"cmd={SJAAK}",
        "depth=2", "-variant", "xiangqi", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == ExitCode.USAGE
    (line,) = done.stderr.strip().splitlines()
    assert says in line, line


def _hanging(engine_exe: Path, counter: Path, key: str = "") -> str:
    """The patched engine at depth 2, hanging from its third search on: the check's
    search, its game's first move, then a search that is not a new game's (the first
    one's deadline has the new game's isready on top)."""
    args = f"{FAULTY_ENGINE} {engine_exe} --hang-after 2 {counter}"
    return f'engine:{sys.executable},args="{args}",depth=2,name=hangs{key}'


def test_timeout_is_the_search_deadline(tmp_path: Path, engine_exe: Path) -> None:
    code, err, doc = _match(tmp_path, _hanging(engine_exe, tmp_path / "count", ",timeout=1.5"))
    assert code == ExitCode.ENGINE_FAILURE, err
    assert "within 1.5s (search)" in err, err
    assert doc["engine_failures"] == 1


@pytest.mark.slow
def test_a_depth_limited_engine_s_deadline_is_30_s_at_least(
    tmp_path: Path, engine_exe: Path
) -> None:
    # its check's search took milliseconds: max(30 s, 20 x that), not the 300 s a
    # search without a time bound had (one restart: two deadlines)
    code, err, doc = _match(tmp_path, _hanging(engine_exe, tmp_path / "count"))
    assert code == ExitCode.ENGINE_FAILURE, err
    assert "within 30s (search)" in err, err
    assert doc["engine_failures"] == 1


def test_a_limit_too_long_to_time_keeps_the_default_deadline(engine_exe: Path) -> None:
    # nodes=500000000 takes minutes: the check's search is stopped after
    # CHECK_SEARCH_BOUND, and no deadline is derived from a search that did not end
    spec = parse_player(f"engine:{engine_exe},nodes=500000000")
    started = time.monotonic()
    (checked,) = probe([spec], "xiangqi").values()
    assert time.monotonic() - started < CHECK_SEARCH_BOUND + 20
    assert checked.search_timeout_s is None
    quick = parse_player(f"engine:{engine_exe},nodes=2000")
    (timed,) = probe([quick], "xiangqi").values()
    assert timed.search_timeout_s == MIN_SEARCH_DEADLINE  # its search took milliseconds
