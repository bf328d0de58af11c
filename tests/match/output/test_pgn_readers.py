"""The match PGN as other tools read it: python-chess for the tags, the comments
(``[%eval]``) and the result (its tokenizer knows chess moves only, and skips WXF moves);
the ``cchess`` xiangqi library for the moves (ICCS, which it reads; it does not read WXF),
replayed on its own board."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import cchess  # type: ignore[import-untyped]
import chess
import chess.pgn

from ladder.match.output.pgn import read_pgn, replay
from ladder.match.output.store import ResultStore


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


def ladder(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ladder.cli", *args], capture_output=True, text=True, timeout=600
    )


def test_match_pgn_read_by_python_chess_and_cchess(tmp_path: Path, engine_exe: Path) -> None:
    db, wxf, iccs = tmp_path / "m.sqlite", tmp_path / "wxf.pgn", tmp_path / "iccs.pgn"
    common = ["--variant", "xiangqi", "--games", "2", "--db", str(db), "--max-plies", "60"]
    done = ladder("match", "level:1", f"engine:{engine_exe},nodes=300,name=fsf300", *common,
                  "--pgn", str(wxf))  # fmt: skip
    assert done.returncode == 0, done.stderr
    # the same games again, from the database, in ICCS without comments
    done = ladder("match", "level:1", f"engine:{engine_exe},nodes=300,name=fsf300", *common,
                  "--pgn", str(iccs), "--pgn-notation", "iccs", "--pgn-min")  # fmt: skip
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
    chunks = ["[Event" + c for c in text.split("[Event")[1:]]
    assert len(chunks) == 2 and "{" not in text
    for n, (chunk, rec) in enumerate(zip(chunks, records, strict=True)):
        path = tmp_path / f"game{n}.pgn"
        path.write_text(chunk)
        theirs = cchess.Game.read_from(str(path))
        moves = [m for line in theirs.dump_iccs_moves() for m in line]
        assert len(moves) == len(rec.moves), f"cchess stopped at move {len(moves)}"
        replayed = replay(next(iter(read_pgn(chunk))))
        assert replayed.moves == rec.moves
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
        done = ladder("match", "level:1", f"engine:{engine_exe},nodes=300,name=fsf300", *common,
                      "--pgn", str(path), "--pgn-notation", notation, *extra)  # fmt: skip
        assert done.returncode == 0 and "played 0, resumed past 2" in done.stdout, done.stderr
    text = chinese.read_text()
    chunks = ["[Event" + c for c in text.split("[Event")[1:]]
    assert len(chunks) == 2 and "{" not in text and text.count('[Format "Chinese"]') == 2
    for n, (chunk, rec) in enumerate(zip(chunks, records, strict=True)):
        path = tmp_path / f"chinese{n}.pgn"
        path.write_text(chunk)
        theirs = cchess.Game.read_from(str(path))
        moves = [m for line in theirs.dump_iccs_moves() for m in line]
        assert len(moves) == len(rec.moves), f"cchess stopped at move {len(moves)}"
        assert replay(next(iter(read_pgn(chunk)))).moves == rec.moves
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
