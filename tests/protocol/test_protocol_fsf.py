"""Against the real Fairy-Stockfish, in UCI and in UCCI mode, over real pipes."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import chess
import pytest
from chess.engine import Cp, Mate

from ladder.rules import Game, divide
from ladder.variants import FSF_VARIANT
from protocol import (
    Dialect,
    Engine,
    EngineArgumentError,
    InfoDict,
    Limit,
    ManagedEngine,
    OptionError,
    PlayResult,
    UcciEngine,
    UciEngine,
    UnsafeArgumentError,
    VariantError,
)
from tests.protocol.positions import CHECKMATED, MATE_IN_1, START, VARIANTS_INI

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(params=[Dialect.UCI, Dialect.UCCI], ids=["uci", "ucci"])
async def fsf(
    request: pytest.FixtureRequest, fsf_exe: Path, no_leaked_processes: set[int]
) -> AsyncIterator[UciEngine]:
    engine = await Engine.start(fsf_exe, protocol=request.param)
    assert isinstance(engine, UciEngine)  # UcciEngine is one too
    no_leaked_processes.add(engine.pid)
    try:
        yield engine
    finally:
        await engine.close()


async def test_handshake_and_option_discovery(fsf: UciEngine) -> None:
    assert fsf.id["name"].startswith("Fairy-Stockfish")
    hash_option = fsf.options["Hash"]
    assert hash_option.type == "spin" and hash_option.min == 1 and hash_option.default == 16
    # UCCI: FSF calls Hash `hashsize` and writes `_` for spaces.
    expected = "hashsize" if fsf.protocol is Dialect.UCCI else "Hash"
    assert hash_option.name == expected
    overhead = fsf.options["Move Overhead"]
    assert overhead.name == ("Move_Overhead" if fsf.protocol is Dialect.UCCI else "Move Overhead")
    assert fsf.options["Clear Hash"].type == "button"
    assert fsf.options["Ponder"].type == "check" and fsf.options["Ponder"].default is False
    variant = fsf.options["UCI_Variant"]
    assert variant.type == "combo" and "xiangqi" in variant.var
    assert fsf.options["VariantPath"].type == "string"
    await fsf.configure({"Threads": 1, "Hash": 32, "Move Overhead": 20, "Clear Hash": None})
    await fsf.ping()  # the engine survived the setoption lines


async def test_invalid_option_values_are_rejected_before_sending(fsf: UciEngine) -> None:
    # FSF would drop these silently; `Hash abc` would even abort it (stof).
    bad_values: list[tuple[str, Any]] = [
        ("Hash", "abc"),
        ("Hash", 0),
        ("Threads", 10**6),
        ("Ponder", "maybe"),
        ("UCI_Variant", "no-such-variant"),
        ("No Such Option", 1),
    ]
    for name, value in bad_values:
        with pytest.raises(OptionError):
            await fsf.set_option(name, value)
    await fsf.ping()
    assert not fsf.closed


async def test_deterministic_go_nodes(fsf: UciEngine) -> None:
    await fsf.configure({"Threads": 1, "Hash": 16})
    await fsf.set_variant("xiangqi")
    results = [
        await fsf.search(START, ["h3e3"], Limit(nodes=20_000), new_game=True) for _ in range(2)
    ]
    assert results[0].move == results[1].move
    assert results[0].info["nodes"] == results[1].info["nodes"]
    assert results[0].info["pv"] == results[1].info["pv"]
    assert isinstance(results[0].info["score"].relative, Cp)
    assert results[0].info["score"].turn == chess.BLACK  # Black to move after h3e3


async def test_mate_in_one_and_checkmated(fsf: UciEngine) -> None:
    await fsf.set_variant("xiangqi")
    result = await fsf.search(MATE_IN_1, [], Limit(depth=5), new_game=True)
    assert result.move == "b1b10"  # canonical rank 10, in UCCI mode too
    assert result.info["score"].relative == Mate(1)
    assert result.info["score"].white() == Mate(1)
    lost = await fsf.search(CHECKMATED, [], Limit(depth=5), new_game=True)
    assert lost.move is None and lost.ponder is None
    assert lost.info["score"].relative.mate() == 0 and lost.info["score"].turn == chess.BLACK
    # The same position reached by moves (the move itself crosses rank 10).
    again = await fsf.search(MATE_IN_1, ["b1b10"], Limit(depth=5), new_game=True)
    assert again.move is None


async def test_variants_through_variant_path(fsf: UciEngine) -> None:
    await fsf.load_variants(VARIANTS_INI)
    info = await fsf.set_variant("mistboard-xiangqi")
    assert (info.files, info.ranks) == (9, 10)
    assert info.start_fen == START
    zh = await fsf.set_variant("crazyhouse-xiangqi")
    assert zh.start_fen is not None and "[AABBaabb]" in zh.start_fen
    result = await fsf.search(None, ["A@e3"], Limit(nodes=3000), new_game=True)  # a drop
    assert result.move is not None and result.info["score"].turn == chess.BLACK
    with pytest.raises(VariantError):
        await fsf.set_variant("no-such-section")
    await fsf.set_variant("atomic-xiangqi")
    assert (await fsf.search(None, [], Limit(depth=3))).move is not None


async def test_rank_conversion_matches_across_protocols(
    fsf_exe: Path, no_leaked_processes: set[int]
) -> None:
    """The same search, UCI vs UCCI: identical canonical moves, pv and node count.

    Position moves include rank-10 moves (b10c8, h10g8), which only reach the engine
    intact in UCCI if converted to b9c7/h9g7; FSF would otherwise stop at the first.
    """
    moves = ["h3e3", "b10c8", "h1g3", "h10g8"]
    results = []
    for protocol in (Dialect.UCI, Dialect.UCCI):
        async with await Engine.start(fsf_exe, protocol=protocol) as engine:
            no_leaked_processes.add(engine.pid)
            await engine.configure({"Threads": 1, "Hash": 16})
            await engine.load_variants(VARIANTS_INI)
            await engine.set_variant("mistboard-xiangqi")
            if isinstance(engine, UcciEngine):
                assert engine.position_command(None, moves).endswith("moves h2e2 b9c7 h0g2 h9g7")
            results.append(await engine.search(None, moves, Limit(nodes=10_000), new_game=True))
    uci, ucci = results
    assert uci.move == ucci.move and uci.ponder == ucci.ponder
    assert uci.info["pv"] == ucci.info["pv"] and uci.info["nodes"] == ucci.info["nodes"]
    assert uci.info["score"] == ucci.info["score"]
    assert any(m[-2:] == "10" or m[1:3] == "10" for m in uci.info["pv"][1::2])  # Black's moves


async def _infinite_search(engine: Engine) -> asyncio.Task[PlayResult]:
    """An infinite xiangqi search from the start, once it runs (its first depth came).

    An ``info string`` line can come first; only a line with a depth says a search runs.
    """
    await engine.set_variant("xiangqi")
    searching = asyncio.Event()

    def seen(info: InfoDict) -> None:
        if "depth" in info:
            searching.set()

    task = asyncio.create_task(engine.search(START, [], Limit(), new_game=True, on_info=seen))
    await searching.wait()
    return task


async def test_stop_an_infinite_search(fsf: UciEngine) -> None:
    task = await _infinite_search(fsf)
    await fsf.stop()
    result = await task
    assert result.move is not None and result.info["depth"] >= 1
    await fsf.ping()


async def test_cancelled_search_resynchronises(fsf: UciEngine) -> None:
    task = await _infinite_search(fsf)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    # the next operation stops the orphaned search and drains its bestmove first
    result = await fsf.search(MATE_IN_1, [], Limit(depth=3))
    assert result.move == "b1b10"


@pytest.mark.parametrize(
    ("fen", "moves", "option"),
    [
        (START + "\nquit", [], None),
        (START, ["h3e3\ngo infinite"], None),
        (START, ["h3e3\r"], None),
        (START, [], ("Hash", "16\nquit")),
        (START, [], ("Debug Log File", "/tmp/x\x00y")),
        (START, [], ("Hash\nquit", "16")),
    ],
)
async def test_control_characters_never_reach_the_engine(
    fsf: Engine, fen: str, moves: list[str], option: tuple[str, str] | None
) -> None:
    with pytest.raises(UnsafeArgumentError):
        if option is not None:
            await fsf.set_option(*option)
        else:
            await fsf.search(fen, moves, Limit(nodes=100))
    with pytest.raises(UnsafeArgumentError):
        await fsf.set_variant("xiangqi\nquit")
    with pytest.raises(UnsafeArgumentError):
        await fsf.load_variants(str(VARIANTS_INI) + "\nquit")
    # nothing was sent: the engine is alive and in sync
    await fsf.ping()
    assert (await fsf.search(MATE_IN_1, [], Limit(depth=2))).move is not None


async def test_other_argument_errors(fsf: UciEngine) -> None:
    for fen, moves in [
        (START + " moves h3e3", []),
        (START, "h3e3"),
        (START, ["h3e3 h10g8"]),
        (START, ["z9z8"]),
        ("rnbakabnr/9 x", []),
    ]:
        with pytest.raises(EngineArgumentError):
            await fsf.search(fen, moves, Limit(nodes=100))
    with pytest.raises(OptionError):
        await fsf.load_variants("relative/variants.ini")
    await fsf.ping()


# ------------------------------------------------------------------ perft

PERFT_CASES = [
    ("xiangqi", None, [], 2),
    ("xiangqi", None, ["h3e3", "b10c8"], 2),
    ("crazyhouse-xiangqi", None, ["h3e3"], 1),  # drops
    ("atomic-xiangqi", None, ["h3e3", "h8e8", "b3b10"], 2),  # captures and explosions
    ("atomic-xiangqi", "9/3ka4/3cb4/9/9/9/3R5/9/9/4K4 w - - 0 1", ["d4d8"], 1),  # game over
]


@pytest.mark.parametrize(("variant", "fen", "moves", "depth"), PERFT_CASES)
async def test_perft_equals_the_rules_checker_move_by_move(
    fsf: UciEngine, variant: str, fen: str | None, moves: list[str], depth: int
) -> None:
    game = Game.from_fen(variant, fen, moves)
    await fsf.load_variants(VARIANTS_INI)
    await fsf.set_variant(FSF_VARIANT[variant])
    counts = await fsf.perft(fen, moves, depth, timeout=30)
    # canonical moves (ranks 1..10) in UCCI mode too
    assert counts == (divide(game, depth) if game.outcome() is None else {})


async def test_the_engine_searches_after_a_perft(fsf: UciEngine) -> None:
    await fsf.set_variant("xiangqi")
    assert sum((await fsf.perft(None, [], 1, timeout=30)).values()) == 44
    result = await fsf.search(None, ["h3e3"], Limit(nodes=100), new_game=True)
    assert Game.from_fen("xiangqi", moves=["h3e3"]).is_legal(result.move or "")
    await fsf.ping()


@pytest.mark.parametrize("depth", [0, 11, "2", 1.5])
async def test_bad_perft_depth_is_refused_before_anything_is_sent(
    fsf: UciEngine, depth: object
) -> None:
    with pytest.raises(EngineArgumentError):
        await fsf.perft(None, [], depth, timeout=30)  # type: ignore[arg-type]
    await fsf.ping()


async def test_position_command_reuses_the_last_moves_checked(fsf: UciEngine) -> None:
    """A game sends its moves again with one more each time: those the last position
    had are not checked again, and the line is the one built from scratch (in either
    dialect's numbering); a different game, a bad move or another board is checked."""
    await fsf.set_variant("xiangqi")
    game = ["h3e3", "h10g8", "h1g3", "i10h10", "i1h1", "b10c8"]

    def fresh(fen: str | None, moves: list[str]) -> str:
        fsf._last_moves = None
        return fsf.position_command(fen, moves)

    for n in range(len(game) + 1):
        expected = fresh(None, game[:n])
        fsf._last_moves = None
        for k in range(n + 1):  # any earlier position of the game first
            fsf.position_command(None, game[:k])
            assert fsf.position_command(None, tuple(game[:n])) == expected
    fsf.position_command(None, game)
    with pytest.raises(EngineArgumentError):
        fsf.position_command(None, [*game, "a1a1"])
    with pytest.raises(EngineArgumentError):
        fsf.position_command(None, [*game, 7])  # type: ignore[list-item]
    assert fsf.position_command(None, ["b1c3", *game]) == fresh(None, ["b1c3", *game])
    fsf.position_command(None, ["a1a2", "a10a9"])
    small = "4k3/8/8/8/8/8/8/4K3 w - - 0 1"  # an 8x8 board: a10a9 is off it
    with pytest.raises(EngineArgumentError):
        fsf.position_command(small, ["a1a2", "a10a9"])


async def test_a_deadline_takes_out_what_comes_before_the_search(
    fsf_exe: Path, wire: Any, no_leaked_processes: set[int]
) -> None:
    """A clock runs from when the move was asked for: the engine's start (and its new
    options) come out of a ``deadline``, and the ``movetime`` sent is what is left (at
    least 1 ms), never the whole budget after the setup."""
    managed = ManagedEngine(fsf_exe, options={"Threads": 1}, variant_path=VARIANTS_INI)
    try:
        asked = time.monotonic()
        limit = Limit(nodes=5_000, deadline=asked + 0.05)  # 50 ms: less than a start
        first = await managed.search("xiangqi", None, [], limit, {"Hash": 32})
        started = time.monotonic() - asked
        assert first.result.move is not None
        no_leaked_processes.add(first.pid)
        (go,) = [line for line in wire(">") if line.startswith("go ")]
        movetime = int(go.split()[-1])  # the engine's start (its handshake) came out of it
        assert go.startswith("go nodes 5000 movetime ") and 1 <= movetime < 50, (started, go)
        asked = time.monotonic()
        second = await managed.search(
            "xiangqi", None, ["h3e3"], Limit(nodes=5_000, deadline=asked + 30.0)
        )
        assert second.result.move is not None
        (go,) = [line for line in wire(">") if line.startswith("go ")]
        movetime = int(go.split()[-1])
        assert 29_000 < movetime <= 30_000 and go.startswith("go nodes 5000 movetime"), go
        assert Limit(deadline=asked).go_command(chess.WHITE) == "go movetime 1"  # past it
        assert not Limit(deadline=asked).infinite
    finally:
        await managed.close()
