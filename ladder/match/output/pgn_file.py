"""A run's PGN file (``--pgn``): where and how the games are written
(:class:`PgnOptions`) and the file kept in step with the results database
(:class:`PgnWriter`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from ladder.match.game.play import GameRecord
from ladder.match.output.pgn import format_pgn
from ladder.match.output.store import ResultStore

__all__ = ["PgnOptions", "PgnWriter"]


@dataclass(frozen=True)
class PgnOptions:
    """Where and how a run writes its games as PGN (:func:`ladder.match.output.pgn.format_pgn`)."""

    path: Path
    notation: str = "wxf"
    minimal: bool = False

    def render(self, record: GameRecord) -> str:
        if self.notation == "wxf" and not self.minimal and record.pgn:
            return record.pgn  # what the worker wrote, the same text
        return format_pgn(record, notation=self.notation, minimal=self.minimal)


class PgnWriter:
    """A run's PGN file: rewritten from the database at the start, appended to as games
    finish, rewritten in game order at the end (which also repairs a killed run's)."""

    def __init__(self, options: PgnOptions | None, store: ResultStore, match_ids: list[str]):
        self.options, self.store, self.match_ids = options, store, match_ids
        self._file: TextIO | None = None
        if options is not None:
            self._rewrite()
            self._file = options.path.open("a")

    def add(self, record: GameRecord) -> None:
        if self._file is not None and self.options is not None:
            self._file.write(self.options.render(record) + "\n")
            self._file.flush()

    def _rewrite(self) -> None:
        assert self.options is not None
        path = self.options.path
        tmp = path.with_name(path.name + ".tmp")
        with tmp.open("w") as f:
            for record in self.store.records(self.match_ids):
                f.write(self.options.render(record) + "\n")
        tmp.replace(path)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
            self._rewrite()
