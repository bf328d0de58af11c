"""How a run fails as a whole (a game that fails is scored, not raised): the errors the
run loop, the execution and the backends share."""

from __future__ import annotations

__all__ = ["ClusterError", "MatchError"]


class MatchError(RuntimeError):
    """A game task failed (a worker died, a bug): the match stops; what was stored
    stays, and running the command again resumes."""


class ClusterError(MatchError):
    """The Ray cluster cannot be used: unreachable, or it wants a token this machine
    does not have (nothing was played: exit 2)."""
