"""How ``ladder match`` and ``ladder tournament`` end: a bad command line as a usage
error, an interrupt, recovered engine restarts and a failed run each said in one line on
standard error, with its exit code (:class:`ladder.match.exit_codes.ExitCode`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any, TextIO, TypeVar

from ladder.match.exit_codes import ExitCode

__all__ = ["play", "report_stream", "setup_errors", "usage_error"]


def report_stream(args: argparse.Namespace) -> TextIO:
    """Where the report goes: standard error when ``--json -`` takes standard output."""
    return sys.stderr if args.json_path == "-" else sys.stdout


def setup_errors() -> tuple[type[BaseException], ...]:
    """The errors of a command line that cannot run (nothing has been played)."""
    from ladder.match.openings import OpeningError
    from ladder.match.output.pgn import PgnError
    from ladder.match.players.specs import PlayerSpecError

    return (PlayerSpecError, OpeningError, PgnError, ValueError, OSError)


def usage_error(command: str, exc: BaseException) -> int:
    """Say why the command line cannot run; its exit code."""
    print(f"ladder {command}: {exc}", file=sys.stderr)
    return ExitCode.USAGE


RunT = TypeVar("RunT", bound=Any)


def play(command: str, run_it: Callable[[], RunT]) -> RunT | int:
    """Run a match or tournament: the run, or the exit code of one that failed (its
    one-line reason said on standard error)."""
    from ladder.match.output.store import StoreError
    from ladder.match.runner.interrupts import abandon_workers, interrupts_raise

    try:
        with interrupts_raise():
            run = run_it()
    except StoreError as exc:  # opened first: nothing was played
        return usage_error(command, exc)
    except KeyboardInterrupt:
        abandon_workers()
        print(f"ladder {command}: interrupted; run the same command to resume", file=sys.stderr)
        return ExitCode.INTERRUPTED
    from ladder.match.output.summary import restart_text

    restarts = run.stats.engine_restarts if hasattr(run, "stats") else run.engine_restarts
    if restarts:  # also when stdout is the report: a recovered fault is not silent
        print(f"ladder {command}: {restart_text(restarts)}", file=sys.stderr)
    if run.error is not None:
        print(f"ladder {command}: {run.error}", file=sys.stderr)
        if run.result.played or run.result.skipped:
            print(
                f"ladder {command}: the games stored are kept: the same command resumes",
                file=sys.stderr,
            )
        return int(run.code)
    return run
