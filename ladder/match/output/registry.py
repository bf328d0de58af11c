"""Every output of a run, in the order each finished game reaches them (fastchess's
``OutputFactory``): a new output is a module with an
:class:`~ladder.match.output.outputs.Output` and its factory, and one line here."""

from __future__ import annotations

from collections.abc import Callable

from ladder.match.output.epd_file import epd_output
from ladder.match.output.json_document import json_output
from ladder.match.output.outputs import Output, OutputContext
from ladder.match.output.pgn_file import pgn_output
from ladder.match.output.progress import progress_output
from ladder.match.output.sprt_stop import sprt_stop

__all__ = ["OUTPUTS", "make_outputs"]

#: Each factory makes its output from a run's context, or None when the run has none.
OUTPUTS: tuple[Callable[[OutputContext], Output | None], ...] = (
    pgn_output,
    epd_output,
    json_output,
    progress_output,
    sprt_stop,
)


def make_outputs(context: OutputContext) -> list[Output]:
    """The outputs of a run."""
    return [o for o in (factory(context) for factory in OUTPUTS) if o is not None]
