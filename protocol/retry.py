"""How often an engine operation is tried, and for how long in all: :class:`RetryPolicy`.

The one retry rule of every door (the move service, ``ladder move``, a match, the bridge,
an analysis): an attempt that fails with :class:`~protocol.errors.EngineFailure` has had
its engine killed (a :class:`~protocol.managed.ManagedEngine` call is one attempt, and a
fault kills the process), so the next attempt runs on a fresh engine: the same managed
engine restarted, or whichever engine of a pool is free::

    policy = RetryPolicy(attempts=2, deadline=30.0)
    outcome, earlier = await policy.run(
        lambda: managed.search("xiangqi", None, [], Limit(nodes=10_000))
    )

``earlier`` is the incidents of the attempts that failed before the one that answered
(the answer's own are in it). After the last attempt
:class:`~protocol.errors.EngineFailure` is raised, its message counting the attempts
(``engine failed 2 time(s): …``) and carrying every attempt's incidents; past the
deadline, :class:`RetryDeadlineExceeded`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from protocol.errors import EngineFailure, Incident

__all__ = ["ATTEMPTS", "RetryDeadlineExceeded", "RetryPolicy"]

T = TypeVar("T")

#: How often an operation is tried by default: once, and once more on a fresh engine.
ATTEMPTS = 2


class RetryDeadlineExceeded(EngineFailure):
    """The policy's deadline passed before an attempt answered."""

    def __init__(self, deadline: float, failures: list[EngineFailure]) -> None:
        reasons = "; ".join(f.reason for f in failures)
        super().__init__(
            f"no engine answer within {deadline:.1f} s" + (f": {reasons}" if reasons else ""),
            [i for f in failures for i in f.incidents],
        )
        self.deadline = deadline
        #: The attempts that failed before the deadline, oldest first.
        self.failures = failures


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """At most ``attempts`` attempts, all within ``deadline`` seconds (None: each
    attempt is bounded by its own timeouts only)."""

    attempts: int = ATTEMPTS
    deadline: float | None = None

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError(f"attempts must be at least 1, not {self.attempts}")
        if self.deadline is not None and self.deadline <= 0:
            raise ValueError(f"the deadline must be positive, not {self.deadline}")

    async def run(
        self, attempt: Callable[[], Awaitable[T]], *, since: float | None = None
    ) -> tuple[T, list[Incident]]:
        """``attempt()`` until one gives a value (see the module docstring): the value
        and the incidents of the attempts that failed before it. The deadline counts
        from ``since`` (the event loop's time, default now)."""
        failures: list[EngineFailure] = []
        timeout = None  # no deadline: each attempt's own timeouts bound it, no timer
        if self.deadline is not None:
            loop = asyncio.get_running_loop()
            timeout = asyncio.timeout_at((loop.time() if since is None else since) + self.deadline)
        try:
            async with timeout or contextlib.nullcontext():
                for _ in range(self.attempts):
                    try:
                        return await attempt(), [i for f in failures for i in f.incidents]
                    except EngineFailure as exc:
                        failures.append(exc)
        except TimeoutError:
            if timeout is None or not timeout.expired():
                raise
            assert self.deadline is not None
            raise RetryDeadlineExceeded(self.deadline, failures) from None
        last = failures[-1]
        raise EngineFailure(
            f"engine failed {len(failures)} time(s): {last.reason}",
            [i for f in failures for i in f.incidents],
            last.reason,
        ) from last
