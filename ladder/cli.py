"""The `ladder` command line: each package registers its own subcommands.

ladder move | serve | levels       the move service        (ladder/service/cli.py)
ladder perft                       the rules checker       (ladder/rules/cli.py)
ladder match | tournament | study  matches and studies     (ladder/match/cli.py)
ladder calibrate                   calibration             (ladder/calibration/cli.py)

`ladder --log-level debug COMMAND …` logs every line to and from each engine.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from typing import NoReturn

from ladder.calibration.cli import add_calibrate
from ladder.log_config import LEVELS, configure_logging
from ladder.match.cli import add_match, add_study, add_tournament
from ladder.rules.cli import add_perft
from ladder.service.cli import add_levels, add_move, add_serve


class OneLineErrors(argparse.ArgumentParser):
    """A usage error is one line (``ladder serve: error: ...``), not usage + error."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def main(argv: list[str] | None = None) -> int:
    parser = OneLineErrors(
        prog="ladder", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--log-level",
        dest="ladder_log_level",  # `serve` has a --log-level of its own (uvicorn's)
        choices=LEVELS,
        help="log to stderr at this level, in this process and its workers; "
        "debug: also every line to and from each engine",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    add_move(sub)
    add_serve(sub)
    add_levels(sub)
    add_match(sub)
    add_tournament(sub)
    add_study(sub)
    add_calibrate(sub)
    add_perft(sub)
    args = parser.parse_args(argv)
    configure_logging(args.ladder_log_level)
    if not hasattr(args, "func"):
        parser.print_help()
        return 2
    try:
        code = int(args.func(args))
        sys.stdout.flush()  # a closed reader shows here, not at interpreter exit
        return code
    except BrokenPipeError:
        # `ladder levels | head`: the reader went away; end quietly, as a Unix filter does.
        # (Not SIG_DFL for SIGPIPE: that would let any closed socket or dead engine pipe
        # kill the process, `ladder serve` and `ladder match` included.)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE


if __name__ == "__main__":
    sys.exit(main())
