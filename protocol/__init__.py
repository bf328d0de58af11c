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

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from protocol.engine import Dialect as Dialect
    from protocol.engine import Engine as Engine
    from protocol.engine import EngineVariant as EngineVariant
    from protocol.errors import EngineArgumentError as EngineArgumentError
    from protocol.errors import EngineError as EngineError
    from protocol.errors import EngineFailure as EngineFailure
    from protocol.errors import EngineFault as EngineFault
    from protocol.errors import EngineProtocolError as EngineProtocolError
    from protocol.errors import EngineStartError as EngineStartError
    from protocol.errors import EngineTerminatedError as EngineTerminatedError
    from protocol.errors import EngineTimeoutError as EngineTimeoutError
    from protocol.errors import Incident as Incident
    from protocol.errors import OptionError as OptionError
    from protocol.errors import UnsafeArgumentError as UnsafeArgumentError
    from protocol.errors import VariantError as VariantError
    from protocol.guard import FaultGuard as FaultGuard
    from protocol.info import InfoDict as InfoDict
    from protocol.info import PlayResult as PlayResult
    from protocol.limits import Limit as Limit
    from protocol.lines import LineReader as LineReader
    from protocol.managed import ManagedEngine as ManagedEngine
    from protocol.managed import SearchOutcome as SearchOutcome
    from protocol.notation import FenLetters as FenLetters
    from protocol.notation import RankNumbering as RankNumbering
    from protocol.options import Option as Option
    from protocol.options import OptionMap as OptionMap
    from protocol.process import Backoff as Backoff
    from protocol.process import EngineProcess as EngineProcess
    from protocol.process import ProcessStats as ProcessStats
    from protocol.process import Timeouts as Timeouts
    from protocol.retry import RetryDeadlineExceeded as RetryDeadlineExceeded
    from protocol.retry import RetryPolicy as RetryPolicy
    from protocol.uci import UcciEngine as UcciEngine
    from protocol.uci import UciEngine as UciEngine
    from protocol.xboard import XBoardEngine as XBoardEngine

#: Where each name above lives (they are imported for type checkers only): imported when
#: first asked for (PEP 562), so that
#: importing one submodule (``protocol.notation`` for the rules checker and ``ladder
#: move``) does not import them all, python-chess among them.
_MODULES: dict[str, str] = {
    "Backoff": "protocol.process",
    "Dialect": "protocol.engine",
    "Engine": "protocol.engine",
    "EngineArgumentError": "protocol.errors",
    "EngineError": "protocol.errors",
    "EngineFailure": "protocol.errors",
    "EngineFault": "protocol.errors",
    "EngineProcess": "protocol.process",
    "EngineProtocolError": "protocol.errors",
    "EngineStartError": "protocol.errors",
    "EngineTerminatedError": "protocol.errors",
    "EngineTimeoutError": "protocol.errors",
    "EngineVariant": "protocol.engine",
    "FaultGuard": "protocol.guard",
    "FenLetters": "protocol.notation",
    "Incident": "protocol.errors",
    "InfoDict": "protocol.info",
    "Limit": "protocol.limits",
    "LineReader": "protocol.lines",
    "ManagedEngine": "protocol.managed",
    "Option": "protocol.options",
    "OptionError": "protocol.errors",
    "OptionMap": "protocol.options",
    "PlayResult": "protocol.info",
    "ProcessStats": "protocol.process",
    "RankNumbering": "protocol.notation",
    "RetryDeadlineExceeded": "protocol.retry",
    "RetryPolicy": "protocol.retry",
    "SearchOutcome": "protocol.managed",
    "Timeouts": "protocol.process",
    "UcciEngine": "protocol.uci",
    "UciEngine": "protocol.uci",
    "UnsafeArgumentError": "protocol.errors",
    "VariantError": "protocol.errors",
    "XBoardEngine": "protocol.xboard",
}

__all__ = list(_MODULES)


def __getattr__(name: str) -> object:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module 'protocol' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # once: the next access is a plain lookup
    return value
