"""The event loops the engine client runs on: one place decides which.

* :func:`new_event_loop`, the loop of the processes that host engines for long: the
  match workers and the service (uvicorn's ``loop=`` names it). It is uvloop's, which
  takes each turn of the loop in C: an engine's search is a write, one or two reads and
  the turns that wake the searching task, and at 200 nodes a match move's Python CPU
  fell by about 15 % with it (docs/match.md). Neither takes SIGINT through a Python
  handler that raises (the service stops through ``add_signal_handler``; a worker is
  stopped by its driver).
* A command's own work (``ladder move``, ``analyse``, a match's probe of its players,
  the bridge) runs in ``asyncio.run``, on asyncio's own loop: a command is stopped by
  SIGINT raising KeyboardInterrupt wherever it lands (ladder.match.runner.interrupts),
  and uvloop runs a Python signal handler as a loop callback and only logs what it
  raises (a match interrupted while probing its players hung that way).

The whole protocol suite runs on both loops (tests/protocol).
"""

from __future__ import annotations

import asyncio

import uvloop

__all__ = ["new_event_loop"]


def new_event_loop() -> asyncio.AbstractEventLoop:
    """A new event loop for a process that hosts engines (see the module docstring)."""
    return uvloop.new_event_loop()
