"""The exit codes of ``ladder match``, ``ladder tournament`` and ``ladder study``.

A script running matches must be able to tell a finished match from a failure without
reading the output: a failure never exits 0.
"""

from __future__ import annotations

from enum import IntEnum

__all__ = ["ExitCode"]


class ExitCode(IntEnum):
    """What a match command's exit status means (docs/match.md lists them)."""

    DONE = 0  #: every game played (an SPRT, if any, still undecided)
    ABORTED = 1  #: stopped by an error that is not an engine's (a worker died, a bug)
    USAGE = 2  #: bad arguments, player specs, opening books or files: nothing played
    ENGINE_FAILURE = 3  #: an engine could not start, or failed more than allowed
    SPRT_H0 = 4  #: the SPRT accepted H0 (elo = elo0) and stopped the match
    SPRT_H1 = 5  #: the SPRT accepted H1 (elo = elo1) and stopped the match
    INTERRUPTED = 130  #: Ctrl-C (SIGINT); the stored games are kept
