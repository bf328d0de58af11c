"""A run's PGN file (``--pgn``): the file kept in step with the results database
(:class:`PgnWriter`), written where and how :class:`~ladder.match.output.pgn.PgnOptions`
says."""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from ladder.match.exit_codes import ExitCode
from ladder.match.game.play import GameRecord
from ladder.match.output.outputs import Output, OutputContext, StoredGames
from ladder.match.output.pgn import PgnOptions, tag_pair
from ladder.match.output.store import ResultStore

__all__ = ["PgnOptions", "PgnOutput", "PgnWriter", "foreign_games", "pgn_output"]


class PgnWriter:
    """A run's PGN file: rewritten from the database at the start, appended to as games
    finish, rewritten in game order at the end (which also repairs a killed run's).

    Only this run's games are rewritten: the file's games of other matches (another
    ``--name``, another run's, any other tool's) are kept as they were, before them, as
    cutechess-cli appends to its ``-pgnout``. A game is this run's when its ``Event`` tag
    is one of the run's match ids (:func:`ladder.match.output.pgn.format_pgn` writes it,
    minimal PGN too)."""

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
        others = foreign_games(path, set(self.match_ids)) if path.exists() else ""
        tmp = path.with_name(path.name + ".tmp")
        # surrogateescape: another tool's games go back byte for byte, whatever encoding
        with tmp.open("w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(others)
            for record in self.store.records(self.match_ids):
                f.write(self.options.render(record) + "\n")
        tmp.replace(path)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
            self._rewrite()


class PgnOutput(Output):
    """``--pgn``: the run's :class:`PgnWriter`."""

    def __init__(self, options: PgnOptions, store: ResultStore, match_ids: list[str]):
        self.options, self.store, self.match_ids = options, store, match_ids
        self._writer: PgnWriter | None = None

    def start(self, stored: StoredGames) -> None:
        self._writer = PgnWriter(self.options, self.store, self.match_ids)

    def add(self, record: GameRecord) -> None:
        if self._writer is not None:
            self._writer.add(record)

    def finish(self, code: ExitCode) -> None:
        if self._writer is not None:
            self._writer.close()


def pgn_output(context: OutputContext) -> Output | None:
    """The PGN output of a run that has ``--pgn``."""
    if context.options.pgn is None:
        return None
    return PgnOutput(context.options.pgn, context.store, context.run.match_ids)


def foreign_games(path: Path, match_ids: set[str]) -> str:
    """The text of ``path`` less its games of ``match_ids`` (by their ``Event`` tag, its
    escapes undone): what a rewrite keeps, ending with a blank line if anything is left."""
    text = path.read_text(encoding="utf-8", errors="surrogateescape")
    kept = []
    for game, event in _games(text):
        if event not in match_ids and game.strip():
            kept.append(game.rstrip("\n") + "\n\n")
    return "".join(kept)


def _games(text: str) -> list[tuple[str, str | None]]:
    """``text`` cut into games, as :func:`~ladder.match.output.pgn.read_pgn` cuts it (a
    game starts at a tag pair that follows movetext), each kept as written, with its
    Event tag (None without one)."""
    games: list[tuple[str, str | None]] = []
    lines: list[str] = []
    event: str | None = None
    moves = False
    for line in text.splitlines(keepends=True):
        tag = tag_pair(line)
        if tag is not None and moves:
            games.append(("".join(lines), event))
            lines, event, moves = [], None, False
        lines.append(line)
        if tag is not None and tag[0] == "Event":
            event = tag[1]
        moves = moves or (tag is None and bool(line.strip()) and not line.startswith("%"))
    games.append(("".join(lines), event))
    return games
