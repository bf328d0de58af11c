"""Command-line options that several commands declare alike, each defined here once: its
flag, its form (type, metavar, choices) and its default; its help too where the commands
say the same, else each command's own words for what the option holds there.

Light to import, as :mod:`ladder.arg_types`: ``ladder move`` adds ``--levels`` with it and
must start fast; what an option needs beyond argparse loads when it is added."""

from __future__ import annotations

import argparse
from pathlib import Path

__all__ = [
    "LEVELS_FILE_HELP",
    "add_levels_file",
]

#: ``--levels``'s help in ``ladder move``, ``ladder levels`` and ``ladder serve`` (whose
#: options come from :class:`ladder.service.operations.settings.ServeSettings`).
LEVELS_FILE_HELP = "levels file (default: the shipped ladder, `ladder/levels.toml`)"


def add_levels_file(p: argparse._ActionsContainer) -> None:
    """``--levels FILE``: the levels file a command plays (None: the shipped one)."""
    p.add_argument("--levels", type=Path, default=None, metavar="FILE", help=LEVELS_FILE_HELP)
