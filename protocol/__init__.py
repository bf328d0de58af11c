"""Talking to engines: async UCI, UCCI and XBoard/CECP clients and the process manager.

    from protocol import Dialect, Engine, Limit

    async with await Engine.start(".cache/fairy-stockfish", protocol=Dialect.UCCI) as engine:
        await engine.load_variants("/abs/variants.ini")
        await engine.set_variant("mistboard-xiangqi")
        result = await engine.search(None, ["h3e3"], Limit(nodes=10_000), new_game=True)
        result.move, result.info["score"]       # canonical notation, chess.engine.PovScore

See docs/protocol.md. Modules: :mod:`protocol.engine` (the shared core,
:class:`Engine`), :mod:`protocol.uci` (:class:`UciEngine`, :class:`UcciEngine`),
:mod:`protocol.xboard` (:class:`XBoardEngine`), :mod:`protocol.managed` (the supervised
wrapper), :mod:`protocol.retry` (the one retry policy), :mod:`protocol.process` (the
engine process; :func:`~protocol.process.die_with_parent` for worker processes),
:mod:`protocol.lines` (the line reader), :mod:`protocol.guard` (deadlines and faults),
:mod:`protocol.limits`, :mod:`protocol.info`, :mod:`protocol.options`,
:mod:`protocol.notation`, :mod:`protocol.errors` (every error, and the :class:`Incident`
a supervised engine reports).
"""

from protocol.engine import Dialect, Engine, EngineVariant
from protocol.errors import (
    EngineArgumentError,
    EngineError,
    EngineFailure,
    EngineFault,
    EngineProtocolError,
    EngineStartError,
    EngineTerminatedError,
    EngineTimeoutError,
    Incident,
    OptionError,
    UnsafeArgumentError,
    VariantError,
)
from protocol.guard import FaultGuard
from protocol.info import InfoDict, PlayResult
from protocol.limits import Limit
from protocol.lines import LineReader
from protocol.managed import ManagedEngine, SearchOutcome
from protocol.notation import FenLetters, RankNumbering
from protocol.options import Option, OptionMap
from protocol.process import Backoff, EngineProcess, ProcessStats, Timeouts
from protocol.retry import RetryDeadlineExceeded, RetryPolicy
from protocol.uci import UcciEngine, UciEngine
from protocol.xboard import XBoardEngine

__all__ = [
    "Backoff",
    "Dialect",
    "Engine",
    "EngineArgumentError",
    "EngineError",
    "EngineFailure",
    "EngineFault",
    "EngineProcess",
    "EngineProtocolError",
    "EngineStartError",
    "EngineTerminatedError",
    "EngineTimeoutError",
    "EngineVariant",
    "FaultGuard",
    "FenLetters",
    "Incident",
    "InfoDict",
    "Limit",
    "LineReader",
    "ManagedEngine",
    "Option",
    "OptionError",
    "OptionMap",
    "PlayResult",
    "ProcessStats",
    "RankNumbering",
    "RetryDeadlineExceeded",
    "RetryPolicy",
    "SearchOutcome",
    "Timeouts",
    "UcciEngine",
    "UciEngine",
    "UnsafeArgumentError",
    "VariantError",
    "XBoardEngine",
]
