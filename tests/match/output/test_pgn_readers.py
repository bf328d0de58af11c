"""The match PGN as other tools read it: python-chess for the tags, the comments
(``[%eval]``) and the result (its tokenizer knows chess moves only, and skips WXF moves);
the ``cchess`` xiangqi library for the moves (ICCS, which it reads; it does not read WXF),
replayed on its own board; XBoard for the ``xboard`` notation (lowercase coordinates),
headless under Xvfb."""

from __future__ import annotations

import io
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import cchess  # type: ignore[import-untyped]
import chess
import chess.pgn
import pytest

from ladder.match.output.pgn import read_pgn, replay
from ladder.match.output.store import ResultStore
from protocol.notation import to_ucci
from tests.match.helpers import run_ladder


def read_by_cchess(text: str, games: list[list[str]], tmp_path: Path) -> list[Any]:
    """Each game of the PGN ``text`` read by cchess from a file of its own: it reads every
    move (as many as ``games`` holds for it), and our reader replays the same moves.
    Returns, game by game, cchess's game, its ICCS moves and our replay."""
    chunks = ["[Event" + c for c in text.split("[Event")[1:]]
    assert len(chunks) == len(games)
    read = []
    for n, (chunk, moves) in enumerate(zip(chunks, games, strict=True)):
        path = tmp_path / f"cchess{n}.pgn"
        path.write_text(chunk)
        theirs = cchess.Game.read_from(str(path))
        iccs = [m for line in theirs.dump_iccs_moves() for m in line]
        assert len(iccs) == len(moves), f"cchess stopped at move {len(iccs)}"
        replayed = replay(next(iter(read_pgn(chunk))))
        assert replayed.moves == moves
        read.append((theirs, iccs, replayed))
    return read


class Tokens(chess.pgn.BaseVisitor[dict[str, Any]]):
    """python-chess's PGN parser, collecting the tags, the comments and the result."""

    def begin_game(self) -> None:
        self.tags: dict[str, str] = {}
        self.comments: list[str] = []
        self.game_result: str | None = None

    def begin_headers(self) -> chess.pgn.Headers:
        return chess.pgn.Headers({})  # python-chess's own board: standard chess, unused

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        self.tags[tagname] = tagvalue

    def begin_parse_san(self, board: chess.Board, san: str) -> chess.pgn.SkipType:
        if san == "--":  # its null move, which its tokenizer finds inside WXF's `R--1`
            return chess.pgn.SKIP  # (a rear rook's retreat): not a chess move
        raise AssertionError(f"a WXF move taken for a chess move: {san}")

    def visit_comment(self, comment: str) -> None:
        self.comments.append(comment)

    def visit_result(self, result: str) -> None:
        self.game_result = result

    def handle_error(self, error: Exception) -> None:
        raise error

    def result(self) -> dict[str, Any]:
        return {"tags": self.tags, "comments": self.comments, "result": self.game_result}


def python_chess_games(text: str) -> list[dict[str, Any]]:
    handle = io.StringIO(text)
    games = []
    while (game := chess.pgn.read_game(handle, Visitor=Tokens)) is not None:
        games.append(game)
    return games


def ladder(*args: str, path: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``ladder ARGS`` run as a command; ``path``: a folder put first on its PATH."""
    env = (
        None if path is None else {**os.environ, "PATH": f"{path}{os.pathsep}{os.environ['PATH']}"}
    )
    return run_ladder(*args, env=env)


def test_match_pgn_read_by_python_chess_and_cchess(tmp_path: Path, engine_exe: Path) -> None:
    db, wxf, iccs = tmp_path / "m.sqlite", tmp_path / "wxf.pgn", tmp_path / "iccs.pgn"
    # The engine by name on the PATH: a match's seed comes from its players' specs, so a
    # spec with the engine's path (a new build's folder) would play other games.
    fsf = f"engine:{engine_exe.name},nodes=300,name=fsf300"
    common = ["--variant", "xiangqi", "--games", "2", "--db", str(db), "--max-plies", "60"]
    common += ["--seed", "1"]
    done = ladder("match", "level:1", fsf, *common,
                  "--pgn", str(wxf), path=engine_exe.parent)  # fmt: skip
    assert done.returncode == 0, done.stderr
    # the same games again, from the database, in ICCS without comments
    done = ladder("match", "level:1", fsf, *common, "--pgn", str(iccs),
                  "--pgn-notation", "iccs", "--pgn-min", path=engine_exe.parent)  # fmt: skip
    assert done.returncode == 0 and "played 0, resumed past 2" in done.stdout, done.stderr
    with ResultStore(db) as store:
        records = sorted(store.records(), key=lambda r: r.game_no)
    assert len(records) == 2

    # python-chess: the seven standard tags, Game and Format, every move token, and the
    # [%eval] and [%clk] annotations as viewers read them
    games = python_chess_games(wxf.read_text())
    assert len(games) == 2
    for game, rec in zip(games, records, strict=True):
        tags = game["tags"]
        assert list(tags)[:7] == ["Event", "Site", "Date", "Round", "White", "Black", "Result"]
        assert (tags["White"], tags["Black"], tags["Result"]) == (rec.red, rec.black, rec.result)
        assert (tags["Game"], tags["Format"], tags["Red"]) == ("Chinese Chess", "WXF", rec.red)
        assert game["result"] == rec.result
        # python-chess sees the comments ours sees, in order; their [%eval] is Red's view
        ours = next(iter(read_pgn(rec.pgn)))
        commented = [(p, c) for p, c in enumerate(ours.comments) if c]
        assert [c for _, c in commented] == game["comments"]
        assert [c for p, c in commented if p < rec.book_plies] == ["book"] * rec.book_plies
        evals = 0
        for (ply, _), comment in zip(commented, game["comments"], strict=True):
            if ply < rec.book_plies:
                continue
            info = rec.infos[ply - rec.book_plies]
            node = chess.pgn.Game()
            node.comment = comment
            pov = node.eval()
            if info.cp is None and info.mate is None:
                assert pov is None
                continue
            evals += 1
            sign = 1 if ply % 2 == 0 else -1  # Red moves at even plies from the start
            assert pov is not None
            if info.mate is not None:
                assert pov.white().mate() == sign * info.mate
            else:
                assert info.cp is not None and pov.white().score() == sign * info.cp
            assert (info.chosen == "varied") == ("varied: the engine's best" in comment)
        assert evals > 0

    # cchess: each ICCS game on its own board, move by move, to the same final position
    text = iccs.read_text()
    assert "{" not in text
    for theirs, moves, replayed in read_by_cchess(text, [r.moves for r in records], tmp_path):
        board = theirs.init_board.copy()
        for move in moves:
            assert board.move_iccs(move) is not None
            board.next_turn()
        assert board.to_fen().split()[0] == replayed.board_fen().split("[")[0]

    # Chinese notation: cchess reads the minimal PGN with its own Chinese reader; ours
    # reads the traditional one with its comments, the same as the WXF PGN's
    chinese, traditional = tmp_path / "chinese.pgn", tmp_path / "traditional.pgn"
    for path, notation, extra in ((chinese, "chinese", ["--pgn-min"]),
                                  (traditional, "chinese-traditional", [])):  # fmt: skip
        done = ladder("match", "level:1", fsf, *common, "--pgn", str(path),
                      "--pgn-notation", notation, *extra, path=engine_exe.parent)  # fmt: skip
        assert done.returncode == 0 and "played 0, resumed past 2" in done.stdout, done.stderr
    text = chinese.read_text()
    assert "{" not in text and text.count('[Format "Chinese"]') == 2
    assert len(read_by_cchess(text, [r.moves for r in records], tmp_path)) == 2
    in_chinese = list(read_pgn(traditional.read_text()))
    in_wxf = list(read_pgn(wxf.read_text()))
    for cn_game, wxf_game, rec in zip(in_chinese, in_wxf, records, strict=True):
        assert cn_game.headers["Format"] == "Chinese" and replay(cn_game).moves == rec.moves
        assert all(re.search("[\u4e00-\u9fff]", move) for move in cn_game.moves)
        assert [c if c is None or "varied" not in c else "" for c in cn_game.comments] == [
            c if c is None or "varied" not in c else "" for c in wxf_game.comments
        ]


def test_variations_nags_and_annotations_are_read_and_left_out() -> None:
    """The PGN standard's movetext besides the main line: variations (nested, over
    lines), NAGs, suffix annotations, rest-of-line comments and escaped lines."""
    text = (
        '[Event "x"]\n[Variant "xiangqi"]\n[Format "ICCS"]\n\n'
        "% an escaped line h2e2\n"
        "1. h2e2! $1 {centre} (1. h0g2 (1. b0c2 ; a rest-of-line comment (\n"
        "h9g7) h9g7) 1... b7e7?! ; black's ( paren in a comment\n"
        "2. h0g2 $2 h9g7 {last} 1-0\n"
    )
    (game,) = read_pgn(text)
    assert game.moves == ["h2e2", "b7e7", "h0g2", "h9g7"]  # as written (ICCS)
    assert game.comments == ["centre", None, None, "last"]
    assert game.result == "1-0"
    assert replay(game).moves == ["h3e3", "b8e8", "h1g3", "h10g8"]


#: A tag pair as the PGN standard reads it (sections 7 and 8.1.1): in its string, a
#: backslash is written `\\`, a quote `\"`, and a backslash is nothing else.
STANDARD_TAG = re.compile(r'\[([A-Za-z0-9_]+) "((?:[^"\\]|\\["\\])*)"\]')


def standard_tags(text: str) -> list[dict[str, str]]:
    """Each game's tags, read strictly as the standard writes them (a tag line that
    breaks its rules fails the test)."""
    games: list[dict[str, str]] = []
    in_tags = False
    for line in text.splitlines():
        if line.startswith("["):
            match = STANDARD_TAG.fullmatch(line)
            assert match is not None, f"not a PGN tag pair: {line}"
            if not in_tags:
                games.append({})
            games[-1][match[1]] = re.sub(r"\\(.)", r"\1", match[2])
        in_tags = line.startswith("[")
    return games


def test_a_name_with_a_backslash_or_a_quote_is_a_valid_tag(tmp_path: Path) -> None:
    """Players named `C:\\engines\\` and `say "hi"`: every tag of the match's PGN is
    valid PGN and reads back as given, strictly and by our reader (they were written
    `"C:\\engines\\"`, which ends the string early, and `say 'hi'`)."""
    db, games = tmp_path / "m.sqlite", tmp_path / "m.pgn"
    red, black = "C:\\engines\\", 'say "hi"'
    common = ["--variant", "xiangqi", "--games", "2", "--max-plies", "20"]
    done = ladder("match", f"random:name={red}", f"greedy:name={black}", *common,
                  "--db", str(db), "--pgn", str(games))  # fmt: skip
    assert done.returncode == 0, done.stderr
    with ResultStore(db) as store:
        records = sorted(store.records(), key=lambda r: r.game_no)
    text = games.read_text()
    ours = list(read_pgn(text))
    for tags, parsed, rec in zip(standard_tags(text), ours, records, strict=True):
        names = (red, black) if rec.red_slot == "A" else (black, red)
        assert (tags["White"], tags["Black"], tags["Red"]) == (*names, names[0])
        assert tags["Event"] == tags["Match"] == rec.match_id
        assert parsed.headers == tags


XBOARD = Path("/usr/games/xboard")
# Positions after Red's first move, Black to move: each game has a FEN tag (XBoard's
# letters, --pgn-fen's default)
EPD_BOOK = (
    'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - id "central cannon";\n'
    'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C4NC1/9/RNBAKAB1R b - - id "horse";\n'
)


def play_from_the_book(command: str, db: Path, pgn: Path) -> None:
    """``ladder COMMAND greedy random``: two xiangqi games from :data:`EPD_BOOK` (written
    beside ``pgn``), stored in ``db``, their PGN written to ``pgn`` in XBoard's notation."""
    book = pgn.with_name("book.epd")
    book.write_text(EPD_BOOK)
    done = ladder(command, "greedy", "random", "--variant", "xiangqi", "--games", "2",
                  "--db", str(db), "--openings", str(book), "--max-plies", "40",
                  "--pgn", str(pgn), "--pgn-notation", "xboard")  # fmt: skip
    assert done.returncode == 0, done.stderr


def xboard_reads(pgn: Path, index: int, tmp_path: Path) -> str:
    """XBoard's debug log of loading game ``index`` (from 1) of ``pgn``, headless: it
    logs each move it parsed (``Parsed h2e2 into h2e2``) and says when it is done."""
    xvfb_run = shutil.which("xvfb-run")
    if not XBOARD.exists() or xvfb_run is None:
        pytest.fail("xboard or xvfb-run missing: run scripts/install_reference_engines.sh")
    debug = tmp_path / f"xboard-{pgn.stem}-{index}.debug"
    xboard = subprocess.Popen(
        [xvfb_run, "-a", str(XBOARD), "-ncp", "-variant", "xiangqi", "-lgf", str(pgn),
         "-lgi", str(index), "-timeDelay", "0", "-popupExitMessage", "false",
         "-settingsFile", str(tmp_path / "xboardrc"), "-saveSettingsOnExit", "false",
         "-debug", "-nameOfDebugFile", str(debug)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and xboard.poll() is None:
            log = debug.read_text(errors="replace") if debug.exists() else ""
            if "LoadGame(): on exit" in log:  # every move read before it
                return log
            time.sleep(0.2)  # XBoard says nothing elsewhere: its log is the event
        raise AssertionError(f"XBoard did not finish loading game {index}")
    finally:
        os.killpg(xboard.pid, signal.SIGKILL)  # its own session: xvfb-run, Xvfb, xboard
        xboard.wait(30)


@pytest.mark.slow  # XBoard under Xvfb
def test_xboard_reads_the_xboard_notation(tmp_path: Path) -> None:
    # XBoard 4.9 reads neither WXF ("Illegal move: 1. R1+2") nor ICCS (H2-E2, skipped);
    # it reads lowercase coordinates, ranks 0..9, and the FEN tag in its letters
    db, pgn = tmp_path / "x.sqlite", tmp_path / "x.pgn"
    play_from_the_book("match", db, pgn)
    with ResultStore(db) as store:
        by_number = {r.game_no: r for r in store.records()}
    games = list(read_pgn(pgn.read_text()))
    assert len(games) == 2 and all("FEN" in g.headers for g in games)
    for game in games:  # ours reads back the moves played, and XBoard reads the same
        assert replay(game).moves == by_number[int(game.headers["GameNo"])].moves
    assert_xboard_reads_every_game(pgn, tmp_path)


def assert_xboard_reads_every_game(pgn: Path, tmp_path: Path) -> None:
    """XBoard loads each game of ``pgn`` without refusing a move or the FEN, and reads
    the moves we read (their main line)."""
    games = list(read_pgn(pgn.read_text()))
    assert games, pgn.read_text()
    for index, game in enumerate(games, start=1):
        log = xboard_reads(pgn, index, tmp_path)
        assert "Illegal move" not in log and "Bad FEN" not in log, (pgn.name, log[-2000:])
        read = re.findall(r"^Parsed (\S+) into (\S+) virgin", log, re.M)
        assert [theirs for _, theirs in read] == [to_ucci(m) for m in replay(game).moves], (
            pgn.name,
            index,
        )


@pytest.mark.slow  # XBoard under Xvfb, and the study's and the analysis's searches
def test_xboard_reads_the_tournament_study_and_analysis_pgn(tmp_path: Path) -> None:
    """`--pgn-notation xboard` in `ladder tournament`, `ladder study` and `ladder
    analyse` (the study and the analysis of the tournament's games, whose FEN tags come
    from an EPD book): XBoard opens every game of each."""
    games = tmp_path / "tournament.pgn"
    play_from_the_book("tournament", tmp_path / "t.sqlite", games)
    study, analysis = tmp_path / "study.pgn", tmp_path / "analysis.pgn"
    done = ladder("study", str(games), "--out", str(study), "--nodes", "500",
                  "--db", str(tmp_path / "study.sqlite"), "--pgn-notation", "xboard")  # fmt: skip
    assert done.returncode == 0, done.stderr
    done = ladder("analyse", str(games), "-o", str(analysis), "--nodes", "500",
                  "--pgn-notation", "xboard")  # fmt: skip
    assert done.returncode == 0, done.stderr
    for pgn in (games, study, analysis):
        assert_xboard_reads_every_game(pgn, tmp_path)
