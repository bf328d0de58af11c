"""``FinalInfoOnly`` (engine/patches/0005): the engine holds back its per-iteration
``info`` lines and prints only the last one(s), just before ``bestmove``.

A client that reads only a search's result (the ladder's levels, the match runner) then
wakes up once per search instead of once per iteration. Nothing else may change: for
the same search (``ucinewgame`` first, so both runs search alike) the bestmove and the
final block of ``info`` lines (one per MultiPV line; clock fields aside) must be exactly
what the engine prints last without the option, across variants, node limits, MultiPV,
a depth limit (a search that ends without being stopped), a mate and a position with no
move. The option defaults to off (stock output).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from .fsf_uci import UciEngine

XIANGQI = "mistboard-xiangqi"
START = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
MATE_IN_1 = "4k4/R8/9/9/9/9/9/9/9/1R1K5 w - - 0 1"
CHECKMATED = "1R2k4/R8/9/9/9/9/9/9/9/3K5 b - - 1 1"
OPENING = ["h3e3", "h10g8", "h1g3", "i10h10"]

CASES = [
    # (section, fen, moves, multipv, go)
    (XIANGQI, START, OPENING, 1, "go nodes 16"),
    (XIANGQI, START, OPENING, 1, "go nodes 2500"),
    (XIANGQI, START, OPENING, 1, "go nodes 20000"),
    (XIANGQI, START, OPENING, 4, "go nodes 1000"),
    (XIANGQI, START, [], 8, "go nodes 5000"),
    (XIANGQI, START, OPENING, 1, "go depth 7"),
    ("atomic-xiangqi", START, ["h3e3"], 3, "go nodes 2000"),
    ("crazyhouse-xiangqi", START, ["h3e3", "h8h1"], 1, "go nodes 8000"),
    (XIANGQI, MATE_IN_1, [], 1, "go nodes 5000"),
    (XIANGQI, CHECKMATED, [], 1, "go nodes 1000"),
]

_CLOCK = re.compile(r" (time|nps|hashfull) \d+")


def unclocked(line: str) -> str:
    return _CLOCK.sub("", line)


def search(
    engine: UciEngine,
    section: str,
    fen: str,
    moves: list[str],
    multipv: int,
    go: str,
    final_only: bool,
) -> tuple[list[str], str]:
    """(info lines without ``info string``, bestmove line) of one search."""
    engine.send(f"setoption name FinalInfoOnly value {'true' if final_only else 'false'}")
    engine.send(f"setoption name MultiPV value {multipv}")
    engine.variant(section)
    engine.send("ucinewgame")
    engine.sync()
    engine.position(fen, moves)
    engine.send(go)
    out = engine.read_until(lambda line: line.startswith("bestmove"))
    infos = [ln for ln in out[:-1] if ln.startswith("info ") and not ln.startswith("info string")]
    return infos, out[-1]


def last_block(infos: list[str]) -> list[str]:
    """The last line of each MultiPV number, in MultiPV order."""
    last: dict[int, str] = {}
    for line in infos:
        found = re.search(r" multipv (\d+)", line)
        last[int(found.group(1)) if found else 1] = line
    return [last[k] for k in sorted(last)]


@pytest.fixture(scope="module")
def engine(engine_exe: Path, variants_ini: Path) -> Iterator[UciEngine]:
    with UciEngine(engine_exe, variants_ini) as eng:
        eng.send("setoption name Threads value 1")
        eng.send("setoption name Hash value 16")
        eng.sync()
        yield eng


def test_option_is_advertised_and_off_by_default(engine_exe: Path) -> None:
    with UciEngine(engine_exe) as eng:
        eng.send("uci")
        lines = eng.read_until(lambda line: line == "uciok")
    assert "option name FinalInfoOnly type check default false" in lines


@pytest.mark.parametrize(
    "case", CASES, ids=[f"{c[0]}-{len(c[2])}plies-mpv{c[3]}-{c[4]}" for c in CASES]
)
def test_final_info_is_the_last_stock_info(engine: UciEngine, case: tuple) -> None:
    section, fen, moves, multipv, go = case
    stock_infos, stock_best = search(engine, section, fen, moves, multipv, go, False)
    final_infos, final_best = search(engine, section, fen, moves, multipv, go, True)
    assert final_best == stock_best
    assert [unclocked(x) for x in final_infos] == [unclocked(x) for x in last_block(stock_infos)]
    if fen != CHECKMATED:
        # Held back for real: the stock search printed more (one block per iteration).
        assert len(stock_infos) > len(final_infos) == multipv
    else:
        assert final_infos == stock_infos == ["info depth 0 score mate 0"]


def _raw_search(engine: UciEngine, final_only: bool) -> list[str]:
    """Every line a 2,500-node search prints, up to and with its bestmove."""
    engine.send(f"setoption name FinalInfoOnly value {'true' if final_only else 'false'}")
    engine.send("setoption name MultiPV value 1")
    engine.variant(XIANGQI)
    engine.send("ucinewgame")
    engine.sync()
    engine.position(START, OPENING)
    engine.send("go nodes 2500")
    return engine.read_until(lambda line: line.startswith("bestmove"))


def test_final_info_only_prints_nothing_before_the_final_block(engine: UciEngine) -> None:
    """engine/patches/0006: with the option on, not even the evaluation's ``info string``
    at the search's start, which woke a client reading only the result a second time."""
    stock = _raw_search(engine, False)
    assert "info string classical evaluation enabled" in stock
    final = _raw_search(engine, True)
    assert len(final) == 2
    assert final[0].startswith("info depth ") and final[1].startswith("bestmove")
