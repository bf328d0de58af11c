"""The outputs of a run, one interface (fastchess's ``IOutput``/``OutputFactory``, in
Python): the PGN file, the JSON document, the progress display and the SPRT stop each
take the run's finished games through :class:`Output`, and each is one module plus one
line in :data:`ladder.match.output.registry.OUTPUTS`.

The run loop (:func:`ladder.match.runner.run_loop.run_games`) calls every output's
:meth:`~Output.start` once the stored games are counted, :meth:`~Output.add` for each
game as it is stored (after the run's figures have counted it), :meth:`~Output.stop`
after it (any True ends the run once the games in flight are done) and
:meth:`~Output.finish` with the exit code however the run ends. The results database is
not one of them: it is what the run loop resumes from and stores into.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TextIO

from rich.console import Console

from ladder.match.exit_codes import ExitCode
from ladder.match.game.play import GameRecord
from ladder.match.output.pgn import PgnOptions
from ladder.match.output.store import ResultStore

__all__ = ["Output", "OutputContext", "OutputOptions", "RunView", "StoredGames"]


@dataclass(frozen=True)
class StoredGames:
    """What a run found stored when it began (its resumed games), counted as the run
    loop read them one by one: a resumed 100,000-game match is not held in memory."""

    games: int = 0
    engine_failures: int = 0  #: the games lost to an engine failure


class RunView(Protocol):
    """What an output sees of a match or a tournament being run."""

    @property
    def description(self) -> str:
        """What the progress display calls the run (``a vs b``, ``round-robin of 3``)."""
        ...

    @property
    def match_ids(self) -> list[str]: ...

    @property
    def total(self) -> int:
        """Games scheduled."""
        ...

    @property
    def games(self) -> int:
        """Games stored so far (resumed ones included)."""
        ...

    @property
    def decided(self) -> bool:
        """An SPRT has been decided: no game is to start."""
        ...

    def figures(self, last: GameRecord | None) -> str:
        """The progress display's figures (``last``: the game just stored)."""
        ...

    def status(self) -> str:
        """The status line's figures, where there is no live display."""
        ...

    def document(self, code: ExitCode | None) -> dict[str, Any]:
        """The ``--json`` document now (``code``: the run's end; None while it runs)."""
        ...


class OutputOptions(Protocol):
    """The options the outputs read (:class:`~ladder.match.runner.run_loop.RunOptions`
    has them)."""

    pgn: PgnOptions | None
    epd_path: Path | None
    json_path: Path | str | None
    json_interval: int


@dataclass
class OutputContext:
    """What the output factories are made from: the run, its store, where its report
    goes and its options (:class:`~ladder.match.runner.run_loop.RunOptions`)."""

    run: RunView
    store: ResultStore
    console: Console
    out: TextIO
    options: OutputOptions
    #: Why the run failed, in one line (set by the run loop before ``finish``).
    error: str | None = None


class Output:
    """One thing a run writes or decides as its games finish; every method does nothing
    unless the output says otherwise."""

    def start(self, stored: StoredGames) -> None:
        """Before the first game is played (``stored``: the games found stored)."""

    def add(self, record: GameRecord) -> None:
        """A game has been stored and counted in the run's figures."""

    def stop(self) -> bool:
        """Whether the run should start no other game."""
        return False

    def finish(self, code: ExitCode) -> None:
        """The run has ended with ``code`` (also when it failed or was interrupted)."""
