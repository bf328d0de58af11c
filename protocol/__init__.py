"""Talking to engines: async UCI and UCCI clients and the process manager.

    from protocol import Dialect, Engine, Limit

    async with await Engine.start(".cache/fairy-stockfish", protocol=Dialect.UCCI) as engine:
        await engine.load_variants("/abs/variants.ini")
        await engine.set_variant("mistboard-xiangqi")
        result = await engine.search(None, ["h3e3"], Limit(nodes=10_000), new_game=True)
        result.move, result.info["score"]       # canonical notation, chess.engine.PovScore

See docs/protocol.md. Modules: :mod:`protocol.engine` (the client),
:mod:`protocol.managed` (the supervised wrapper), :mod:`protocol.process` (process
manager), :mod:`protocol.limits`, :mod:`protocol.info`, :mod:`protocol.options`,
:mod:`protocol.notation`, :mod:`protocol.errors`.
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
    OptionError,
    UnsafeArgumentError,
    VariantError,
)
from protocol.info import InfoDict, PlayResult
from protocol.limits import Limit
from protocol.managed import Incident, ManagedEngine, SearchOutcome
from protocol.options import Option, OptionMap
from protocol.process import Backoff, EngineProcess, ProcessStats, Timeouts

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
    "Incident",
    "InfoDict",
    "Limit",
    "ManagedEngine",
    "Option",
    "OptionError",
    "OptionMap",
    "PlayResult",
    "ProcessStats",
    "SearchOutcome",
    "Timeouts",
    "UnsafeArgumentError",
    "VariantError",
]
