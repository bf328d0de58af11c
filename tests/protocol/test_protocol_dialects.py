"""UCCI rank dialects and tolerance: how an engine numbers ranks is found out (or given),
banners before the handshake are skipped, unreadable lines that matter stay faults.
Fake engines in each dialect, then the real ones: Sjaak II writes 1..10 in UCCI mode,
Fairy-Stockfish 0..9."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from ladder.rules import Game
from protocol import (
    Dialect,
    Engine,
    EngineArgumentError,
    EngineProtocolError,
    Limit,
    ManagedEngine,
    RankNumbering,
    UciEngine,
)
from tests.protocol.helpers import FakeCommand, WireLog

pytestmark = pytest.mark.timeout(60)


@pytest.mark.parametrize(
    ("ranks", "numbering", "sent"),
    [
        ("0-9", RankNumbering.ZERO_BASED, "h2e2 b9c7"),
        ("1-10", RankNumbering.ONE_BASED, "h3e3 b10c8"),
    ],
)
async def test_ucci_rank_numbering_is_found_out(
    ranks: str,
    numbering: RankNumbering,
    sent: str,
    fake: FakeCommand,
    wire: WireLog,
    no_leaked_processes: set[int],
) -> None:
    engine = await Engine.start(fake("normal", "--ranks", ranks), protocol=Dialect.UCCI)
    no_leaked_processes.add(engine.pid)
    try:
        assert engine.ranks is numbering
        handshake = wire(">")
        probe = handshake.index("go depth 1")
        assert handshake[probe - 1].startswith("position fen ")
        assert handshake[probe + 1] == "ucinewgame"  # the start position back (Sjaak II)
        result = await engine.search(None, ["h3e3", "b10c8"], Limit(nodes=10))
        assert wire(">")[-2:] == [f"position startpos moves {sent}", "go nodes 10"]
        assert (result.move, result.ponder) == ("a1a2", "a10a9")  # canonical either way
        assert result.info["pv"] == ["a1a2", "a10a9"]
    finally:
        await engine.close()


async def test_given_ranks_skip_the_probe_and_a_wrong_one_is_caught(
    fake: FakeCommand,
    wire: WireLog,
    no_leaked_processes: set[int],
) -> None:
    engine = await Engine.start(fake("normal"), protocol=Dialect.UCCI, ranks="0-9")
    no_leaked_processes.add(engine.pid)
    try:
        assert "go depth 1" not in wire(">")
        assert (await engine.search(None, [], Limit(nodes=1))).move == "a1a2"
    finally:
        await engine.close()
    # Told 1-10 while it writes 0-9: its `a0a1` is no square at all, a fault.
    engine = await Engine.start(fake("normal"), protocol=Dialect.UCCI, ranks="1-10")
    no_leaked_processes.add(engine.pid)
    with pytest.raises(EngineProtocolError, match="malformed bestmove"):
        await engine.search(None, [], Limit(nodes=1))
    with pytest.raises(EngineArgumentError, match="ranks must be"):
        await Engine.start(fake("normal"), protocol=Dialect.UCCI, ranks="1-9")


async def test_an_unusable_probe_answer_is_a_fault(
    fake: FakeCommand, no_leaked_processes: set[int]
) -> None:
    with pytest.raises(EngineProtocolError, match="cannot tell how the engine numbers ranks"):
        await Engine.start(fake("bad-bestmove"), protocol=Dialect.UCCI)


@pytest.mark.parametrize("protocol", [Dialect.UCI, Dialect.UCCI], ids=["uci", "ucci"])
async def test_a_banner_is_skipped_and_logged(
    protocol: Dialect,
    fake: FakeCommand,
    caplog: pytest.LogCaptureFixture,
    no_leaked_processes: set[int],
) -> None:
    """A banner in ANSI colours, undecodable bytes and a prompt before the handshake's
    answer, and an unreadable unknown line during a search: skipped, reported at INFO."""
    caplog.set_level(logging.INFO, logger="protocol.engine")
    ranks = "0-9" if protocol is Dialect.UCCI else None  # no probe: the lines are counted
    engine = await Engine.start(fake("banner"), protocol=protocol, ranks=ranks)
    no_leaked_processes.add(engine.pid)
    try:
        assert engine.id["name"] == "FakeEngine"
        result = await engine.search(None, [], Limit(nodes=1))
        assert result.move == "a1a2"
    finally:
        await engine.close()
    said = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert any("skipped 2 unreadable line(s) before its handshake answer" in m for m in said)
    assert any("skipped an unreadable line: '\\x1b[32mthinking done" in m for m in said)


async def test_sjaak_ii_numbers_ranks_from_1_in_ucci(
    sjaakii: Path, no_leaked_processes: set[int]
) -> None:
    """Debian's Sjaak II: an ANSI board banner before `ucciok`, ranks 1..10 in UCCI mode
    (found out, not assumed), moves checked by the rules checker in both its modes."""
    for protocol, numbering in (
        (Dialect.UCCI, RankNumbering.ONE_BASED),
        (Dialect.UCI, RankNumbering.ONE_BASED),
    ):
        managed = ManagedEngine(
            sjaakii, protocol=protocol, options={"Threads": 1}, variant_path_optional=True
        )
        try:
            game = Game.from_fen("xiangqi")
            for ply in range(6):
                # from `startpos`: Sjaak II reads xiangqi FENs with h/e, not n/b
                outcome = await managed.search(
                    "xiangqi",
                    None,
                    game.moves,
                    Limit(depth=3),
                    new_game=ply == 0,
                    validate_move=game.is_legal,
                )
                assert outcome.result.move is not None and not outcome.incidents
                game.push(outcome.result.move)
            assert managed.engine is not None and managed.engine.ranks is numbering
            no_leaked_processes.add(outcome.pid)
        finally:
            await managed.close()


@pytest.mark.parametrize("which", ["ours", "debian"])
async def test_fairy_stockfish_numbers_ranks_from_0_in_ucci(
    which: str, fsf_exe: Path, debian_fairy_stockfish: Path, no_leaked_processes: set[int]
) -> None:
    exe = fsf_exe if which == "ours" else debian_fairy_stockfish
    engine = await Engine.start(exe, protocol=Dialect.UCCI)
    no_leaked_processes.add(engine.pid)
    try:
        assert engine.ranks is RankNumbering.ZERO_BASED
        assert isinstance(engine, UciEngine)
        assert engine.position_command(None, ["h3e3"]) == "position startpos moves h2e2"
        game = Game.from_fen("xiangqi", moves=["h3e3"])
        result = await engine.search(None, ["h3e3"], Limit(depth=4), validate_move=game.is_legal)
        assert result.move is not None
    finally:
        await engine.close()
