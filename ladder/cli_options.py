"""Command-line options that several commands declare in the same form, each defined here
once: its flag, its form (type, metavar, choices) and its default; its help too where the
commands say the same, else each command's own words for what the option holds there.

Light to import, as :mod:`ladder.arg_types`: ``ladder move`` adds ``--levels`` with it and
must start fast; what an option needs beyond argparse loads when it is added."""

from __future__ import annotations

import argparse
from pathlib import Path

__all__ = [
    "LEVELS_FILE_HELP",
    "add_json_file",
    "add_level_times_file",
    "add_levels_file",
    "add_pgn_notation",
]

#: ``--levels``'s help in ``ladder move``, ``ladder levels`` and ``ladder serve`` (whose
#: options come from :class:`ladder.service.operations.settings.ServeSettings`).
LEVELS_FILE_HELP = "levels file (default: the shipped ladder, `ladder/levels.toml`)"


def add_levels_file(p: argparse._ActionsContainer, help: str = LEVELS_FILE_HELP) -> None:
    """``--levels FILE``: the levels file a command plays (None: the shipped one; read
    with :func:`ladder.levels.checked_levels_file`)."""
    p.add_argument("--levels", type=Path, default=None, metavar="FILE", help=help)


def add_level_times_file(p: argparse._ActionsContainer, help: str) -> None:
    """``--level-times FILE``: the levels' times a move measured on this machine (None:
    the per-user cache's file; read with :func:`ladder.level_times.level_times_here`)."""
    p.add_argument("--level-times", type=Path, default=None, metavar="FILE", help=help)


def add_json_file(p: argparse._ActionsContainer, help: str) -> None:
    """``--json FILE`` (``args.json_path``; ``-``: standard output): ``help`` says what
    the command writes there."""
    p.add_argument("--json", dest="json_path", default=None, metavar="FILE", help=help)


def add_pgn_notation(p: argparse._ActionsContainer, help: str) -> None:
    """``--pgn-notation``: how a PGN the command writes spells its moves, one of
    :data:`ladder.match.output.pgn.NOTATIONS` (default: :class:`~ladder.match.output.pgn.
    PgnOptions`'s)."""
    from ladder.match.output.pgn import NOTATIONS, PgnOptions

    p.add_argument(
        "--pgn-notation", choices=tuple(NOTATIONS), default=PgnOptions.notation, help=help
    )
