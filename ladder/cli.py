"""The `ladder` command line: each package registers its own subcommands.

ladder move | serve | levels       the move service        (ladder/service/cli.py)
ladder perft                       the rules checker       (ladder/rules/cli.py)
ladder match | tournament | study  matches and studies     (ladder/match/cli/)
ladder analyse                     game analysis           (ladder/analysis/cli.py)
ladder calibrate                   calibration             (ladder/calibration/cli.py)
ladder engine build | path         the engine              (ladder/engine_cli.py)
ladder capacity                    sizing a site           (ladder/capacity/cli.py)
ladder doctor                      checks the installation (ladder/doctor.py)
ladder uci | ucci | xboard         the ladder as an engine (ladder/bridge/cli.py)

`ladder --log-level debug COMMAND …` logs every line to and from each engine.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import signal
import sys
from pathlib import Path
from typing import NoReturn

from ladder.engine_binary import (
    EngineNotBuilt,
    build_hint,
    deprecation_notice,
    find_engine,
)
from ladder.engine_cli import add_engine_option
from ladder.log_config import LEVELS, configure_logging
from ladder.package_data import DISTRIBUTION, package_version

#: Which module registers each subcommand, and with which function, in the order of
#: ``ladder --help``. A command imports only its own module: ``ladder xboard`` must
#: answer a GUI's ``protover`` within XBoard's 2 s, and importing the service, the
#: matches and the analysis first took that long on a loaded machine.
COMMAND_MODULES: dict[str, tuple[str, str]] = {
    "move": ("ladder.service.cli", "add_move"),
    "serve": ("ladder.service.cli", "add_serve"),
    "levels": ("ladder.service.cli", "add_levels"),
    "match": ("ladder.match.cli.match_command", "add_match"),
    "tournament": ("ladder.match.cli.tournament_command", "add_tournament"),
    "study": ("ladder.match.cli.study_command", "add_study"),
    "analyse": ("ladder.analysis.cli", "add_analyse"),
    "calibrate": ("ladder.calibration.cli", "add_calibrate"),
    "perft": ("ladder.rules.cli", "add_perft"),
    "engine": ("ladder.engine_cli", "add_engine"),
    "capacity": ("ladder.capacity.cli", "add_capacity"),
    "doctor": ("ladder.doctor", "add_doctor"),
    "uci": ("ladder.bridge.cli", "add_engine_commands"),  # registers uci, ucci, xboard
    "ucci": ("ladder.bridge.cli", "add_engine_commands"),
    "xboard": ("ladder.bridge.cli", "add_engine_commands"),
}

#: Subcommands that run the patched engine through the usual lookup (engine pools, match
#: workers): they take --engine after their name too, found once and passed on as
#: ``args.engine_path``.
#: (`doctor` and `engine path` take it themselves: they report a bad one; `serve` has it
#: among its settings, ladder.service.operations.settings, and passes the engine on in its config.)
ENGINE_COMMANDS = (
    "move",
    "match",
    "tournament",
    "study",
    "analyse",
    "calibrate",
    "uci",
    "ucci",
    "xboard",
)


def version_text(engine: Path | None = None) -> str:
    """What ``ladder --version`` prints: the package version and the engine build key."""
    try:
        found = find_engine(engine)
    except EngineNotBuilt:
        return f"{DISTRIBUTION} {package_version()}\nengine: not built; {build_hint()}"
    key = found.build_key or "no build key (not built by `ladder engine build`)"
    return f"{DISTRIBUTION} {package_version()}\nengine: {key} ({found.path}, from {found.source})"


class OneLineErrors(argparse.ArgumentParser):
    """A usage error is one line (``ladder serve: error: ...``), not usage + error."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``ladder`` parser: with ``command`` (a known subcommand), only that command's
    module is imported and registered; else every command (``ladder --help``)."""
    parser = OneLineErrors(
        prog="ladder", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--version",
        action="store_true",
        help="print the package version and the build key of the engine it would run",
    )
    add_engine_option(parser, default=None)
    parser.add_argument(
        "--log-level",
        dest="ladder_log_level",  # `serve` has a --log-level of its own (uvicorn's)
        choices=LEVELS,
        help="log to stderr at this level, in this process and its workers; "
        "debug: also every line to and from each engine",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    wanted = [command] if command in COMMAND_MODULES else list(COMMAND_MODULES)
    registered: set[tuple[str, str]] = set()
    for name in wanted:
        module, function = COMMAND_MODULES[name]
        if (module, function) not in registered:
            registered.add((module, function))
            getattr(importlib.import_module(module), function)(sub)
    for name in ENGINE_COMMANDS:
        if name in sub.choices:
            with contextlib.suppress(argparse.ArgumentError):  # it has its own --engine
                add_engine_option(sub.choices[name])
    return parser


def command_index(argv: list[str]) -> int:
    """Where the subcommand stands in ``argv``: after the global options."""
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        i += 1 if "=" in argv[i] or argv[i] in ("--version", "-h", "--help") else 2
    return i


def cutechess_options(argv: list[str]) -> list[str]:
    """``argv`` with a ``match`` or ``tournament`` command's cutechess-cli options
    rewritten as ours (:mod:`ladder.match.cli.cutechess`)."""
    from ladder.match.cli.cutechess import CutechessError, top_level, translate

    i = command_index(argv)
    if i >= len(argv) or argv[i] not in ("match", "tournament"):
        return argv
    try:
        rest = translate(argv[i + 1 :], argv[i])
        head = [*argv[:i], *top_level(argv[i + 1 :])]
        return [*head, argv[i], *rest]
    except CutechessError as exc:
        print(f"ladder {argv[i]}: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


def main(argv: list[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    at = command_index(words)
    parser = build_parser(words[at] if at < len(words) else None)
    args = parser.parse_args(cutechess_options(words))
    configure_logging(args.ladder_log_level)
    notice = deprecation_notice()
    if notice is not None:
        print(f"ladder: {notice}", file=sys.stderr)
    if args.version:
        print(version_text(args.engine))
        return 0
    if not hasattr(args, "func"):
        parser.print_help()
        return 2
    try:
        if args.command in ENGINE_COMMANDS:
            # The command passes it on, in its players' specs or its config, to every
            # engine it starts (in worker processes too); None: the usual lookup there.
            args.engine_path = None if args.engine is None else find_engine(args.engine).path
        code = int(args.func(args))
        sys.stdout.flush()  # a closed reader shows here, not at interpreter exit
        return code
    except EngineNotBuilt as exc:
        print(f"ladder: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        # Ctrl-C before a command's own handling of it (a match reading its book, say).
        print(f"ladder {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # `ladder levels | head`: the reader went away; end quietly, as a Unix filter does.
        # (Not SIG_DFL for SIGPIPE: that would let any closed socket or dead engine pipe
        # kill the process, `ladder serve` and `ladder match` included.)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE


if __name__ == "__main__":
    sys.exit(main())
