"""Pure parsing and formatting: notation, options, info/bestmove lines, limits."""

from __future__ import annotations

from typing import Any

import chess
import pytest
from chess.engine import Cp, Mate, PovScore
from hypothesis import given, strategies

from protocol import EngineArgumentError, EngineProtocolError, Limit, OptionError
from protocol.info import parse_bestmove, parse_info
from protocol.notation import board_shape, check_move, check_safe, from_ucci, to_ucci
from protocol.options import OptionMap, parse_option

# --- notation -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("canonical", "ucci"),
    [
        ("b10c8", "b9c7"),
        ("h3e3", "h2e2"),
        ("A@e3", "A@e2"),
        ("a1a10", "a0a9"),
        ("i10i1", "i9i0"),
        ("P@i10", "P@i9"),
        ("(none)", "(none)"),
    ],
)
def test_rank_conversion_both_ways(canonical: str, ucci: str) -> None:
    assert to_ucci(canonical) == ucci
    assert from_ucci(ucci) == canonical


squares = strategies.tuples(strategies.sampled_from("abcdefghi"), strategies.integers(1, 10))


@given(squares, squares)
def test_rank_conversion_round_trips(a: tuple[str, int], b: tuple[str, int]) -> None:
    move = f"{a[0]}{a[1]}{b[0]}{b[1]}"
    assert from_ucci(to_ucci(move)) == move
    assert all(
        ch != "1" or i + 1 == len(to_ucci(move)) or not to_ucci(move)[i + 1].isdigit()
        for i, ch in enumerate(to_ucci(move))
    )  # UCCI squares are single-digit


def test_off_board_ranks_are_refused() -> None:
    with pytest.raises(EngineArgumentError):
        to_ucci("a11a10")
    with pytest.raises(EngineArgumentError):
        from_ucci("a10a9")


@pytest.mark.parametrize("move", ["h3e3", "b10c8", "A@e3", "+P@e3", "e7e8q", "e1g1"])
def test_check_move_accepts(move: str) -> None:
    assert check_move(move, files=9, ranks=10) == move


@pytest.mark.parametrize(
    "move", ["", "e2", "zz9", "a1a1", "j1j2", "a0a1", "a11a10", "e2 e4", "e2e4\nquit", "e2-e4"]
)
def test_check_move_refuses(move: str) -> None:
    with pytest.raises(EngineArgumentError):
        check_move(move, files=9, ranks=10)


@pytest.mark.parametrize("bad", ["a\nb", "a\rb", "a\x00b", "a\x1bb", "a\x7fb", "a\u2028b"])
def test_control_characters_are_refused(bad: str) -> None:
    with pytest.raises(EngineArgumentError):
        check_safe(bad, "value")


def test_board_shape() -> None:
    assert board_shape("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1") == (
        9,
        10,
    )
    assert board_shape("rn2k2nr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RN2K2NR[AABBaabb] w") == (
        9,
        10,
    )
    assert board_shape(chess.STARTING_FEN) == (8, 8)
    assert board_shape("10/10/10/10/10/10/10/10/10/10 w - - 0 1") == (10, 10)


# --- options --------------------------------------------------------------------------

FSF_UCI = [
    "option name Debug Log File type string default ",
    "option name Hash type spin default 16 min 1 max 33554432",
    "option name Clear Hash type button",
    "option name Ponder type check default false",
    "option name UCI_Variant type combo default chess var 3check var xiangqi var janggi",
    "option name SyzygyPath type string default <empty>",
    "option name Move Overhead type spin default 10 min 0 max 5000",
]
FSF_UCCI = [
    "option Debug_Log_File type string default ",
    "option hashsize type spin default 16 min 1 max 33554432",
    "option Clear_Hash type button",
    "option UCI_Variant type combo default xiangqi var 3check var xiangqi",
    "option Move_Overhead type spin default 10 min 0 max 5000",
]


def test_parse_uci_options() -> None:
    options = OptionMap([parse_option(line) for line in FSF_UCI])
    assert options["Hash"].type == "spin" and options["hash"].max == 33554432
    assert options["Clear Hash"].type == "button"
    assert options["Ponder"].default is False
    assert options["UCI_Variant"].var == ("3check", "xiangqi", "janggi")
    assert options["UCI_Variant"].default == "chess"
    assert options["SyzygyPath"].default == ""
    assert options["Debug Log File"].default == ""
    assert options["move_overhead"].name == "Move Overhead"


def test_parse_ucci_options() -> None:
    options = OptionMap([parse_option(line, ucci=True) for line in FSF_UCCI], ucci=True)
    assert options["Hash"].name == "hashsize"
    assert options["Move Overhead"].name == "Move_Overhead"
    assert options["Clear Hash"].type == "button"


def test_option_validation() -> None:
    options = OptionMap([parse_option(line) for line in FSF_UCI])
    assert options["Hash"].wire_value(64) == "64"
    assert options["Hash"].wire_value("64") == "64"
    assert options["Ponder"].wire_value(True) == "true"
    assert options["UCI_Variant"].wire_value("XiangQi") == "xiangqi"
    assert options["Clear Hash"].wire_value(None) is None
    bad_values: list[tuple[str, Any]] = [
        ("Hash", 0),
        ("Hash", "abc"),
        ("Hash", 1.5),
        ("Hash", True),
        ("Ponder", "yes"),
        ("UCI_Variant", "nope"),
        ("SyzygyPath", ""),
        ("SyzygyPath", "a  b"),
        ("Clear Hash", 3),
        ("Hash", None),
    ]
    for name, bad in bad_values:
        with pytest.raises(OptionError):
            options[name].wire_value(bad)
    with pytest.raises(OptionError):
        options.get_option("Nonexistent")


# --- info and bestmove ----------------------------------------------------------------


def test_parse_info_uci() -> None:
    line = (
        "info depth 10 seldepth 12 multipv 1 score cp 25 nodes 100101 nps 219519 "
        "tbhits 0 time 456 pv b1c3 h10g8"
    )
    info = parse_info(line, chess.WHITE)
    assert info["depth"] == 10 and info["seldepth"] == 12 and info["multipv"] == 1
    assert info["score"] == PovScore(Cp(25), chess.WHITE)
    assert info["nodes"] == 100101 and info["nps"] == 219519 and info["time"] == 0.456
    assert info["pv"] == ["b1c3", "h10g8"]


def test_parse_info_bounds_mate_wdl_string() -> None:
    info = parse_info("info depth 7 score cp 4 upperbound nodes 3001 pv h9g7", chess.BLACK)
    assert info["upperbound"] is True and info["score"].relative == Cp(4)
    assert info["score"].white() == Cp(-4)
    info = parse_info("info depth 3 score mate -2 lowerbound wdl 0 10 990 hashfull 5", chess.BLACK)
    assert info["score"].relative == Mate(-2) and info["lowerbound"] is True
    assert info["wdl"].relative.losses == 990 and info["hashfull"] == 5
    info = parse_info("info depth 0 score mate 0", chess.BLACK)
    assert info["score"].is_mate() and info["score"].relative.mate() == 0
    assert (
        parse_info("info string variant x  files 9", chess.WHITE)["string"] == "variant x  files 9"
    )
    assert parse_info("info depth 2 ebf 1.5 nodes 9", chess.WHITE)["nodes"] == 9  # unknown key


def test_parse_info_ucci_bare_score_and_conversion() -> None:
    info = parse_info("info depth 1 score 29 nodes 78 pv b9c7 a0a1", chess.BLACK, from_ucci)
    assert info["score"] == PovScore(Cp(29), chess.BLACK)
    assert info["pv"] == ["b10c8", "a1a2"]


@pytest.mark.parametrize(
    "line",
    [
        "info depth x",
        "info score",
        "info score cp",
        "info nodes 1e5",
        "info wdl 1 2",
        "info pv a10a9",
    ],
)
def test_parse_info_malformed(line: str) -> None:
    with pytest.raises(EngineProtocolError):
        parse_info(line, chess.WHITE, from_ucci if "pv" in line else None)


def test_parse_bestmove() -> None:
    assert parse_bestmove("bestmove b1c3 ponder h10g8") == ("b1c3", "h10g8", False, False)
    assert parse_bestmove("bestmove (none)") == (None, None, False, False)
    assert parse_bestmove("nobestmove") == (None, None, False, False)
    assert parse_bestmove("bestmove b9c7 ponder h2e2", from_ucci)[:2] == ("b10c8", "h3e3")
    assert parse_bestmove("bestmove h2e2 draw", from_ucci)[2] is True
    assert parse_bestmove("bestmove h2e2 resign")[3] is True
    for bad in ["bestmove", "bestmove a1a2 wibble"]:
        with pytest.raises(EngineProtocolError):
            parse_bestmove(bad)


# --- limits ---------------------------------------------------------------------------


def test_go_commands() -> None:
    assert Limit(nodes=1000).go_command(chess.WHITE) == "go nodes 1000"
    assert Limit(depth=5, time=0.25).go_command(chess.WHITE) == "go depth 5 movetime 250"
    assert Limit().go_command(chess.WHITE) == "go infinite"
    clock = Limit(white_clock=60, black_clock=58.5, white_inc=1, black_inc=2, remaining_moves=30)
    assert clock.go_command(chess.WHITE) == (
        "go wtime 60000 btime 58500 winc 1000 binc 2000 movestogo 30"
    )
    assert clock.go_command(chess.BLACK, ucci=True) == (
        "go time 58500 increment 2000 opptime 60000 oppincrement 1000 movestogo 30"
    )
    assert clock.go_command(chess.WHITE, ucci=True, millis=False).startswith("go time 60 ")
    # searchmoves comes last: every word after it is a move.
    only = Limit(nodes=500, root_moves=("h3e3", "b3e3"))
    assert only.go_command(chess.WHITE) == "go nodes 500 searchmoves h3e3 b3e3"
    for bad in ("h3e3", ("h3e3", "b3 e3"), ("h3e3\nquit",), (3,)):
        with pytest.raises(EngineArgumentError, match="root_moves"):
            Limit(nodes=1, root_moves=bad)  # type: ignore[arg-type]


def test_limit_budget_and_validation() -> None:
    assert Limit(nodes=100_000).budget(chess.WHITE, 50_000) == 2.0
    assert Limit(time=0.5, nodes=10**9).budget(chess.WHITE, 50_000) == 0.5
    assert Limit(white_clock=10, black_clock=3, black_inc=1).budget(chess.BLACK, 1e5) == 4
    assert Limit(depth=20).budget(chess.WHITE, 1e5) is None
    bad_limits: list[dict[str, Any]] = [
        {"nodes": -1},
        {"depth": 1.5},
        {"time": float("nan")},
        {"nodes": True},
    ]
    for bad in bad_limits:
        with pytest.raises(EngineArgumentError):
            Limit(**bad)
