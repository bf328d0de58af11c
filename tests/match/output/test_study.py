"""`ladder study` on known games: an atomic game decided by a blunder next to the
general, a crazyhouse drop that gives check; and a study of a match from the database."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from ladder.match.output.pgn import PgnGame, read_pgn, replay
from ladder.match.output.store import ResultStore
from ladder.notation.chinese import parse_chinese
from ladder.rules import Game
from tests.match.helpers import elo_beyond_atomic, run_ladder

# Black (chariot and cannon against a chariot) mates in a few, but puts its cannon next
# to its own general: the chariot takes it and the explosion takes the general.
KNOWN = """\
[Event "cannon rule study"]
[Date "2026.11.30"]
[Variant "atomic-xiangqi"]
[FEN "9/3k5/9/3c5/9/9/9/9/r8/3R1K3 b - - 0 1"]
[Match "atomic-known"]
[Result "1-0"]

1... d7d8 2. d1d8 1-0

[Event "drop study"]
[Variant "crazyhouse-xiangqi"]
[FEN "3k5/9/9/9/9/9/9/9/9/5K3[R] w - - 0 1"]
[Match "zh-known"]
[Termination "max-plies"]
[Result "1/2-1/2"]

1. R@d5 d10e10 1/2-1/2
"""


def study_of_known_games(
    tmp_path: Path, *args: str
) -> tuple[subprocess.CompletedProcess[str], list[PgnGame]]:
    """``ladder study`` of :data:`KNOWN` by level 3 without variety, with ``args``: the
    run (it succeeded and said its progress) and the two games of its study."""
    source, study = tmp_path / "known.pgn", tmp_path / "study.pgn"
    source.write_text(KNOWN)
    done = run_ladder("study", str(source), "--out", str(study), "--engine", "level:3,variety=off",
                      *args)  # fmt: skip
    assert done.returncode == 0, done.stderr
    # the progress, on standard error, not a terminal: the first game and the last
    assert done.stderr.splitlines() == [
        "study: 1/2 games annotated",
        "study: 2/2 games annotated",
    ], done.stderr
    return done, list(read_pgn(study.read_text()))


def test_study_of_known_games(tmp_path: Path, engine_exe: Path) -> None:
    out = tmp_path / "s.json"
    done, (atomic, drop) = study_of_known_games(tmp_path, "--json", str(out))
    assert atomic.headers["Annotator"] == "ladder study (reference level:3,variety=off)"
    assert atomic.headers["Date"] == "2026.11.30" and atomic.headers["Termination"] == (
        "general-exploded"
    )
    blunder, capture = atomic.comments
    assert capture == (
        "explosion on d8 removed: Red chariot d1 (the capturer), Black cannon d8, Black general d9"
    )
    # the decisive move is Black's blunder: from Black mating to Red mating in one
    assert blunder is not None and blunder.startswith("decisive: the evaluation went from #-")
    assert "to #1; the engine preferred " in blunder
    assert drop.comments[0] == "drop gives check" and drop.comments[1] is None

    lines = done.stdout.splitlines()
    assert lines[0].split() == ["match", "games", "drawn", "Red's", "score", "mean", "plies",
                                "endings"]  # fmt: skip
    assert lines[1].split() == ["atomic-known", "1", "0%", "100.0%", "2.0", "general-exploded", "1"]
    assert lines[2].split() == ["zh-known", "1", "100%", "50.0%", "2.0", "max-plies", "1"]
    doc = json.loads(out.read_text())
    assert [m["endings"] for m in doc["matches"]] == [{"general-exploded": 1}, {"max-plies": 1}]
    assert doc["games"][0]["notes"]["1"] == capture


def test_study_in_chinese_notation(tmp_path: Path, engine_exe: Path) -> None:
    """`--pgn-notation chinese`: the moves and the engine's preferred move in Chinese,
    each reading back as the move (the same games as the WXF study)."""
    _, (atomic, drop) = study_of_known_games(tmp_path, "--pgn-notation", "chinese")
    assert atomic.headers["Format"] == drop.headers["Format"] == "Chinese"
    assert atomic.moves == ["炮４退１", "车六进七"] and drop.moves == ["车打六五", "将４平５"]
    assert replay(atomic).moves == ["d7d8", "d1d8"] and replay(drop).moves == ["R@d5", "d10e10"]
    blunder = atomic.comments[0]
    assert blunder is not None
    preferred = blunder.split("the engine preferred ")[1]
    before = Game.from_fen("atomic-xiangqi", atomic.headers["FEN"])
    assert parse_chinese(before, preferred) != "d7d8"  # a legal move, and not the blunder


def test_study_of_a_stored_match_marks_every_capture(tmp_path: Path, engine_exe: Path) -> None:
    db, study = tmp_path / "m.sqlite", tmp_path / "study.pgn"
    done = run_ladder("match", "level:1", "greedy", "--variant", "atomic-xiangqi", "--games", "2",
                  "--max-plies", "50", "--db", str(db))  # fmt: skip
    assert done.returncode == 0, done.stderr
    done = run_ladder("study", "atomic-xiangqi:level:1-vs", "--db", str(db), "--out", str(study),
                  "--engine", "level:2,variety=off", "--nodes", "64")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "atomic-xiangqi:level:1-vs-greedy:" in done.stdout
    with ResultStore(db) as store:
        records = {r.game_no: r for r in store.records()}
    for parsed in read_pgn(study.read_text()):
        rec = records[int(parsed.headers["GameNo"])]
        game = Game.from_fen(rec.variant, rec.start_fen)
        for move, comment in zip(rec.moves, parsed.comments, strict=True):
            to = re.findall(r"[a-i]\d+", move)[-1]
            captures = "@" not in move and game.piece_at(to) is not None
            marked = comment is not None and f" on {to} removed: " in comment
            assert captures == marked, (move, comment)
            if marked:  # after the move's own comment ([%eval], nodes...), set apart by "; "
                assert comment is not None and re.search(
                    r"(^|\S; )(explosion|cannon shot) on ", comment
                ), comment
            game.push(move)

    missing = run_ladder("study", "no-such-match", "--db", str(db), "--out", str(study))
    assert missing.returncode == 2 and "no match with that id" in missing.stderr


def test_a_pgn_without_a_variant_tag_is_plain_xiangqi(tmp_path: Path, engine_exe: Path) -> None:
    source, study = tmp_path / "bare.pgn", tmp_path / "study.pgn"
    source.write_text('[Event "bare"]\n\n1. C2=5 H8+7 2. H2+3 *\n')
    done = run_ladder("study", str(source), "--out", str(study), "--engine", "level:1,variety=off",
                  "--nodes", "64")  # fmt: skip
    assert done.returncode == 0, done.stderr
    (game,) = read_pgn(study.read_text())
    assert game.headers["Variant"] == "xiangqi" and game.moves == ["C2=5", "H8+7", "H2+3"]
    done = run_ladder("study", str(source), "--out", str(study), "--variant", "atomic-xiangqi",
                  "--engine", "level:1,variety=off", "--nodes", "64")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert next(iter(read_pgn(study.read_text()))).headers["Variant"] == "atomic-xiangqi"


def test_an_unfinished_game_is_no_draw(tmp_path: Path, engine_exe: Path) -> None:
    """A ``*`` game is counted apart, out of the draw rate and Red's score; a decided
    game without a rules ending or a Termination tag ends by its result tag."""
    source, study, data = tmp_path / "two.pgn", tmp_path / "study.pgn", tmp_path / "s.json"
    source.write_text(
        '[Event "x"]\n[Result "*"]\n\n1. C2=5 H8+7 *\n\n'
        '[Event "x"]\n[Result "1-0"]\n\n1. C2=5 H8+7 2. H2+3 1-0\n'
    )
    done = run_ladder("study", str(source), "--out", str(study), "--json", str(data),
                      "--engine", "level:1,variety=off", "--nodes", "64")  # fmt: skip
    assert done.returncode == 0, done.stderr
    (row,) = json.loads(data.read_text())["matches"]
    assert (row["games"], row["unfinished"], row["draw_rate"], row["red_score"]) == (2, 1, 0, 1)
    assert row["endings"] == {"unfinished": 1, "result-tag": 1}


def test_study_of_a_game_xboard_saved(tmp_path: Path, engine_exe: Path) -> None:
    """XBoard's own PGN (its SAN-like xiangqi moves, ``Cfxd0``, ``C0g1``): studied, and
    written back in standard WXF (the rear cannon's ``C-+1``)."""
    saved = Path(__file__).parent.parent / "data" / "xboard-saved.pgn"
    out = tmp_path / "study.pgn"
    done = run_ladder(
        "study", str(saved), "--nodes", "2000", "--db", str(tmp_path / "s.sqlite"),
        "--out", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (game,) = read_pgn(out.read_text())
    assert len(game.moves) == 56 and game.result == "0-1"
    assert "C-+1" in game.moves  # ply 43, a tandem: no file number


def test_an_output_file_that_cannot_be_written_is_refused_before_any_search(
    tmp_path: Path,
) -> None:
    source = tmp_path / "known.pgn"
    source.write_text(KNOWN)
    for option, path in (("--out", "/nonexistent/s.pgn"), ("--json", "/nonexistent/s.json")):
        args = ["--out", str(tmp_path / "study.pgn"), option, path]
        done = run_ladder("study", str(source), *args, "--nodes", "100")
        assert done.returncode == 2, done.stderr
        assert f"{option} {path}: the folder /nonexistent does not exist" in done.stderr
        assert "Traceback" not in done.stderr
    assert not (tmp_path / "study.pgn").exists()


def test_a_reference_level_a_variant_cannot_play_is_refused_before_any_search(
    tmp_path: Path,
) -> None:
    """KNOWN holds atomic and crazyhouse games: an Elo another variant's ladder plays but
    atomic's does not (atomic is checked first), or a levels file that is not there, is
    named in one line, with or without --nodes (it once ended in a traceback, or went
    unchecked)."""
    source, study = tmp_path / "known.pgn", tmp_path / "study.pgn"
    source.write_text(KNOWN)
    beyond, refused = elo_beyond_atomic()
    for spec, says in (
        (beyond, f"--engine: {refused}"),
        ("level:8,levels=/nonexistent.toml", "--engine: level:8,levels=/nonexistent.toml: "),
    ):
        for nodes in ("0", "100"):
            done = run_ladder(
                "study", str(source), "--out", str(study), "--engine", spec, "--nodes", nodes
            )
            assert done.returncode == 2, done.stderr
            assert done.stderr.startswith(f"ladder study: {says}"), done.stderr
            assert "Traceback" not in done.stderr
    assert not study.exists()


def test_the_study_keeps_the_games_opening_tags(tmp_path: Path, engine_exe: Path) -> None:
    """A match's PGN names its opening (`Opening`, `OpeningNo`); the study of it says
    the same (it once wrote `#0` and `0`)."""
    source, study = tmp_path / "known.pgn", tmp_path / "study.pgn"
    head = '[Opening "xiangqi.txt:110 (+19cp)"]\n[OpeningNo "107"]\n'
    source.write_text(KNOWN.replace('[Match "atomic-known"]\n', '[Match "atomic-known"]\n' + head))
    done = run_ladder("study", str(source), "--out", str(study), "--engine",
                      "level:1,variety=off", "--nodes", "64")  # fmt: skip
    assert done.returncode == 0, done.stderr
    first, second = list(read_pgn(study.read_text()))
    assert first.headers["Opening"] == "xiangqi.txt:110 (+19cp)"
    assert first.headers["OpeningNo"] == "107"
    assert second.headers["OpeningNo"] == "0"  # the game without them: none


def test_the_study_of_a_match_pgn_keeps_each_moves_own_comment(
    tmp_path: Path, engine_exe: Path
) -> None:
    """A match's PGN file studied: each move's own comment ([%eval], nodes, `random
    move`, `varied: ...`) stays, the study's note after it, as in the study of the same
    match from the database (the PGN file's once kept `{book}` alone)."""
    db, games = tmp_path / "m.sqlite", tmp_path / "m.pgn"
    done = run_ladder("match", "level:1", "random", "--variant", "atomic-xiangqi", "--games", "2",
                      "--max-plies", "40", "--db", str(db), "--pgn", str(games))  # fmt: skip
    assert done.returncode == 0, done.stderr
    reference = ["--engine", "level:2,variety=off", "--nodes", "64"]
    from_pgn, from_db = tmp_path / "pgn-study.pgn", tmp_path / "db-study.pgn"
    done = run_ladder("study", str(games), "--out", str(from_pgn), *reference)
    assert done.returncode == 0, done.stderr
    done = run_ladder("study", "atomic-xiangqi:level:1-vs", "--db", str(db), "--out",
                      str(from_db), *reference)  # fmt: skip
    assert done.returncode == 0, done.stderr
    played = list(read_pgn(games.read_text()))
    studied = list(read_pgn(from_pgn.read_text()))
    assert [g.comments for g in studied] == [g.comments for g in read_pgn(from_db.read_text())]
    own = [c for game in played for c in game.comments if c and c != "book"]
    assert any("[%eval " in c for c in own) and any(c == "random move" for c in own)
    for game, study in zip(played, studied, strict=True):
        for comment, note in zip(game.comments, study.comments, strict=True):
            if comment:  # the move's own comment, then the study's note, if any
                assert note == comment or (note or "").startswith(f"{comment}; "), note
