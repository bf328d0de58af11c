"""``ladder analyse`` as a user runs it: a PGN in, the annotated PGN and JSON out, read
back by python-chess (an independent PGN parser: tags, comments, NAGs, variations);
``ladder match``'s exit codes for a bad game and a failing engine."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import pytest

from ladder.match.exit_codes import ExitCode
from ladder.match.output.pgn import read_pgn, replay
from ladder.notation.chinese import parse_chinese
from ladder.rules import Game
from protocol.notation import to_ucci
from tests.analysis.test_core import PLANTED

FAULTY_ENGINE = Path(__file__).parents[1] / "faulty_engine.py"
NODES = "5000"


def ladder(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ladder.cli", *args], capture_output=True,
                          text=True, timeout=300, env={**os.environ, **(env or {})})  # fmt: skip


def game_pgn(moves: list[str]) -> str:
    return (
        '[Event "club night"]\n[White "Alice"]\n[Black "Bob"]\n[Result "0-1"]\n'
        '[Variant "xiangqi"]\n\n' + " ".join(moves) + " 0-1\n"
    )


class Reader(chess.pgn.BaseVisitor[dict[str, Any]]):
    """python-chess's PGN parser over our WXF moves: tags, and for the main line and
    each variation their move tokens (which python-chess cannot play: we count them
    through its NAGs and comments), the comments and the NAGs."""

    def begin_game(self) -> None:
        self.tags: dict[str, str] = {}
        self.comments: list[str] = []
        self.nags: list[int] = []
        self.variations = 0
        self.depth = 0

    def begin_headers(self) -> chess.pgn.Headers:
        return chess.pgn.Headers({})

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        self.tags[tagname] = tagvalue

    def begin_parse_san(self, board: chess.Board, san: str) -> chess.pgn.SkipType:
        raise AssertionError(f"a WXF move taken for a chess move: {san}")

    def visit_comment(self, comment: str) -> None:
        if self.depth == 0:
            self.comments.append(comment)

    def visit_nag(self, nag: int) -> None:
        if self.depth == 0:
            self.nags.append(nag)

    def begin_variation(self) -> chess.pgn.SkipType | None:
        self.depth += 1
        self.variations += 1
        return None

    def end_variation(self) -> None:
        self.depth -= 1

    def handle_error(self, error: Exception) -> None:
        raise error

    def result(self) -> dict[str, Any]:
        return {"tags": self.tags, "comments": self.comments, "nags": self.nags,
                "variations": self.variations}  # fmt: skip


def test_a_pgn_game_analysed_into_pgn_and_json(tmp_path: Path) -> None:
    source = tmp_path / "game.pgn"
    source.write_text(game_pgn(PLANTED))
    out, data = tmp_path / "out.pgn", tmp_path / "out.json"
    done = ladder("analyse", str(source), "-o", str(out), "--json", str(data), "--nodes", NODES,
                  "-j", "2")  # fmt: skip
    assert done.returncode == ExitCode.DONE, done.stderr
    assert "game 1: 10 plies" in done.stderr
    # the progress where no bar is shown (not a terminal): its one game, then the summary
    assert done.stderr.splitlines()[0] == "analyse: 1/1 games analysed", done.stderr
    analysis = json.loads(data.read_text())["games"][0]
    plies = analysis["plies"]
    assert [p["move"] for p in plies] == PLANTED
    assert plies[8]["judgement"] == "blunder" and plies[9]["best"] == "b8b1"

    read = chess.pgn.read_game(io.StringIO(out.read_text()), Visitor=Reader)
    assert read is not None
    tags = read["tags"]
    assert (tags["White"], tags["Black"], tags["Result"], tags["Event"]) == (
        "Alice",
        "Bob",
        "0-1",
        "club night",
    )
    assert (tags["Game"], tags["Format"], tags["Variant"]) == ("Chinese Chess", "WXF", "xiangqi")
    for side in ("red", "black"):
        summary = analysis["summary"][side]
        prefix = side.capitalize()
        assert int(tags[f"{prefix}Blunders"]) == summary["blunders"]
        assert int(tags[f"{prefix}Mistakes"]) == summary["mistakes"]
        assert int(tags[f"{prefix}Inaccuracies"]) == summary["inaccuracies"]
        assert int(tags[f"{prefix}Accuracy"]) == round(summary["accuracy"])
    # every move's first comment is its [%eval], Red's view, as python-chess reads it
    evals = [c for c in read["comments"] if c.startswith("[%eval")]
    assert len(evals) == len(plies)
    for comment, ply in zip(evals, plies, strict=True):
        node = chess.pgn.Game()
        node.comment = comment
        pov = node.eval()
        assert pov is not None
        after = ply["eval_after"]
        if after["mate"] is not None:
            assert pov.white().mate() == after["mate"]
        else:
            assert pov.white().score() == after["cp"]
    judged = [p for p in plies if p["judgement"]]
    nag = {"inaccuracy": chess.pgn.NAG_DUBIOUS_MOVE, "mistake": chess.pgn.NAG_MISTAKE,
           "blunder": chess.pgn.NAG_BLUNDER}  # fmt: skip
    assert read["nags"] == [nag[p["judgement"]] for p in judged]
    # python-chess skips variations whose moves it cannot play; in the text each judged
    # move is followed by the engine's line from the same ply
    variations = re.findall(r"\( ([^()]*) \)", out.read_text())
    assert len(variations) == sum(1 for p in judged if p["pv"])
    for text, ply in zip(variations, [p for p in judged if p["pv"]], strict=True):
        assert [t for t in text.split() if not t[0].isdigit()] == ply["pv_wxf"]
    words = [c for c in read["comments"] if not c.startswith("[%eval")]
    assert any("Blunder." in w and f"{plies[8]['best_wxf']} was best." in w for w in words)
    # and it reads its own output (variations, NAGs and comments read and left out)
    again = tmp_path / "again.json"
    done = ladder("analyse", str(out), "--json", str(again), "--nodes", NODES)
    assert done.returncode == ExitCode.DONE, done.stderr
    assert [p["move"] for p in json.loads(again.read_text())["games"][0]["plies"]] == PLANTED


def analysed_pgn(tmp_path: Path, notation: str) -> tuple[list[dict[str, Any]], str, Any]:
    """The planted game analysed with ``--pgn-notation notation``: the JSON's plies, the
    PGN's text and its one game as read back."""
    out, data = tmp_path / "out.pgn", tmp_path / "out.json"
    done = ladder("analyse", "--moves", " ".join(PLANTED), "-o", str(out), "--json", str(data),
                  "--nodes", NODES, "--pgn-notation", notation)  # fmt: skip
    assert done.returncode == ExitCode.DONE, done.stderr
    plies: list[dict[str, Any]] = json.loads(data.read_text())["games"][0]["plies"]
    text = out.read_text()
    (game,) = read_pgn(text)
    return plies, text, game


def test_the_pgn_in_chinese_notation(tmp_path: Path) -> None:
    """`--pgn-notation chinese-traditional`: the moves, the best moves and the lines in
    Chinese, each reading back as the analysis's own (JSON) move."""
    plies, text, game = analysed_pgn(tmp_path, "chinese-traditional")
    assert game.headers["Format"] == "Chinese" and game.moves[0] == "兵三進一"
    assert replay(game).moves == PLANTED
    board = Game.from_fen("xiangqi")
    lines = iter(re.findall(r"\( ([^()]*) \)", text))
    assert sum(1 for p in plies if p["judgement"] and p["pv"]) >= 1  # the planted blunder
    for ply in plies:
        if ply["judgement"] and ply["pv"]:
            line = [t for t in next(lines).split() if not t[0].isdigit()]
            replayed = board.copy()
            for token in line:
                replayed.push(parse_chinese(replayed, token))
            assert replayed.moves[board.ply :] == ply["pv"]
        board.push(ply["move"])
    assert next(lines, None) is None


def test_the_pgn_in_xboard_notation(tmp_path: Path) -> None:
    """`--pgn-notation xboard`, as `ladder match` writes it (XBoard reads no other): the
    moves, the best moves and the lines in lowercase coordinates (``h2e2``, ranks 0-9),
    each the analysis's own move; a notation that is none is refused by name, exit 2."""
    plies, text, game = analysed_pgn(tmp_path, "xboard")
    assert game.headers["Format"] == "ICCS" and "FEN" not in game.headers  # from the start
    assert all(re.fullmatch(r"[a-i][0-9][a-i][0-9]", m) for m in game.moves), game.moves
    assert replay(game).moves == PLANTED
    blunder = next(p for p in plies if p["judgement"] and p["pv"])
    assert f"{to_ucci(blunder['best'])} was best." in text
    line = [t for t in re.findall(r"\( ([^()]*) \)", text)[0].split() if not t[0].isdigit()]
    assert line == [to_ucci(m) for m in blunder["pv"]]
    bad = ladder("analyse", "--moves", "h3e3", "--pgn-notation", "xboardish")
    assert bad.returncode == ExitCode.USAGE and "invalid choice: 'xboardish'" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1, bad.stderr


def test_an_illegal_move_is_refused_with_its_ply(tmp_path: Path) -> None:
    source = tmp_path / "bad.pgn"
    source.write_text(game_pgn(["h3e3", "h8e8", "e3e9"]))
    done = ladder("analyse", str(source), "--nodes", NODES)
    assert done.returncode == ExitCode.USAGE
    assert "ply 3" in done.stderr and "Traceback" not in done.stderr
    done = ladder("analyse", "--moves", "h3e3 h8e8 e3e9", "--nodes", NODES)
    assert done.returncode == ExitCode.USAGE and "ply 3" in done.stderr


def test_an_output_file_that_cannot_be_written_is_refused_before_any_search(
    tmp_path: Path,
) -> None:
    for option, path in (("--out", "/nonexistent/a.pgn"), ("--json", "/nonexistent/a.json")):
        done = ladder("analyse", "--moves", "h3e3 h8e8", "--nodes", NODES, option, path)
        assert done.returncode == ExitCode.USAGE, done.stderr
        assert f"{option} {path}: the folder /nonexistent does not exist" in done.stderr
        assert "Traceback" not in done.stderr
    done = ladder("analyse", "--moves", "h3e3 h8e8", "--nodes", NODES, "--out", str(tmp_path))
    assert done.returncode == ExitCode.USAGE and "is a folder, not a file" in done.stderr


def test_json_on_standard_output_alone() -> None:
    """`--json -` alone: the JSON on standard output, no PGN (standard output is the
    PGN's default place; both there was refused, exit 2, though only --json was asked
    for). Both asked for there is still refused."""
    moves = ("--moves", "h3e3 h8e8", "--nodes", NODES)
    done = ladder("analyse", *moves, "--json", "-")
    assert done.returncode == ExitCode.DONE, done.stderr
    assert len(json.loads(done.stdout)["games"][0]["plies"]) == 2
    both = ladder("analyse", *moves, "--json", "-", "-o", "-")
    assert both.returncode == ExitCode.USAGE and "cannot both be standard output" in both.stderr
    pgn = ladder("analyse", *moves)  # the default: the PGN on standard output
    assert pgn.returncode == ExitCode.DONE and pgn.stdout.startswith("[")


def wrapped_engine(tmp_path: Path, engine_exe: Path, *fault: str) -> Path:
    script = tmp_path / "engine.sh"
    script.write_text(
        f"#!/bin/sh\nexec {sys.executable} {FAULTY_ENGINE} {engine_exe} {' '.join(fault)}\n"
    )
    script.chmod(0o755)
    return script


@pytest.mark.slow
def test_a_crash_is_retried_and_a_dead_engine_is_exit_3(tmp_path: Path, engine_exe: Path) -> None:
    once = wrapped_engine(tmp_path, engine_exe, "--crash-once-at", "3", str(tmp_path / "once"))
    done = ladder("analyse", "--moves", "h3e3 h8e8 h1g3 h10g8", "--nodes", NODES, "--json", "-",
                  "-o", str(tmp_path / "o.pgn"), env={"LADDER_ENGINE": str(once)})  # fmt: skip
    assert done.returncode == ExitCode.DONE, done.stderr
    assert len(json.loads(done.stdout)["games"][0]["plies"]) == 4
    dead = wrapped_engine(tmp_path, engine_exe, "--crash-after", "2", str(tmp_path / "dead"))
    done = ladder("analyse", "--moves", "h3e3 h8e8 h1g3 h10g8", "--nodes", NODES,
                  env={"LADDER_ENGINE": str(dead)})  # fmt: skip
    assert done.returncode == ExitCode.ENGINE_FAILURE, done.stderr
    assert "the engine failed" in done.stderr and "Traceback" not in done.stderr


def test_book_moves_are_not_judged_unless_asked(tmp_path: Path) -> None:
    # The planted blunder (ply 9) marked {book}, as a match's PGN marks its opening's
    # random plies: evaluated, not called a blunder; --judge-book judges it.
    book = [f"{m} {{book}}" for m in PLANTED[:9]]
    source = tmp_path / "game.pgn"
    source.write_text(game_pgn([*book, *PLANTED[9:]]))
    judged = {}
    for flag in ([], ["--judge-book"]):
        data = tmp_path / "out.json"
        done = ladder("analyse", str(source), "--json", str(data), "--nodes", NODES, *flag)
        assert done.returncode == ExitCode.DONE, done.stderr
        plies = json.loads(data.read_text())["games"][0]["plies"]
        assert [p["move"] for p in plies] == PLANTED
        judged[bool(flag)] = [p["judgement"] for p in plies]
    assert judged[True][8] == "blunder"
    assert judged[False][:9] == [None] * 9 and judged[False][9:] == judged[True][9:]
