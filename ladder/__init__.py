"""Mistboard's engine ladder: rules checker, strength levels, move service, matches.

The product, by concern: :mod:`ladder.rules` (the rules checker), :mod:`ladder.levels`
(the eight levels), :mod:`ladder.level_engine` (a move at a level: the one function the
service, matches and the bridge all play), :mod:`ladder.service` (the move service:
HTTP, in-process, CLI), :mod:`ladder.client` (its Python client), :mod:`ladder.match`
(matches, tournaments, studies, statistics), :mod:`ladder.calibration` (measuring the
levels), :mod:`ladder.bridge` (the ladder as a UCI/UCCI/XBoard engine). Engines are
spoken to through :mod:`protocol`. docs/architecture.md follows a move and a match game
through these modules.
"""

import logging

# A library's loggers stay silent until the program configures logging (`ladder serve`
# does, and `--log-level`); without this, Python's last-resort handler would print
# incident lines next to a command's own one-line error.
logging.getLogger("ladder").addHandler(logging.NullHandler())
