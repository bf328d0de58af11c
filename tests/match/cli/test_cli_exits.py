"""`ladder match` as a tester scripts it: a failure never exits 0, each ending has its
own exit code, bad arguments are refused before anything is played, engine failures
stop the match unless --recover allows them, and --json says the same as the exit code."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import pytest

from ladder.match.exit_codes import ExitCode
from tests.match.helpers import elo_beyond_atomic, run_ladder

FAULTY_ENGINE = Path(__file__).parents[2] / "faulty_engine.py"


def _stored(db: Path) -> list[tuple[int, str]]:
    if not db.exists():
        return []
    with sqlite3.connect(db) as conn:
        return list(conn.execute("SELECT game_no, reason FROM games ORDER BY game_no"))


def _one_line_error(err: str) -> None:
    assert "Traceback" not in err
    assert len([line for line in err.splitlines() if line.startswith("ladder match:")]) >= 1


@pytest.mark.parametrize(
    ("player", "recover"),
    [
        ("engine:/nonexistent/fsf,nodes=100", []),
        # a level's first moves are book moves, which need no engine: the check
        # searches without the book (it used to pass, and --recover stored 2 losses)
        ("level:1,engine=/nonexistent/fsf", ["--recover"]),
    ],
)
def test_an_engine_that_cannot_start_stops_the_match_before_any_game(
    tmp_path: Path, player: str, recover: list[str]
) -> None:
    db, out = tmp_path / "m.sqlite", tmp_path / "m.json"
    done = run_ladder(
        "match", player, "greedy", "--variant", "xiangqi",
        "--games", "2", "--db", str(db), "--json", str(out), *recover,
    )  # fmt: skip
    assert done.returncode == ExitCode.ENGINE_FAILURE, done.stderr
    assert "cannot play xiangqi" in done.stderr and "/nonexistent/fsf" in done.stderr
    _one_line_error(done.stderr)
    assert _stored(db) == []
    doc = json.loads(out.read_text())
    assert (doc["status"], doc["exit_code"], doc["games"]) == ("engine-failure", 3, [])


def test_an_unknown_engine_option_is_refused_before_any_game(
    tmp_path: Path, engine_exe: Path
) -> None:
    db = tmp_path / "m.sqlite"
    done = run_ladder(
        "match", f"engine:{engine_exe},nodes=100,NoSuchOption=3", "random",
        "--variant", "xiangqi", "--games", "2", "--db", str(db),
    )  # fmt: skip
    assert done.returncode == ExitCode.ENGINE_FAILURE
    assert "NoSuchOption" in done.stderr
    _one_line_error(done.stderr)
    assert _stored(db) == []


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--games", "0"], "--games: must be at least 1, got 0"),
        (["--games", "many"], "--games: not an integer: 'many'"),
        (["-j", "0"], "--concurrency/-j: must be at least 1"),
        (["--alpha", "1.5"], "--alpha: must be above 0 and below 1, got 1.5"),
        (["--sprt", "10", "0"], "need elo0 < elo1"),
        (["--openings", "/nonexistent.epd"], "cannot read opening book"),
        (["--max-engine-failures", "2"], "--max-engine-failures needs --recover"),
        (["-each", "tc=10+0.1"], "-each applies to -engine players"),
        (["-engine", "cmd=/x", "nodes=1"], "a match needs two players, got 3"),
        (["-games", "2", "-rounds", "0"], "-rounds must be at least 1, got 0"),
        (["--pgn", "/nonexistent/m.pgn"], "--pgn /nonexistent/m.pgn: the folder /nonexistent"),
        (["--json", "/nonexistent/m.json"], "--json /nonexistent/m.json: the folder"),
        (["--json-interval", "0"], "--json-interval: must be at least 1, got 0"),
        (["--pgn", "m.pgn", "--pgn-fen", "foo"], "--pgn-fen: invalid choice: 'foo'"),
    ],
)
def test_bad_arguments_are_refused(tmp_path: Path, args: list[str], says: str) -> None:
    db = tmp_path / "m.sqlite"
    done = run_ladder("match", "random", "greedy", "--variant", "xiangqi", "--db", str(db), *args)
    assert done.returncode == ExitCode.USAGE, done.stderr
    assert says in done.stderr
    assert "Traceback" not in done.stderr
    assert _stored(db) == []


@pytest.mark.parametrize("command", ["match", "tournament"])
@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("{elo}", "{says}"),  # inside another variant's span, not atomic's
        # beyond every variant's: refused naming atomic, the match's variant (it named
        # xiangqi, whose span the message then gave)
        ("elo:9000", "elo:9000: atomic-xiangqi: elo must be between"),
        ("level:1,levels=/nonexistent.toml", "level:1,levels=/nonexistent.toml: [Errno 2]"),
        ("level:1,levels={bad}", "level:1,levels={bad}: {bad}: "),
    ],
)
def test_a_level_the_variant_cannot_play_is_refused_before_any_game(
    tmp_path: Path, command: str, spec: str, says: str
) -> None:
    """Checked when the command starts (it once surfaced mid-run as a traceback)."""
    bad = tmp_path / "bad.toml"
    bad.write_text("x = [\n")
    db = tmp_path / "m.sqlite"
    elo, elo_says = elo_beyond_atomic()
    spec = spec.format(bad=bad, elo=elo)
    says = says.format(bad=bad, says=elo_says)
    done = run_ladder(command, spec, "greedy", "--variant", "atomic-xiangqi", "--db", str(db))
    assert done.returncode == ExitCode.USAGE, done.stderr
    assert done.stderr.startswith(f"ladder {command}: {says}"), done.stderr
    assert "Traceback" not in done.stderr
    assert _stored(db) == []


def test_an_output_file_that_cannot_be_written_is_refused_before_any_game(
    tmp_path: Path,
) -> None:
    db = tmp_path / "m.sqlite"
    for command in (["match"], ["tournament", "level:1"]):
        done = run_ladder(*command, "random", "greedy", "--variant", "xiangqi", "--games", "2",
                          "--db", str(db), "--pgn", str(tmp_path))  # fmt: skip
        assert done.returncode == ExitCode.USAGE, done.stderr
        assert f"--pgn {tmp_path}: is a folder, not a file" in done.stderr
        assert "Traceback" not in done.stderr
        assert _stored(db) == []
        done = run_ladder(*command, "random", "greedy", "--variant", "xiangqi", "--games", "2",
                          "--db", str(db), "--pgn", "-", cwd=tmp_path)  # fmt: skip
        assert done.returncode == ExitCode.USAGE, done.stderr
        assert "--pgn -: the PGN must be a file" in done.stderr
        assert not (tmp_path / "-").exists() and _stored(db) == []


def test_a_db_that_is_no_results_database_is_refused_in_one_line(tmp_path: Path) -> None:
    not_sqlite = tmp_path / "levels.toml"
    not_sqlite.write_text("x = 1\n")
    for db in (not_sqlite, Path("/dev/null")):
        for command in (["match"], ["tournament", "level:1"]):
            done = run_ladder(*command, "random", "greedy", "--variant", "xiangqi",
                              "--games", "2", "--db", str(db))  # fmt: skip
            assert done.returncode == ExitCode.USAGE, done.stderr
            assert f"--db {db}: cannot be used as a results database" in done.stderr
            assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1
    assert not_sqlite.read_text() == "x = 1\n"  # untouched


@pytest.mark.parametrize(
    ("a", "b", "code", "decision"),
    [("greedy", "random", ExitCode.SPRT_H1, "H1"), ("random", "greedy", ExitCode.SPRT_H0, "H0")],
)
def test_sprt_decisions_have_their_own_exit_codes(
    tmp_path: Path, a: str, b: str, code: ExitCode, decision: str
) -> None:
    out = tmp_path / "s.json"
    done = run_ladder(
        "match", a, b, "--variant", "xiangqi", "--games", "400", "--sprt", "0", "150",
        "-j", "2", "--db", str(tmp_path / "s.sqlite"), "--json", str(out), "--max-plies", "200",
    )  # fmt: skip
    assert done.returncode == code, done.stderr
    assert f"SPRT accepted {decision}" in done.stdout
    doc = json.loads(out.read_text())
    assert doc["status"] == f"sprt-{decision.lower()}" and doc["exit_code"] == code
    sprt = doc["result"]["sprt"]
    assert sprt["decision"] == decision
    assert (
        sprt["llr"] >= sprt["upper_bound"]
        if decision == "H1"
        else sprt["llr"] <= sprt["lower_bound"]
    )
    assert len(doc["games"]) == doc["result"]["games"] < 400


def _crashy(engine_exe: Path, counter: Path, searches: int) -> str:
    """An engine spec that answers ``searches`` searches, then crashes on every one."""
    args = f"{FAULTY_ENGINE} {engine_exe} --crash-after {searches} {counter}"
    return f'engine:{sys.executable},args="{args}",nodes=50,name=crashy'


def test_an_engine_failure_stops_the_match_without_recover(
    tmp_path: Path, engine_exe: Path
) -> None:
    db, out = tmp_path / "f.sqlite", tmp_path / "f.json"
    # the check before the match and one move: no game can end before its second move (with
    # 3 moves, a random opponent was sometimes mated first: the failure came a game later)
    crashy = _crashy(engine_exe, tmp_path / "count", 2)
    done = run_ladder(
        "match", crashy, "random", "--variant", "xiangqi", "--games", "4", "-j", "1",
        "--db", str(db), "--json", str(out),
    )  # fmt: skip
    assert done.returncode == ExitCode.ENGINE_FAILURE, done.stderr
    assert "lost to an engine failure" in done.stderr and "without --recover" in done.stderr
    _one_line_error(done.stderr)
    assert _stored(db) == []  # the failed game is not a result
    assert json.loads(out.read_text())["status"] == "engine-failure"


def test_recover_counts_failures_as_losses_up_to_the_limit(
    tmp_path: Path, engine_exe: Path
) -> None:
    db = tmp_path / "r.sqlite"
    crashy = _crashy(engine_exe, tmp_path / "count", 2)  # fails in game 0 (see above)
    done = run_ladder(
        "match", crashy, "random", "--variant", "xiangqi", "--games", "4", "-j", "1",
        "--db", str(db), "--recover", "--max-engine-failures", "1",
    )  # fmt: skip
    assert done.returncode == ExitCode.ENGINE_FAILURE, done.stderr
    assert "more than the 1 allowed" in done.stderr, done.stderr
    assert _stored(db) == [(0, "engine-failure")], done.stderr

    # without a limit the match is played out, every failure a loss of the failing engine
    # (it fails from its second move of game 0 on: with four searches before it, the
    # random opponent, whose moves depend on the match id and so on tmp_path, was once
    # mated before the failure, so game 0 was a win and not a failure)
    db, out = tmp_path / "r2.sqlite", tmp_path / "r2.json"
    crashy = _crashy(engine_exe, tmp_path / "count2", 2)
    done = run_ladder(
        "match", crashy, "random", "--variant", "xiangqi", "--games", "2", "-j", "1",
        "--db", str(db), "--recover", "--json", str(out),
    )  # fmt: skip
    assert done.returncode == ExitCode.DONE, done.stderr
    doc = json.loads(out.read_text())
    result = doc["result"]
    assert (result["losses"], result["engine_failures"]) == (2, 2), (doc["games"], done.stderr)
    assert [reason for _, reason in _stored(db)] == ["engine-failure"] * 2, done.stderr


def test_each_applies_to_every_engine_its_own_keys_win(tmp_path: Path, engine_exe: Path) -> None:
    done = run_ladder(
        "--log-level", "debug", "match",
        "-engine", f"cmd={engine_exe}", "name=A", "nodes=80",
        "-engine", f"cmd={engine_exe}", "name=B",
        "-each", "nodes=50", "option.Hash=8",
        "--variant", "xiangqi", "--games", "2", "--max-plies", "10", "-j", "1",
        "--db", str(tmp_path / "e.sqlite"), "--json", "-",
    )  # fmt: skip
    assert done.returncode == ExitCode.DONE, done.stderr[-2000:]
    # --json -: standard output is the document alone, the report goes to standard error
    doc = json.loads(done.stdout)
    assert (doc["status"], doc["exit_code"], len(doc["games"])) == ("done", 0, 2)
    assert "score of A: W " in done.stderr
    players = doc["players"]
    assert [(p["name"], p["nodes"], p["options"]) for p in players.values()] == [
        ("A", 80, {"Hash": "8"}),
        ("B", 50, {"Hash": "8"}),
    ]
    # on the wire: both engines get the Hash, and each its own node limit
    assert done.stderr.count("> setoption name Hash value 8") >= 2
    assert "> go nodes 80" in done.stderr and "> go nodes 50" in done.stderr


def test_dir_is_the_engine_working_folder(tmp_path: Path, engine_exe: Path) -> None:
    # the proxy engine is named relative to its folder: it starts only inside dir=
    engine = ["-engine", f"cmd={sys.executable}", f"args={FAULTY_ENGINE.name} {engine_exe}"]
    engine += ["nodes=50", "name=indir"]
    common = ["--variant", "xiangqi", "--games", "2", "--max-plies", "10", "-j", "1"]
    done = run_ladder("match", "random", *engine, f"dir={FAULTY_ENGINE.parent}", *common,
                  "--db", str(tmp_path / "in.sqlite"))  # fmt: skip
    assert done.returncode == ExitCode.DONE, done.stderr
    elsewhere = run_ladder(
        "match", "random", *engine, *common, "--db", str(tmp_path / "out.sqlite")
    )
    assert elsewhere.returncode == ExitCode.ENGINE_FAILURE
    assert "indir cannot play xiangqi" in elsewhere.stderr


def test_a_db_in_a_folder_that_does_not_exist_is_refused(tmp_path: Path) -> None:
    for command in (["match", "random", "greedy"], ["tournament", "random", "greedy"]):
        db = tmp_path / "no-such-folder" / "m.sqlite"
        done = run_ladder(*command, "--variant", "xiangqi", "--games", "2", "--db", str(db))
        assert done.returncode == ExitCode.USAGE, done.stderr
        assert f"the folder {db.parent} does not exist" in done.stderr
        assert "Traceback" not in done.stderr and not db.parent.exists()


def test_a_crash_the_restart_fixed_is_counted_on_stderr_and_in_json(
    tmp_path: Path, engine_exe: Path
) -> None:
    """The engine crashes once, on its 4th search (the check before the match is the
    1st): the automatic restart searches that move again and the game stands, but it is
    said: on standard error and as engine_restarts in --json."""
    args = f"{FAULTY_ENGINE} {engine_exe} --crash-once-at 3 {tmp_path / 'count'}"
    flaky = f'engine:{sys.executable},args="{args}",nodes=50,name=flaky'
    out = tmp_path / "r.json"
    done = run_ladder(
        "match", flaky, "random", "--variant", "xiangqi", "--games", "2", "-j", "1",
        "--db", str(tmp_path / "r.sqlite"), "--json", str(out),
    )  # fmt: skip
    assert done.returncode == ExitCode.DONE, done.stderr
    assert "ladder match: engine restarts: 1 (an engine crashed or hung" in done.stderr
    result = json.loads(out.read_text())["result"]
    assert (result["engine_restarts"], result["engine_failures"], result["games"]) == (1, 0, 2)


def test_the_pgn_says_the_time_control_and_the_opening(tmp_path: Path, engine_exe: Path) -> None:
    book = tmp_path / "book.epd"
    book.write_text(
        'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - id "start";\n'
        'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - id "central";\n'
    )
    pgn = tmp_path / "g.pgn"
    timed = f"engine:{engine_exe},tc=40/4+0.1,name=timed"
    done = run_ladder(
        "match", timed, timed, "--variant", "xiangqi", "--games", "2", "-j", "1",
        "--openings", str(book), "--openings-order", "sequential", "--max-plies", "20",
        "--db", str(tmp_path / "t.sqlite"), "--pgn", str(pgn),
    )  # fmt: skip
    assert done.returncode == ExitCode.DONE, done.stderr
    from ladder.match.output.pgn import read_pgn

    games = list(read_pgn(pgn.read_text()))
    assert [g.headers["TimeControl"] for g in games] == ["40/4+0.1"] * 2
    assert {g.headers["Opening"] for g in games} == {"book.epd:1 (start)"}
    assert [g.headers["OpeningNo"] for g in games] == ["0", "0"]
    untimed = tmp_path / "u.pgn"
    done = run_ladder(
        "match", "random", "greedy", "--variant", "xiangqi", "--games", "2",
        "--max-plies", "10", "--db", str(tmp_path / "u.sqlite"), "--pgn", str(untimed),
    )  # fmt: skip
    assert done.returncode == ExitCode.DONE, done.stderr
    (first, _) = read_pgn(untimed.read_text())
    assert first.headers["TimeControl"] == "-"  # no clock
    assert first.headers["Opening"].startswith("xiangqi") and ":" in first.headers["Opening"]
