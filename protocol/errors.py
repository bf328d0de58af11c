"""Typed errors of the protocol layer.

Two families, and the difference matters to a supervisor:

* **The caller's fault** (:class:`EngineArgumentError`, :class:`OptionError`): the
  request was refused *before* anything reached the engine, or the engine turned a
  setting down. The engine process is healthy and stays up.
* **The engine's fault** (:class:`EngineTerminatedError`, :class:`EngineTimeoutError`,
  :class:`EngineProtocolError`, :class:`EngineStartError`): the engine died, hung, or
  said something we cannot trust. By the time one of these is raised the whole process
  tree has already been killed and reaped; the client object is closed. A supervisor
  (:class:`protocol.managed.ManagedEngine`) restarts it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Literal, get_args

#: What went wrong with an engine, in one vocabulary for every layer, its logs and its
#: metrics: the process died (``crash``), hung (``timeout``), said something we cannot
#: trust (``protocol``, an illegal bestmove too), did not start (``start-failed``), grew
#: past its memory bound (``memory``) or died between searches (``died-idle``); and
#: the level's judgement of an answer, ``none`` (``bestmove (none)`` with legal moves
#: left). ``illegal`` is a label the metrics keep; an illegal bestmove is ``protocol``.
IncidentKind = Literal[
    "crash", "timeout", "protocol", "start-failed", "memory", "died-idle", "none", "illegal"
]
#: Every :data:`IncidentKind`, in order (the metrics' labels).
INCIDENT_KINDS: tuple[IncidentKind, ...] = get_args(IncidentKind)


@dataclass(frozen=True, slots=True)
class Incident:
    """One thing that went wrong with the engine, and what was done about it."""

    kind: IncidentKind
    phase: str
    """What the client was doing (``handshake``, ``search``, ``stop``, …)."""
    message: str
    pid: int | None
    """The process that failed (already killed and reaped)."""
    at: float = field(default_factory=time.time)
    """Unix time of the incident."""
    restart_delay: float = 0.0
    """The backoff slept before the next start."""
    error: BaseException | None = None


class EngineError(Exception):
    """Base class of every error raised by :mod:`protocol`."""


class EngineArgumentError(EngineError, ValueError):
    """An argument (FEN, move, option, variant, limit) was refused before sending."""


class UnsafeArgumentError(EngineArgumentError):
    """An argument contained a newline or another control character.

    UCI and UCCI are line protocols: a ``\\n`` inside a FEN or an option value would
    start a second command of the caller's choosing. Nothing is sent.
    """


class OptionError(EngineArgumentError):
    """Unknown option, or a value outside the option's advertised domain.

    Fairy-Stockfish drops invalid values silently (and *crashes* on a non-numeric value
    for a ``spin`` option), so the client validates against the option description the
    engine advertised during the handshake and raises this instead of sending.
    """


class VariantError(OptionError):
    """The engine did not confirm the requested variant (unknown section, bad file)."""


class EngineFault(EngineError):
    """The engine misbehaved; its process tree has been killed and reaped.

    ``phase`` names what the client was doing: ``startup``, ``handshake``, ``isready``
    (XBoard: ``ping``), ``configure``, ``search``, ``stop``, ``quit``. ``stderr`` is the
    tail of what the engine wrote to its standard error, when captured.
    """

    def __init__(self, message: str, *, phase: str, stderr: str = "") -> None:
        super().__init__(message)
        self.phase = phase
        self.stderr = stderr


class EngineStartError(EngineFault):
    """The executable could not be started (missing, not executable, exec failed)."""


class EngineTerminatedError(EngineFault):
    """The engine closed its output or exited while the client was waiting for it."""

    def __init__(
        self, message: str, *, phase: str, returncode: int | None = None, stderr: str = ""
    ) -> None:
        super().__init__(message, phase=phase, stderr=stderr)
        self.returncode = returncode


class EngineTimeoutError(EngineFault, TimeoutError):
    """A phase deadline passed (no ``uciok``, ``readyok``, ``bestmove``, or exit)."""

    def __init__(self, message: str, *, phase: str, timeout: float, stderr: str = "") -> None:
        super().__init__(message, phase=phase, stderr=stderr)
        self.timeout = timeout


class EngineProtocolError(EngineFault):
    """The engine wrote something unusable: undecodable bytes or control characters in a
    line that matters, an over-long line, a flood of unknown lines, a malformed ``info``
    value, a malformed or illegal move, or a refusal of a move we sent."""


class EngineFailure(EngineError):
    """:class:`~protocol.managed.ManagedEngine` gave up on a search after its retries.

    ``incidents`` lists every fault and restart that happened during the call.
    """

    def __init__(self, message: str, incidents: list[Incident], reason: str | None = None) -> None:
        super().__init__(message)
        self.incidents = incidents
        #: The last fault, in a sentence (the message without "engine failed N time(s)").
        self.reason = reason if reason is not None else message


def incident_kind(exc: BaseException) -> IncidentKind:
    """The incident an engine fault is (:data:`IncidentKind`)."""
    if isinstance(exc, EngineTimeoutError):
        return "timeout"
    if isinstance(exc, EngineProtocolError):
        return "protocol"
    return "crash"
