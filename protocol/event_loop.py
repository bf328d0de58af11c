"""The event loop the engine client runs on: uvloop's.

Every process that talks to engines makes its loop here: the match workers, the
service (uvicorn's ``loop=`` names :func:`new_event_loop`), the bridge and the
commands that search. uvloop (libuv under asyncio's API) takes each turn of the loop
in C: an engine's search is a write, one or two reads and the turns that wake the
searching task, and at 200 nodes a match move's Python CPU fell by about 15 % with
it (docs/match.md). The whole protocol suite runs on both loops (tests/protocol), so
the client keeps working on asyncio's own loop too, e.g. inside someone else's
application.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

import uvloop

__all__ = ["new_event_loop", "run"]

T = TypeVar("T")


def new_event_loop() -> asyncio.AbstractEventLoop:
    """A new event loop of the kind the engine client runs on."""
    return uvloop.new_event_loop()


def run(main: Coroutine[Any, Any, T]) -> T:
    """:func:`asyncio.run` on :func:`new_event_loop`."""
    with asyncio.Runner(loop_factory=new_event_loop) as runner:
        return runner.run(main)
