"""`ladder uci`, `ladder ucci`, `ladder xboard`: the ladder as an engine on stdin/stdout
(:mod:`ladder.bridge`)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from ladder.bridge.server import GuiServer, open_stdin
from ladder.bridge.session import LevelSession, SessionError
from ladder.bridge.ucci import UcciServer
from ladder.bridge.uci import UciServer
from ladder.bridge.xboard import XBoardServer
from ladder.engine_binary import EngineNotBuilt, engine_path
from ladder.levels import LEVELS_FILE, LevelsError
from ladder.variants import VARIANT_IDS

__all__ = ["add_engine_commands"]

SERVERS: dict[str, type[GuiServer]] = {
    "uci": UciServer,
    "ucci": UcciServer,
    "xboard": XBoardServer,
}
_HELP = {
    "uci": "speak UCI on stdin/stdout (ranks 1-10, as Fairy-Stockfish)",
    "ucci": "speak UCCI on stdin/stdout (ranks 0-9)",
    "xboard": "speak XBoard/CECP on stdin/stdout (ranks 0-9), e.g. xboard -fcp 'ladder xboard'",
}


def add_engine_commands(sub: Any) -> None:
    """Register `uci`, `ucci` and `xboard` on the `ladder` command's subparsers."""
    for name in SERVERS:
        p = sub.add_parser(
            name,
            help=f"the ladder as an engine: {_HELP[name]}",
            description=f"The ladder as an engine: {_HELP[name]}. Each move is the "
            "level's move (the move service's code). See docs/protocol.md.",
        )
        strength = p.add_mutually_exclusive_group()
        # None, not 1: argparse sees `--level 1 --elo N` as a clash only then
        strength.add_argument("--level", type=int, default=None, help="level 1-8 (default 1)")
        strength.add_argument("--elo", type=float, default=None, help="play at this Elo instead")
        p.add_argument(
            "--variant", choices=VARIANT_IDS, default=VARIANT_IDS[0], help="starting variant"
        )
        p.add_argument(
            "--seed", type=int, default=0, help="game seed for the variety rule (0: random)"
        )
        p.add_argument(
            "--levels", type=Path, default=LEVELS_FILE, help="levels file (default: shipped)"
        )
        p.set_defaults(func=_run, protocol=name)


def _run(args: argparse.Namespace) -> int:
    try:
        session = LevelSession(
            levels_file=args.levels,
            # not built: said here, in one line, before any GUI talk
            engine=args.engine_path or engine_path(),
            variant=args.variant,
            level=1 if args.level is None else args.level,
            seed=args.seed,
        )
        if args.elo is not None:
            session.set_elo(args.elo)
            if (note := session.elo_note()) is not None:  # stderr: the GUI reads stdout
                print(f"ladder {args.protocol}: {note}", file=sys.stderr)
    except (SessionError, LevelsError, EngineNotBuilt, OSError) as exc:
        print(f"ladder {args.protocol}: {exc}", file=sys.stderr)
        return 2
    server = SERVERS[args.protocol](session)

    async def main() -> int:
        return await server.run(await open_stdin())

    return asyncio.run(main())
