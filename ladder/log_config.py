"""Logging for the `ladder` command: one level for the command and the worker processes
it starts.

``ladder --log-level LEVEL …`` logs to stderr at LEVEL; at ``debug`` that includes every
line to and from each engine (the ``protocol.engine`` logger). The level is handed on to
child processes (match workers, Ray tasks) through the environment.
"""

from __future__ import annotations

import logging
import os
import sys

#: The environment variable that carries the level to child processes.
LOG_LEVEL_ENV = "MISTBOARD_LOG_LEVEL"
LEVELS = ("debug", "info", "warning", "error")
_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def configure_logging(level: str | None = None) -> None:
    """Log to stderr at ``level``, or at $MISTBOARD_LOG_LEVEL when ``level`` is None;
    without either, leave logging as it is (Python's default: warnings and errors)."""
    level = level or os.environ.get(LOG_LEVEL_ENV)
    if not level:
        return
    if level.lower() not in LEVELS:
        raise ValueError(f"log level must be one of {', '.join(LEVELS)}, not {level!r}")
    os.environ[LOG_LEVEL_ENV] = level.lower()
    logging.basicConfig(level=level.upper(), format=_FORMAT, stream=sys.stderr)
