"""Helpers of the protocol tests: the types of the conftest's engine fixtures."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TypeAlias

from protocol import Timeouts

#: The ``fake`` fixture: ``fake(mode, *args)``, the argv of the fault-injection engine.
FakeCommand: TypeAlias = Callable[..., list[str]]
#: The ``wire`` fixture: ``wire(">")``, the lines sent to engines since the last call;
#: ``wire("<")``, the lines received.
WireLog: TypeAlias = Callable[[str], list[str]]

#: Deadlines short enough that a fault (a hang, a silent engine) fails its phase in about
#: a second instead of the defaults' ten: what the fault-injection engine needs.
_FAST_TIMEOUTS = Timeouts(
    startup=5,
    handshake=1.0,
    isready=1.0,
    stop=0.5,
    quit=0.5,
    search_margin=0.5,
    worst_case_nps=1_000_000,
    unbounded_search=1.0,
)


def fast_timeouts(**slower: float) -> Timeouts:
    """The protocol tests' short deadlines, with the phases named in ``slower`` given more
    time (a real engine's handshake, say)."""
    return dataclasses.replace(_FAST_TIMEOUTS, **slower)
