"""cutechess-cli command lines run as they are (ladder/match/cli/cutechess.py): a tester's
line with the engine commands changed plays the same games, odd counts and -repeat
included; what cannot run with the same meaning is refused by name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ladder.match.cli.cutechess import CutechessError, translate
from ladder.match.openings import schedule
from ladder.match.output.pgn import read_pgn
from tests.match.helpers import run_ladder

BOOK = (
    'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - id "start";\n'
    'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - id "central";\n'
    'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/4C2C1/9/RNBAKABNR b - - id "left";\n'
)


def test_a_full_line_translates_option_by_option() -> None:
    # The players' options pass through as they are: the match reads cutechess's own.
    engines = ["-engine", "cmd=fsf", "name=A", "-engine", "cmd=fsf", "name=B"]
    engines += ["-each", "proto=uci", "tc=inf", "nodes=200"]
    line = [
        *engines,
        *["-variant", "xiangqi", "-games", "2", "-rounds", "50", "-repeat"],
        *["-concurrency", "2", "-pgnout", "out.pgn", "min"],
        *["-openings", "file=b.epd", "format=epd", "order=random", "plies=8"],
        *["-sprt", "elo0=0", "elo1=5", "alpha=0.05", "beta=0.05"],
        *["-draw", "movenumber=40", "movecount=8", "score=10"],
        *["-resign", "movecount=3", "score=600", "-maxmoves", "200", "-recover"],
        *["-srand", "7", "-wait", "10"],
    ]
    assert translate(line) == [
        *engines,
        *["--variant", "xiangqi", "--concurrency", "2", "--pgn", "out.pgn", "--pgn-min"],
        *["--openings", "b.epd", "--openings-format", "epd", "--openings-order", "random"],
        *["--openings-plies", "8"],
        *["--sprt", "0", "5", "--alpha", "0.05", "--beta", "0.05"],
        *[
            "--draw-after",
            "80",
            "--draw-streak",
            "start",
            "--draw-moves",
            "8",
            "--draw-score",
            "10",
        ],
        *["--resign-moves", "3", "--resign-score", "600", "--max-plies", "400", "--recover"],
        *["--seed", "7", "--games", "100", "--repeat", "2"],
    ]
    # fastchess's forms, players after flags, and no -repeat: a new opening every game
    fastchess = ["-pgnout", "file=g.pgn", "min=true", "level:1", "-recover", "greedy"]
    assert translate([*fastchess, "-games", "3"]) == [
        *["--pgn", "g.pgn", "--pgn-min", "level:1", "--recover", "greedy"],
        *["--games", "3", "--repeat", "1"],
    ]


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("-sprt elo0=0 elo1=5 model=bayesian", "only model=logistic"),
        ("-openings file=b.epd start=3", "start= other than 1"),
        ("-draw moves=3", "'moves=3' is not one of movecount=, movenumber=, score="),
        ("-games many", "'many' is not a number"),
        ("-games 2 -rounds 0", "-rounds must be at least 1, got 0"),
        ("-games -1 -rounds -1", "-games must be at least 1, got -1"),
        ("-noswap", "the cutechess option -noswap is not supported"),
        ("-repeat 4", ""),
    ],
)
def test_what_cannot_run_with_the_same_meaning_is_refused(line: str, says: str) -> None:
    if line == "-repeat 4":  # translated; the match refuses it (--repeat is 1 or 2)
        assert translate(line.split()) == ["--repeat", "4"]
        return
    with pytest.raises(CutechessError, match=says):
        translate(line.split())


def test_odd_counts_and_repeat_in_the_schedule() -> None:
    pairs = schedule(5, 3, seed=1, order="sequential")
    assert [(s.game_no, s.pair_no, s.opening_no, s.a_is_red) for s in pairs] == [
        (0, 0, 0, True),
        (1, 0, 0, False),
        (2, 1, 1, True),
    ]
    single = schedule(5, 3, seed=1, order="sequential", repeat=1)
    assert [(s.opening_no, s.a_is_red) for s in single] == [(0, True), (1, False), (2, True)]
    # a prefix as the count grows (resume, extend)
    assert schedule(5, 7, seed=3)[:3] == schedule(5, 3, seed=3)


def test_cutechess_lines_run_through_the_cli(tmp_path: Path, engine_exe: Path) -> None:
    """Real cutechess-style lines: three games without -repeat (each its own opening,
    colours alternating), then four with -repeat (two pairs); the PGN, the database and
    --json agree, and a bad option exits 2 naming it."""
    (tmp_path / "book.epd").write_text(BOOK)
    line = [
        "match",
        *f"-engine cmd={engine_exe} name=fsf-a -engine cmd={engine_exe} name=fsf-b".split(),
        *[
            "-each",
            "proto=uci",
            "tc=inf",
            "nodes=200",
            "-variant",
            "xiangqi",
            "-games",
            "3",
            "-concurrency",
            "2",
        ],
        *[
            "-openings",
            "file=book.epd",
            "format=epd",
            "order=sequential",
            "-pgnout",
            "out.pgn",
            "min",
        ],
        *[
            "-draw",
            "movenumber=20",
            "movecount=6",
            "score=5",
            "-resign",
            "movecount=3",
            "score=900",
        ],
        *["-maxmoves", "40", "-recover", "-srand", "5", "--json", "out.json"],
    ]
    done = run_ladder(*line, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    games = list(read_pgn((tmp_path / "out.pgn").read_text()))
    assert len(games) == 3
    assert [g.headers["White"] for g in games] == ["fsf-a", "fsf-b", "fsf-a"]
    assert all(len(g.moves) <= 80 for g in games)  # -maxmoves 40
    doc = json.loads((tmp_path / "out.json").read_text())
    assert [g["opening"] for g in doc["games"]] == [0, 1, 2]
    assert (tmp_path / "match.sqlite").exists()  # cutechess has no --db: the default

    repeat = [*line, "-repeat", "-rounds", "2", "-games", "2", "--db", "r.sqlite"]
    repeat[repeat.index("out.pgn")] = "r.pgn"
    done = run_ladder(*repeat, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    games = list(read_pgn((tmp_path / "r.pgn").read_text()))
    assert len(games) == 4
    fens = [g.headers.get("FEN", "the start") for g in games]  # none from the start
    assert fens[0] == fens[1] != fens[2] == fens[3]  # one opening a pair
    assert games[0].headers["White"] == games[1].headers["Black"] == "fsf-a"

    done = run_ladder(*line[:-2], "-tournament", "knockout", cwd=tmp_path)
    assert done.returncode == 2 and "-tournament takes gauntlet or round-robin" in done.stderr


def test_our_own_options_and_their_values_pass_through() -> None:
    line = ["--json", "-", "--draw-score", "-10", "-j", "2", "level:1", "greedy"]
    assert translate(line) == line


def test_pgnout_takes_min_and_fi_in_any_order() -> None:
    # fi: finished games only; ours are (an unfinished game is never written)
    for marks in (["min", "fi"], ["fi", "min"], ["fi"], ["min"]):
        got = translate(["-pgnout", "o.pgn", *marks, "level:1", "greedy"])
        minimal = ["--pgn-min"] if "min" in marks else []
        assert got == ["--pgn", "o.pgn", *minimal, "level:1", "greedy"]


def test_openings_policy_round_is_a_match_default_and_refused_by_a_tournament(
    tmp_path: Path,
) -> None:
    line = ["-openings", "file=b.epd", "policy=round"]
    assert translate(line) == ["--openings", "b.epd"]  # a match's round is one encounter
    (tmp_path / "b.epd").write_text(BOOK)
    done = run_ladder(
        "tournament", "random", "greedy", "novice", "--variant", "xiangqi", *line, cwd=tmp_path
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "policy=round is not supported" in done.stderr


def test_debug_writes_the_wire_log_to_standard_error(tmp_path: Path, engine_exe: Path) -> None:
    engine = ["-engine", f"cmd={engine_exe}", "name=A", "proto=uci", "tc=inf", "nodes=100"]
    line = ["match", *engine, "-variant", "xiangqi", "-games", "1"]  # A against random
    done = run_ladder(*line, "random", "-debug", "--max-plies", "6", cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    wire = [row for row in done.stderr.splitlines() if "protocol.engine" in row]
    assert any("> go nodes 100" in row for row in wire), done.stderr[-3000:]
    assert any("< bestmove " in row for row in wire), done.stderr[-3000:]
    quiet = run_ladder(*line, "random", "--max-plies", "6", "--db", "q.sqlite", cwd=tmp_path)
    assert quiet.returncode == 0 and "protocol.engine" not in quiet.stderr
