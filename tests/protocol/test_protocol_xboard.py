"""The XBoard/CECP client: feature negotiation, options, the board kept in step with the
fewest commands, limits, thinking output, the engine's answers (move, resignation,
claims, draw offers) and faults, against the fake engine in XBoard mode (a real
process), Debian's ``maxqi`` and Sjaak II."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import psutil
import pytest
from chess.engine import Cp, Mate

from ladder.rules import Game
from protocol import (
    Backoff,
    Dialect,
    Engine,
    EngineArgumentError,
    EngineProtocolError,
    EngineTerminatedError,
    EngineTimeoutError,
    InfoDict,
    Limit,
    ManagedEngine,
    OptionError,
    Timeouts,
    VariantError,
    XBoardEngine,
)
from protocol.errors import EngineFault
from protocol.retry import RetryPolicy
from tests.protocol.helpers import FakeCommand, WireLog, fast_timeouts

pytestmark = pytest.mark.timeout(60)

# These tests also drive Debian's maxqi: longer deadlines than the fault matrix's.
FAST = fast_timeouts(handshake=5.0, isready=2.0, quit=1.0, search_margin=1.0, unbounded_search=2.0)


async def start(command: list[str], timeouts: Timeouts = FAST) -> XBoardEngine:
    engine = await Engine.start(command, protocol=Dialect.XBOARD, timeouts=timeouts)
    assert isinstance(engine, XBoardEngine)
    return engine


@contextlib.asynccontextmanager
async def running(command: list[str], pids: set[int]) -> AsyncIterator[XBoardEngine]:
    """An XBoard engine for the length of a block (its pid for the leak check)."""
    engine = await start(command)
    pids.add(engine.pid)
    try:
        yield engine
    finally:
        await engine.close()


async def test_features_options_and_variants(
    fake: FakeCommand,
    wire: WireLog,
    no_leaked_processes: set[int],
) -> None:
    async with running(fake("normal"), no_leaked_processes) as engine:
        sent = wire(">")
        assert sent[:2] == ["xboard", "protover 2"]
        assert "rejected san" in sent and "rejected frobnicate" in sent  # unknown: rejected
        assert "accepted ping" in sent and "accepted option" in sent and "accepted done" in sent
        assert engine.id["name"] == "FakeBoard 1.0" and engine.features["nps"] == 1
        style = engine.options["Style"]
        assert (style.type, style.default, style.var) == (
            "combo",
            "Normal",
            ("Solid", "Normal", "Risky"),
        )
        assert (
            engine.options["Book"].default is True and engine.options["Clear Hash"].type == "button"
        )
        await engine.configure({"Hash": 32, "Threads": 2, "Style": "risky", "Book": False})
        await engine.set_option("Clear Hash")
        with pytest.raises(OptionError):
            await engine.configure({"Style": "Wild"})
        assert wire(">") == [
            "memory 32",
            "cores 2",
            "option Style=Risky",
            "option Book=0",
            "option Clear Hash",
        ]
        await engine.set_variant("xiangqi")
        with pytest.raises(VariantError):
            await engine.set_variant("shogi")
        await engine.ping()
        assert wire(">")[-1].startswith("ping ")


async def test_the_board_is_kept_in_step_with_few_commands(
    fake: FakeCommand,
    wire: WireLog,
    no_leaked_processes: set[int],
) -> None:
    async with running(fake("normal"), no_leaked_processes) as engine:
        await engine.set_variant("xiangqi")
        wire(">")
        first = await engine.search(None, ["h3e3"], Limit(depth=3), new_game=True)
        assert first.move == "h10g8"  # the fake's h9g7, in canonical ranks
        assert wire(">") == [
            "new",
            "variant xiangqi",
            "force",
            "usermove h2e2",
            "sd 3",
            "post",
            "easy",
            "go",
            "force",
            "ping 1",
        ]
        # The game goes on: only the new move is sent (the engine has its own).
        await engine.search(None, ["h3e3", "h10g8", "b1c3"], Limit(depth=3))
        assert wire(">")[:4] == ["force", "usermove b0c2", "post", "easy"]  # plays b9c7
        # A take-back: undo to the common part, then the new moves.
        await engine.search(None, ["h3e3", "h10g8", "h1g3"], Limit(depth=3))
        assert wire(">")[:5] == ["force", "undo", "undo", "usermove h0g2", "post"]
        # Another position: a new game, with setboard.
        fen = "4k4/R8/9/9/9/9/9/9/9/1R1K5 w - - 0 1"
        await engine.search(fen, [], Limit(depth=3))
        assert wire(">")[:5] == ["new", "variant xiangqi", "force", f"setboard {fen}", "sd 3"]
        # Dropping the depth needs `new` (nothing else undoes `sd`).
        await engine.search(fen, [], Limit(time=1.5))
        assert wire(">")[:5] == ["new", "variant xiangqi", "force", f"setboard {fen}", "st 2"]
        # XBoard's xiangqi letters: H for the horse, E for the elephant.
        standard = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
        await engine.search(standard, [], Limit(time=1.5))
        assert wire(">")[3] == (
            "setboard rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR w - - 0 1"
        )
        with pytest.raises(EngineArgumentError):
            await engine.search(fen, ["b1b10\nquit"], Limit(depth=1))
        with pytest.raises(EngineArgumentError):
            await engine.search("4k4/R8 w\x00", [], Limit(depth=1))
        assert wire(">") == []  # nothing was sent for the refused searches


async def test_limits_and_clocks(
    fake: FakeCommand,
    wire: WireLog,
    no_leaked_processes: set[int],
) -> None:
    async with running(fake("normal"), no_leaked_processes) as engine:
        await engine.search(None, [], Limit(nodes=5000), new_game=True)
        assert "nps 1" in (sent := wire(">")) and "st 5000" in sent
        with pytest.raises(EngineArgumentError, match="nodes and time"):
            await engine.search(None, [], Limit(nodes=5000, time=1.0))
        clock = Limit(white_clock=95.5, black_clock=80.0, white_inc=2, remaining_moves=30)
        await engine.search(None, [], clock)
        sent = wire(">")
        assert "level 30 1:36 2" in sent  # the mover's clock as the base
        assert "time 9550" in sent and "otim 8000" in sent  # centiseconds, the mover first
        await engine.search(None, [], clock)
        assert not any(line.startswith("level") for line in wire(">"))  # sent when it changes
    async with running(fake("normal", "--features", "ping=1 done=1"), no_leaked_processes) as plain:
        with pytest.raises(EngineArgumentError, match="no node limit"):
            await plain.search(None, [], Limit(nodes=100))
        with pytest.raises(EngineArgumentError, match="setboard"):
            await plain.search("4k4/R8/9/9/9/9/9/9/9/1R1K5 w - - 0 1", [], Limit(depth=1))
        with pytest.raises(OptionError):
            await plain.configure({"Hash": 16})  # no memory feature
        await plain.configure({"Threads": 1})  # accepted, and nothing sent
        with pytest.raises(OptionError):
            await plain.configure({"Threads": 2})


async def test_thinking_output_becomes_info(
    fake: FakeCommand, no_leaked_processes: set[int]
) -> None:
    seen: list[InfoDict] = []
    async with running(fake("normal"), no_leaked_processes) as engine:
        result = await engine.search(None, [], Limit(depth=2), on_info=seen.append)
    assert result.move == "h3e3"
    assert seen[0]["score"].relative == Cp(12) and seen[0]["pv"] == ["h3e3"]
    # " 2\t-100003 1 120 7 2 h2e2 a9a8?": mated in 3, tbhits 2, seldepth 7, a fail low
    last = result.info
    assert last["score"].relative == Mate(-3) and last["time"] == 0.01
    assert (last["depth"], last["nodes"], last["seldepth"], last["tbhits"]) == (2, 120, 7, 2)
    assert last["pv"] == ["h3e3", "a10a9"] and last["upperbound"]


@pytest.mark.parametrize(
    ("mode", "move", "resigned", "claim", "draw"),
    [
        ("resign", None, True, None, False),
        ("claim", "h3e3", False, "1-0 {White mates}", False),
        ("claim-only", None, False, "0-1 {Black mates}", False),
        ("draw-offer", "h3e3", False, None, True),
    ],
)
async def test_resignations_claims_and_draw_offers(
    mode: str,
    move: str | None,
    resigned: bool,
    claim: str | None,
    draw: bool,
    fake: FakeCommand,
    no_leaked_processes: set[int],
) -> None:
    async with running(fake(mode), no_leaked_processes) as engine:
        result = await engine.search(None, [], Limit(depth=1))
        assert (result.move, result.resigned, result.claim) == (move, resigned, claim)
        assert result.draw_offered is draw
        await engine.ping()  # in step after the answer


# mode -> (error type, phase): each fault is met by a start and a search
MATRIX: dict[str, tuple[type[EngineFault], str]] = {
    "crash-at-start": (EngineTerminatedError, "handshake"),
    "crash-mid-search": (EngineTerminatedError, "search"),
    "hang-search": (EngineTimeoutError, "search"),
    "illegal": (EngineProtocolError, "search"),
    "garbage-move": (EngineProtocolError, "search"),
    "bad-move": (EngineProtocolError, "search"),
}


@pytest.mark.parametrize("mode", sorted(MATRIX))
async def test_fault_matrix(mode: str, fake: FakeCommand, no_leaked_processes: set[int]) -> None:
    error, phase = MATRIX[mode]
    engine = None
    with pytest.raises(error) as caught:
        try:
            engine = await start(fake(mode, "--child"))
        finally:
            if engine is not None:
                no_leaked_processes.add(engine.pid)
        await engine.search(None, ["h3e3"], Limit(depth=1))
    assert caught.value.phase == phase
    if engine is not None:
        assert engine.closed and not psutil.pid_exists(engine.pid)


async def test_an_illegal_move_of_the_engine_is_a_fault(
    fake: FakeCommand, no_leaked_processes: set[int]
) -> None:
    engine = await start(fake("normal"))
    no_leaked_processes.add(engine.pid)
    with pytest.raises(EngineProtocolError, match="illegal move"):
        await engine.search(None, [], Limit(depth=1), validate_move=lambda move: False)
    assert engine.closed


async def test_a_banner_and_a_late_done_are_fine_and_protocol_1_is_waited_for(
    fake: FakeCommand, no_leaked_processes: set[int]
) -> None:
    async with running(fake("banner"), no_leaked_processes) as engine:
        assert engine.features["done"] == 1
        assert (await engine.search(None, [], Limit(depth=1))).move == "h3e3"
    # No features: 2 s of waiting, as XBoard waits.
    async with running(fake("protover1"), no_leaked_processes) as old:
        assert old.features == {}
        await old.ping()  # no ping feature: nothing to wait for
        assert (await old.search(None, [], Limit(depth=1))).move == "h3e3"


async def test_managed_xboard_engine_restarts_after_a_crash(
    fake: FakeCommand, tmp_path: Path, no_leaked_processes: set[int]
) -> None:
    async with ManagedEngine(
        fake("crash-mid-search", "--child", "--once", str(tmp_path / "crashed")),
        protocol=Dialect.XBOARD,
        options={"Threads": 1},
        timeouts=FAST,
        backoff=Backoff(base=0.01, cap=0.05),
    ) as managed:
        outcome, earlier = await RetryPolicy().run(
            lambda: managed.search("xiangqi", None, ["h3e3"], Limit(depth=1))
        )
        assert outcome.result.move == "h10g8"
        assert [i.kind for i in earlier] == ["crash"] and not outcome.incidents
        no_leaked_processes.add(outcome.pid)


async def test_maxqi_plays_a_checked_game(maxqi: Path, no_leaked_processes: set[int]) -> None:
    """Debian's maxqi: no setboard, no usermove, no nps; ranks 0..9; its moves pass the
    rules checker, over a game given from the start position."""
    async with running([str(maxqi)], no_leaked_processes) as engine:
        assert engine.id["name"].startswith("MaxQi") and engine.features["setboard"] == 0
        await engine.configure({"Threads": 1, "Hash": 16})
        await engine.set_variant("xiangqi")
        game = Game.from_fen("xiangqi")
        for ply in range(8):
            result = await engine.search(
                None, game.moves, Limit(depth=3), new_game=ply == 0, validate_move=game.is_legal
            )
            assert result.move is not None and result.info["depth"] >= 1
            game.push(result.move)
        with pytest.raises(EngineArgumentError, match="setboard"):
            await engine.search(game.fen(), [], Limit(depth=1))
        await stop_a_long_search(engine, game)


async def stop_a_long_search(engine: XBoardEngine, game: Game) -> None:
    """`?` (stop) ends a long search once it is thinking, with a legal move."""
    thinking = asyncio.Event()
    search = asyncio.create_task(
        engine.search(None, game.moves, Limit(time=600), on_info=lambda _: thinking.set())
    )
    await thinking.wait()
    await engine.stop()
    stopped = await search
    assert stopped.move is not None and game.is_legal(stopped.move)


async def test_sjaak_ii_in_xboard_mode(sjaakii: Path, no_leaked_processes: set[int]) -> None:
    """Debian's Sjaak II speaks XBoard too: its ANSI board before the features is
    skipped, setboard takes XBoard's H/E letters, its moves pass the rules checker."""
    async with running([str(sjaakii)], no_leaked_processes) as engine:
        assert engine.features["setboard"] == 1 and engine.id["name"].startswith("Sjaak II")
        await engine.configure({"Threads": 1})
        await engine.set_variant("xiangqi")
        game = Game.from_fen("xiangqi")
        for ply in range(4):
            result = await engine.search(
                None, game.moves, Limit(depth=3), new_game=ply == 0, validate_move=game.is_legal
            )
            assert result.move is not None and "score" in result.info
            game.push(result.move)
        result = await engine.search(game.fen(), [], Limit(depth=3), validate_move=game.is_legal)
        assert result.move is not None
        await stop_a_long_search(engine, game)
