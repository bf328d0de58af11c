"""Lazy ``info`` parsing (protocol.info.InfoMerger) against eager parsing.

A search keeps only the merge of each MultiPV line's ``info`` lines. InfoMerger only
matches Fairy-Stockfish's usual line against a regular expression and parses the last
one of each MultiPV line; these tests check that the result is exactly what parsing
every line and merging them gives (the client's former way), on real engine output
(MultiPV 1-8, three variants, node limits from 16 to 20000, mates, a search long
enough for ``hashfull``) and on generated line sequences.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess
import pytest
from chess.engine import PovScore
from hypothesis import given, settings, strategies

from protocol import Engine, EngineProtocolError, Limit
from protocol.info import (
    _HASHFULL,
    _MULTIPV,
    _STANDARD_INFO_RE,
    InfoDict,
    InfoMerger,
    _info_from_match,
    parse_info,
)
from protocol.notation import from_ucci
from tests.protocol.positions import CHECKMATED, MATE_IN_1, START, VARIANTS_INI

XIANGQI = "mistboard-xiangqi"

pytestmark = pytest.mark.timeout(120)


def eager_merge(lines: list[str], turn: chess.Color, convert: Any = None) -> dict[int, InfoDict]:
    """The former merge: parse every line, update per MultiPV number; an ``info
    string`` line (a message) kept out of the result since engine patch 0006."""
    infos: dict[int, InfoDict] = {}
    for line in lines:
        info = parse_info(line, turn, convert)
        if list(info) == ["string"]:
            continue
        target = infos.setdefault(info.get("multipv", 1), InfoDict())
        if "score" in info:
            target.pop("lowerbound", None)
            target.pop("upperbound", None)
        target.update(info)
    return infos


def strict(
    infos: dict[int, InfoDict],
    drop: tuple[str, ...] = (),
) -> dict[int, dict[str, Any]]:
    """A form whose == is exact: scores by (relative, turn), not only white's view;
    without the keys in `drop`."""
    out: dict[int, dict[str, Any]] = {}
    for k, info in infos.items():
        d: dict[str, Any] = {}
        for key, value in info.items():
            if key in drop:
                continue
            if isinstance(value, PovScore):
                value = ("score", value.relative, value.turn)
            d[key] = value
        out[k] = d
    return out


def lazy_merge(lines: list[str], turn: chess.Color, convert: Any = None) -> dict[int, InfoDict]:
    merger = InfoMerger(turn, convert)
    for line in lines:
        merger.add(line)
    return merger.result()


# --- real engine output ---------------------------------------------------------------


def engine_lines(
    exe: Path, section: str, fen: str, moves: list[str], multipv: int, go: str
) -> list[str]:
    """The info lines of one search by a raw engine process (no client in between)."""
    position = f"position fen {fen}" + (f" moves {' '.join(moves)}" if moves else "")
    script = (
        f"uci\nsetoption name VariantPath value {VARIANTS_INI}\n"
        f"setoption name UCI_Variant value {section}\nsetoption name Threads value 1\n"
        f"setoption name MultiPV value {multipv}\nucinewgame\nisready\n{position}\n"
        f"{go}\n"
    )
    proc = subprocess.Popen([str(exe)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(script)
    proc.stdin.flush()
    lines = []
    try:
        for line in proc.stdout:
            line = line.rstrip("\n")
            if line.startswith("bestmove"):
                break
            if line.startswith("info ") and not line.startswith("info string variant"):
                lines.append(line)
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return lines


CASES = [
    # (section, fen, moves, multipv, go)
    (XIANGQI, START, ["h3e3", "h10g8", "h1g3", "i10h10"], 1, "go nodes 16"),
    (XIANGQI, START, ["h3e3", "h10g8", "h1g3", "i10h10"], 4, "go nodes 16"),
    (XIANGQI, START, ["h3e3", "h10g8", "h1g3", "i10h10"], 4, "go nodes 200"),
    (XIANGQI, START, ["h3e3", "h10g8", "h1g3", "i10h10"], 4, "go nodes 1000"),
    (XIANGQI, START, ["h3e3", "h10g8", "h1g3", "i10h10"], 3, "go nodes 3200"),
    (XIANGQI, START, ["h3e3", "h10g8", "h1g3", "i10h10"], 1, "go nodes 20000"),
    (XIANGQI, START, [], 8, "go nodes 5000"),
    ("atomic-xiangqi", START, ["h3e3"], 4, "go nodes 2000"),
    ("crazyhouse-xiangqi", START, ["h3e3", "h8h1"], 4, "go nodes 2000"),
    (XIANGQI, MATE_IN_1, [], 3, "go nodes 5000"),
    (XIANGQI, MATE_IN_1, [], 1, "go depth 6"),
    (XIANGQI, CHECKMATED, [], 1, "go nodes 1000"),
]


@pytest.fixture(scope="module")
def outputs(fsf_exe: Path) -> Iterator[list[tuple[str, list[str], chess.Color]]]:
    got = []
    for section, fen, moves, multipv, go in CASES:
        lines = engine_lines(fsf_exe, section, fen, moves, multipv, go)
        turn = (fen.split()[1] != "b") ^ (len(moves) % 2 == 1)
        got.append((f"{section} {moves} MultiPV {multipv} {go}", lines, turn))
    yield got


def test_lazy_equals_eager_on_engine_output(
    outputs: list[tuple[str, list[str], chess.Color]],
) -> None:
    matched = total = 0
    for name, lines, turn in outputs:
        assert lines, name
        reference = strict(eager_merge(lines, turn))
        assert strict(lazy_merge(lines, turn)) == reference, name
        eager = InfoMerger(turn, eager=True)
        for line in lines:
            assert eager.add(line) is not None
        assert strict(eager.result()) == reference, name
        for line in lines:
            total += 1
            match = _STANDARD_INFO_RE.fullmatch(line)
            if match is not None:
                matched += 1
                # what the lazy merge reads off the match is what the parse says
                assert_match_agrees(match, parse_info(line, turn))
                assert_built_as_parsed(match, turn)
    # the lazy path is the one real output takes
    assert matched >= 0.9 * total, (matched, total)


def assert_match_agrees(match: re.Match[str], parsed: InfoDict) -> None:
    """The lazy merge keys a matched line by the regex's multipv group and carries its
    hashfull group over: the full parse of the line must say the same."""
    assert parsed["multipv"] == int(match.group(_MULTIPV)), match.string
    assert parsed.get("hashfull") == (
        None if match.group(_HASHFULL) is None else int(match.group(_HASHFULL))
    ), match.string
    assert "score" in parsed and parsed["pv"], match.string


def assert_built_as_parsed(match: re.Match[str], turn: chess.Color) -> None:
    """The InfoDict the lazy merge builds from a match's groups is the parse of the
    line: the same keys in the same order, the same values and score (relative, turn)."""
    built, parsed = _info_from_match(match, turn), parse_info(match.string, turn)
    assert list(strict({0: built})[0].items()) == list(strict({0: parsed})[0].items())


def test_lazy_equals_eager_with_hashfull(fsf_exe: Path) -> None:
    """A search over a second long prints `hashfull`; later lines may lack it."""
    lines = engine_lines(fsf_exe, XIANGQI, START, ["h3e3"], 3, "go movetime 1300")
    assert any(" hashfull " in line for line in lines)
    assert strict(lazy_merge(lines, chess.BLACK)) == strict(eager_merge(lines, chess.BLACK))


@pytest.mark.parametrize("multipv", [1, 4])
@pytest.mark.parametrize("nodes", [16, 200, 1000])
async def test_search_lazy_equals_search_eager(
    fsf_exe: Path, no_leaked_processes: set[int], multipv: int, nodes: int
) -> None:
    """Engine.search parses lazily unless a caller wants every line (on_info): the
    same deterministic search gives the same PlayResult either way (but for the clock:
    `time`, `nps`)."""
    engine = await Engine.start(fsf_exe)
    no_leaked_processes.add(engine.pid)
    try:
        await engine.load_variants(VARIANTS_INI)
        await engine.configure({"Threads": 1, "MultiPV": multipv, "UCI_Variant": XIANGQI})
        moves = ["h3e3", "h10g8", "h1g3", "i10h10"]
        lazy = await engine.search(None, moves, Limit(nodes=nodes), new_game=True)
        seen: list[InfoDict] = []
        eager = await engine.search(
            None, moves, Limit(nodes=nodes), new_game=True, on_info=seen.append
        )
        assert seen
        assert (lazy.move, lazy.ponder) == (eager.move, eager.ponder)
        clock = ("time", "nps", "hashfull")
        assert strict({0: lazy.info}, clock) == strict({0: eager.info}, clock)
        assert strict(dict(enumerate(lazy.multipv)), clock) == strict(
            dict(enumerate(eager.multipv)), clock
        )
        assert 1 <= len(lazy.multipv) <= multipv  # a tiny search may finish fewer lines
    finally:
        await engine.close()


# --- generated sequences ----------------------------------------------------------------

moves_st = strategies.sampled_from(["b1c3", "h10g8", "i1h1", "A@e3", "e7e8q", "b10c8", "a1a10"])


@strategies.composite
def standard_line(draw: strategies.DrawFn) -> str:
    depth = draw(strategies.integers(0, 40))
    score = draw(strategies.sampled_from(["cp", "mate", ""]))
    value = draw(strategies.integers(-30000, 30000))
    bound = draw(strategies.sampled_from(["", " lowerbound", " upperbound"]))
    hashfull = draw(
        strategies.sampled_from(["", f" hashfull {draw(strategies.integers(0, 1000))}"])
    )
    pv = " ".join(draw(strategies.lists(moves_st, min_size=1, max_size=4)))
    kind = f"{score} " if score else ""
    return (
        f"info depth {depth} seldepth {depth + draw(strategies.integers(0, 5))} "
        f"multipv {draw(strategies.integers(1, 4))} score {kind}{value}{bound} "
        f"nodes {draw(strategies.integers(0, 10**7))} nps {draw(strategies.integers(0, 10**6))}"
        f"{hashfull} tbhits 0 time {draw(strategies.integers(0, 99999))} pv {pv}"
    )


other_line = strategies.sampled_from(
    [
        "info string classical evaluation enabled",
        "info string multipv 3 nodes 5",  # free text: no keys in it
        "info depth 5 currmove b1c3 currmovenumber 2",
        "info depth 9 currmove A@e3 currmovenumber 7 multipv 2",
        "info nodes 1234 time 56",
        "info depth 0 score mate 0",
        "info depth 3 multipv 2 score cp 5 wdl 500 400 100 hashfull 7 nodes 9 pv b1c3",
        "info depth 2 seldepth 2 multipv 3 score cp 7 nodes 9 nps 9 tbhits 0 time 1 pv",
        "info depth 2 seldepth 2 multipv 1 score cp 7  nodes 9 nps 9 tbhits 0 time 1 pv b1c3",
        "info depth 4 seldepth 4 multipv 2 score cp 1 upperbound lowerbound nodes 9 nps 9 "
        "tbhits 0 time 1 pv b1c3",
        "info depth 4 seldepth 4 multipv 1 score cp 1 nodes 9 nps 9 hashfull 3 tbhits 0 "
        "time 1 pv b1c3 h10g8",
        "info hashfull 12 sbhits 3 cpuload 500",
        "info refutation b1c3 h10g8 currline b1c3",
    ]
)


@settings(max_examples=300, derandomize=True, deadline=None)
@given(
    strategies.lists(strategies.one_of(standard_line(), other_line), max_size=40),
    strategies.sampled_from([chess.WHITE, chess.BLACK]),
)
def test_lazy_equals_eager_generated(lines: list[str], turn: chess.Color) -> None:
    assert strict(lazy_merge(lines, turn)) == strict(eager_merge(lines, turn))


@settings(max_examples=100, derandomize=True, deadline=None)
@given(standard_line(), strategies.sampled_from([chess.WHITE, chess.BLACK]))
def test_standard_build_equals_parse(line: str, turn: chess.Color) -> None:
    match = _STANDARD_INFO_RE.fullmatch(line)
    assert match is not None
    assert_match_agrees(match, parse_info(line, turn))
    assert_built_as_parsed(match, turn)


@pytest.mark.parametrize(
    "pv", ["b1c3\th10g8", "b1c3\x0bh10g8 i1h1", "b1c3\tstring h10g8", "b1c3\u3000h10g8"]
)
def test_standard_line_with_odd_whitespace_in_its_pv(pv: str) -> None:
    """The regular expression lets a PV move run on over whitespace other than spaces,
    which parse_info splits on: the line is then parsed, not built."""
    line = f"info depth 2 seldepth 2 multipv 1 score cp 7 nodes 9 nps 9 tbhits 0 time 1 pv {pv}"
    match = _STANDARD_INFO_RE.fullmatch(line)
    assert match is not None
    assert_built_as_parsed(match, chess.WHITE)
    assert strict(lazy_merge([line], chess.WHITE)) == strict(eager_merge([line], chess.WHITE))


def test_ucci_conversion_is_parsed_eagerly() -> None:
    lines = [
        "info depth 1 seldepth 1 multipv 1 score 29 nodes 78 nps 7 tbhits 0 time 1 pv b9c7 a0a1",
        "info depth 2 seldepth 2 multipv 1 score 31 nodes 99 nps 7 tbhits 0 time 1 pv b0c2",
    ]
    merged = lazy_merge(lines, chess.BLACK, from_ucci)
    assert merged == eager_merge(lines, chess.BLACK, from_ucci)
    assert merged[1]["pv"] == ["b1c3"]


def test_malformed_line_still_raises_when_it_comes() -> None:
    merger = InfoMerger(chess.WHITE)
    merger.add("info depth 1 seldepth 1 multipv 1 score cp 5 nodes 9 nps 9 tbhits 0 time 1 pv b1c3")
    with pytest.raises(EngineProtocolError):
        merger.add(
            "info depth 2 seldepth 2 multipv 1 score cp x nodes 9 nps 9 tbhits 0 time 1 pv b1c3"
        )
