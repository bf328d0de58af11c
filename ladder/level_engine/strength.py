"""What plays: a level's settings, or those at an Elo, as every door asks for them.

The move service (a request's ``level`` or ``elo``), a match player (``level:N``,
``elo:N``, ``variety=off``) and the bridge (the ``Level``, ``Elo`` and ``OwnBook``
options) all resolve their strength here, so a level or an Elo plays the same settings
through each of them.
"""

from __future__ import annotations

from dataclasses import replace

from ladder.levels import Level, at_elo

__all__ = ["strength"]


def strength(
    table: dict[int, Level],
    level: int | None = None,
    elo: float | None = None,
    *,
    book: bool = True,
    variety: bool = True,
) -> Level:
    """The settings that play in one variant's ``table``: those interpolated at ``elo``
    when one is given (:func:`ladder.levels.at_elo`), else level ``level``'s; without
    the opening book unless ``book``, and without the variety rule (the engine's best
    move, no book either) unless ``variety``.

    Raises :class:`ladder.levels.LevelsError` for an Elo off the measured curve, and
    KeyError for a level the table has not."""
    if elo is not None:
        settings = at_elo(table, elo)
    else:
        if level is None:
            raise ValueError("a level or an Elo is needed")
        settings = table[level]
    if not variety:
        return replace(settings, variety=None, book=False)
    return settings if book else replace(settings, book=False)
