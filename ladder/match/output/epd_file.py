"""A run's end positions (``--epd FILE``, cutechess-cli's ``-epdout``): each finished
game's last position, one EPD line (board, side, ``- -``, ``hmvc N; fmvn N;``), appended
as the games finish (as cutechess appends), in XBoard's letters (``h`` horse, ``e``
elephant: what cutechess and XBoard write; the book reader takes either letters, so
the file is an EPD book again)."""

from __future__ import annotations

from typing import TextIO

from ladder.match.exit_codes import ExitCode
from ladder.match.game.play import GameRecord
from ladder.match.output.outputs import Output, OutputContext, StoredGames
from ladder.rules import Game
from protocol.notation import FenLetters

__all__ = ["EpdOutput", "end_position", "epd_output"]


def end_position(record: GameRecord) -> str:
    """The EPD line of ``record``'s last position, in XBoard's letters."""
    fields = Game.from_fen(record.variant, record.start_fen, record.moves).fen().split()
    board, side, clock, number = fields[0], fields[1], fields[-2], fields[-1]
    return FenLetters.XBOARD.write(f"{board} {side} - - hmvc {clock}; fmvn {number};")


class EpdOutput(Output):
    """``--epd FILE``: each game's end position, appended."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._file: TextIO | None = None

    def start(self, stored: StoredGames) -> None:
        self._file = open(self.path, "a")  # noqa: SIM115 - open for the run, closed at finish

    def add(self, record: GameRecord) -> None:
        if self._file is not None:
            self._file.write(end_position(record) + "\n")
            self._file.flush()

    def finish(self, code: ExitCode) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def epd_output(context: OutputContext) -> Output | None:
    """The end-position output of a run that has ``--epd``."""
    path = context.options.epd_path
    return None if path is None else EpdOutput(str(path))
