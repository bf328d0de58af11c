"""How a match game ends: :class:`Ending`, one name for each, written as the PGN
``Termination``, the JSON's ``reason`` and the results database's.

The rules' endings (:class:`ladder.rules.Reason`) come first, with the same values; then
the match's own: adjudications, the ply limit, a fallen flag, an engine that failed for
good, a player that resigned; then the two a study gives a game read from a PGN file
with no ``Termination`` tag. A game read from another tool's PGN keeps its own
``Termination`` text, which need not be one of these.
"""

from __future__ import annotations

from enum import StrEnum

from ladder.rules import Reason

__all__ = ["Ending", "from_rules"]


class Ending(StrEnum):
    CHECKMATE = "checkmate"
    STALEMATE = "stalemate"
    GENERAL_EXPLODED = "general-exploded"
    PERPETUAL_CHECK = "perpetual-check"
    REPETITION = "repetition"
    SIXTY_PLIES = "sixty-plies"
    RESIGN_ADJUDICATION = "resign-adjudication"  #: a score at or below -CP for N moves
    DRAW_ADJUDICATION = "draw-adjudication"  #: both scores within ±CP for N moves each
    MAX_PLIES = "max-plies"
    TIMEOUT = "timeout"  #: a flag fell
    ENGINE_FAILURE = "engine-failure"  #: an engine crashed, hung or moved illegally, twice
    RESIGNATION = "resignation"  #: a player resigned (an XBoard engine's ``resign``)
    RESULT_TAG = "result-tag"  #: a PGN game decided by its Result tag alone
    UNTERMINATED = "unterminated"  #: a PGN game without a result


def from_rules(reason: Reason) -> Ending:
    """The ending of a game the rules ended."""
    return Ending(reason.value)
