"""Against engines we did not build: Debian's stockfish (chess, UCI) and Debian's
fairy-stockfish 11.1 (xiangqi, UCI and UCCI). Missing engines fail, they do not skip."""

from __future__ import annotations

from pathlib import Path

import chess
import pytest
from chess.engine import Mate

from protocol import Dialect, Engine, Limit, ManagedEngine, OptionError

pytestmark = pytest.mark.timeout(60)


async def test_debian_stockfish_chess(
    debian_stockfish: Path, no_leaked_processes: set[int]
) -> None:
    async with await Engine.start(debian_stockfish) as engine:
        no_leaked_processes.add(engine.pid)
        assert engine.id["name"].startswith("Stockfish")
        assert "UCI_Variant" not in engine.options
        await engine.configure({"Threads": 1, "Hash": 16, "UCI_ShowWDL": True})
        with pytest.raises(OptionError):
            await engine.set_option("Hash", 10**9)
        runs = [
            await engine.search(None, ["e2e4", "e7e5"], Limit(nodes=5000), new_game=True)
            for _ in range(2)
        ]
        assert runs[0].move == runs[1].move and runs[0].info["nodes"] == runs[1].info["nodes"]
        assert runs[0].info["score"].turn == chess.WHITE and "wdl" in runs[0].info
        board = chess.Board()
        board.push_uci("e2e4")
        board.push_uci("e7e5")
        assert runs[0].move is not None
        assert chess.Move.from_uci(runs[0].move) in board.legal_moves
        # Scholar's mate: White to move mates in one; then Black is mated.
        fen = "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 0 1"
        mate = await engine.search(fen, [], Limit(depth=6))
        assert mate.move == "f3f7" and mate.info["score"].relative == Mate(1)
        lost = await engine.search(fen, ["f3f7"], Limit(depth=3))
        assert lost.move is None
        clock = await engine.search(None, [], Limit(white_clock=1.0, black_clock=1.0))
        assert clock.move is not None


@pytest.mark.parametrize("protocol", [Dialect.UCI, Dialect.UCCI], ids=["uci", "ucci"])
async def test_debian_fairy_stockfish_xiangqi(
    debian_fairy_stockfish: Path, protocol: Dialect, no_leaked_processes: set[int]
) -> None:
    """FSF 11.1 keeps `Hash` in UCCI mode and writes `score cp N` there: both handled."""
    managed = ManagedEngine(debian_fairy_stockfish, protocol=protocol, options={"Threads": 1})
    try:
        mate = await managed.search(
            "xiangqi", "4k4/R8/9/9/9/9/9/9/9/1R1K5 w - - 0 1", [], Limit(depth=4)
        )
        assert mate.result.move == "b1b10" and mate.result.info["score"].relative == Mate(1)
        outcome = await managed.search("xiangqi", None, ["h3e3", "h10g8"], Limit(nodes=3000))
        assert outcome.result.move is not None and not outcome.incidents
        assert managed.engine is not None
        assert managed.engine.options["Hash"].name == "Hash"
        no_leaked_processes.add(outcome.pid)
    finally:
        await managed.close()
