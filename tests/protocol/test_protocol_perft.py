"""``Engine.perft`` (FSF's ``go perft``), against the real engine and the rules checker,
in UCI and UCCI mode, and against engines that answer it wrong."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from ladder.rules import Game, divide
from ladder.variants import FSF_VARIANT, VARIANTS_INI
from protocol import Engine, EngineArgumentError, Limit, Protocol
from protocol.errors import EngineProtocolError, EngineTimeoutError

pytestmark = pytest.mark.timeout(60)

CASES = [
    ("xiangqi", None, [], 2),
    ("xiangqi", None, ["h3e3", "b10c8"], 2),
    ("crazyhouse-xiangqi", None, ["h3e3"], 1),  # drops
    ("atomic-xiangqi", None, ["h3e3", "h8e8", "b3b10"], 2),  # after a cannon capture
    ("atomic-xiangqi", "9/3ka4/3cb4/9/9/9/3R5/9/9/4K4 w - - 0 1", ["d4d8"], 1),  # game over
]


@pytest.fixture(params=[Protocol.UCI, Protocol.UCCI], ids=["uci", "ucci"])
async def fsf(
    request: pytest.FixtureRequest, fsf_exe: Path, no_leaked_processes: set[int]
) -> AsyncIterator[Engine]:
    engine = await Engine.start(fsf_exe, protocol=request.param)
    no_leaked_processes.add(engine.pid)
    try:
        await engine.load_variants(VARIANTS_INI)
        yield engine
    finally:
        await engine.close()


@pytest.mark.parametrize(("variant", "fen", "moves", "depth"), CASES)
async def test_perft_equals_the_rules_checker_move_by_move(
    fsf: Engine, variant: str, fen: str | None, moves: list[str], depth: int
) -> None:
    game = Game.from_fen(variant, fen, moves)
    await fsf.set_variant(FSF_VARIANT[variant])
    counts = await fsf.perft(fen, moves, depth, timeout=30)
    # canonical moves (ranks 1..10) in UCCI mode too
    assert counts == (divide(game, depth) if game.outcome() is None else {})


async def test_the_engine_searches_after_a_perft(fsf: Engine) -> None:
    await fsf.set_variant(FSF_VARIANT["xiangqi"])
    assert sum((await fsf.perft(None, [], 1, timeout=30)).values()) == 44
    result = await fsf.search(None, ["h3e3"], Limit(nodes=100), new_game=True)
    assert Game.from_fen("xiangqi", moves=["h3e3"]).is_legal(result.move or "")
    await fsf.ping()


@pytest.mark.parametrize("depth", [0, 11, "2", 1.5])
async def test_bad_depth_is_refused_before_anything_is_sent(fsf: Engine, depth: object) -> None:
    with pytest.raises(EngineArgumentError):
        await fsf.perft(None, [], depth, timeout=30)  # type: ignore[arg-type]
    await fsf.ping()


async def test_a_total_that_is_not_the_sum_is_a_fault(
    fake: Callable[..., list[str]], no_leaked_processes: set[int]
) -> None:
    engine = await Engine.start(fake("bad-perft"))
    no_leaked_processes.add(engine.pid)
    with pytest.raises(EngineProtocolError, match="not the sum"):
        await engine.perft(None, [], 1, timeout=30)
    await engine.close()


async def test_an_engine_without_perft_times_out_and_is_killed(
    fake: Callable[..., list[str]], no_leaked_processes: set[int]
) -> None:
    engine = await Engine.start(fake("normal"))  # answers `go perft` with a bestmove
    no_leaked_processes.add(engine.pid)
    with pytest.raises(EngineTimeoutError):
        await engine.perft(None, [], 1, timeout=1.0)
    assert engine.closed
