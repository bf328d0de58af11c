"""The progress of a run: a live bar on a terminal (rich), else a status line on the
report stream every :data:`STATUS_EVERY_S` seconds."""

from __future__ import annotations

import time

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ladder.match.exit_codes import ExitCode
from ladder.match.game.play import GameRecord
from ladder.match.output.outputs import Output, OutputContext, StoredGames

__all__ = [
    "REFRESH_PER_S",
    "STATUS_EVERY_S",
    "ProgressOutput",
    "StatusLines",
    "progress_bar",
    "progress_output",
]

#: Seconds between two status lines where there is no live bar.
STATUS_EVERY_S = 10.0
#: Redraws of the live bar a second (its clock shows seconds).
REFRESH_PER_S = 1


def progress_bar(console: Console) -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[figures]}"),
        console=console,
        disable=not console.is_terminal,
        # each redraw costs about 1.4 ms of the driver's CPU: at rich's default (10 a
        # second) or 4, more than a Ray game's other work (scripts/bench_match.py --ray)
        refresh_per_second=REFRESH_PER_S,
    )


class StatusLines:
    """A long job's count where no live bar is shown (a log, not a terminal): a line
    (``study: 12/400 games annotated``) for the first item, then every
    :data:`STATUS_EVERY_S` seconds, and for the last."""

    def __init__(self, console: Console, what: str, total: int, done: str) -> None:
        self.console, self.what, self.total, self.finished = console, what, total, done
        self.count = 0
        self._printed = time.monotonic()

    def add(self) -> None:
        self.count += 1
        now = time.monotonic()
        if self.count in (1, self.total) or now - self._printed > STATUS_EVERY_S:
            self._printed = now
            self.console.print(
                f"{self.what}: {self.count}/{self.total} {self.finished}", highlight=False
            )


class ProgressOutput(Output):
    """The bar and the status line."""

    def __init__(self, context: OutputContext):
        self.run, self.console, self.out = context.run, context.console, context.out
        self.bar = progress_bar(self.console)
        self._task = self.bar.add_task(
            self.run.description,
            total=self.run.total,
            completed=self.run.games,
            figures=self.run.figures(None),
        )
        self._last_print = time.monotonic()
        self._live = self.console.is_terminal  # (asked once: it asks the terminal)

    def start(self, stored: StoredGames) -> None:
        self.bar.start()

    def add(self, record: GameRecord) -> None:
        if self._live:
            self.bar.update(self._task, advance=1, figures=self.run.figures(record))
            return
        # No bar is shown: the figures are made only for the status line, once a while.
        self.bar.update(self._task, advance=1)
        if time.monotonic() - self._last_print > STATUS_EVERY_S:
            self._last_print = time.monotonic()
            line = f"[{self.run.games}/{self.run.total}] {self.run.status()}"
            print(line, file=self.out, flush=True)

    def finish(self, code: ExitCode) -> None:
        self.bar.stop()


def progress_output(context: OutputContext) -> Output:
    return ProgressOutput(context)
