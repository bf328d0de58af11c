"""Opening books and the game schedule (pairs with colours reversed, seeded order).

Three book formats, chosen by the file's suffix (or ``fmt``):

* the ladder's suite (``ladder/openings/<variant>.txt``, made by
  ``scripts/make_openings.py``), one opening a line::

      # comment
      h3e3 h10g8 h1g3 i10h10            <- moves from the variant's start position
      <FEN> | h3e3 h10g8                <- a start FEN, then moves (either may be empty)

  Trailing ``# ...`` on a line is a comment (the generator writes the shallow engine
  evaluation there);
* ``.epd``: one position a line, the FEN's first four fields then EPD operations
  (``id "..."; c0 "..."``), as cutechess and fastchess read them;
* ``.pgn``: games (a ``FEN`` tag or the variant's start, then moves in WXF, ICCS or
  canonical notation): each game's moves are an opening.

``plies``: at most that many moves of each opening are played (cutechess's
``plies=N``). Every opening is replayed through the rules checker on loading, in the
match's variant.
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass
from pathlib import Path

from ladder.package_data import data_path
from ladder.rules import Game, RulesError

__all__ = [
    "BOOK_FORMATS",
    "OPENINGS_DIR",
    "ORDERS",
    "GameSlot",
    "Opening",
    "OpeningError",
    "default_suite",
    "load_openings",
    "parse_openings",
    "schedule",
    "suite_digest",
]

OPENINGS_DIR = data_path("openings")
#: Book formats by name (``fmt``), as the file suffixes that select them.
BOOK_FORMATS = ("suite", "epd", "pgn")
#: How a match walks through its book (cutechess's ``order=``).
ORDERS = ("random", "sequential")


class OpeningError(ValueError):
    """An opening suite that cannot be used."""


@dataclass(frozen=True)
class Opening:
    """A start position (None: the variant's) and the moves played from it."""

    fen: str | None
    moves: tuple[str, ...]
    comment: str = ""  #: the book's words for it (a suite's ``#`` comment, an EPD ``id``)
    source: str = ""  #: where it comes from: ``book.epd:12``, ``book.pgn:game 3``

    def describe(self) -> str:
        """Source and id, as a PGN's ``Opening`` tag gives them: ``book.epd:12 (id)``."""
        return " ".join(p for p in (self.source, f"({self.comment})" if self.comment else "") if p)

    def line(self) -> str:
        """The suite-file line for this opening."""
        body = " ".join(self.moves)
        if self.fen is not None:
            body = f"{self.fen} | {body}".rstrip()
        return f"{body}  # {self.comment}" if self.comment else body


def parse_openings(variant: str, text: str, source: str = "<openings>") -> list[Opening]:
    """Parse and check a suite's text (every opening must be legal and not finished)."""
    out: list[Opening] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        body, _, comment = raw.partition("#")
        body = body.strip()
        if not body:
            continue
        fen: str | None = None
        moves_text = body
        if "|" in body:
            fen_text, _, moves_text = body.partition("|")
            fen = fen_text.strip() or None
        elif "/" in body:
            fen, moves_text = body, ""
        moves = tuple(moves_text.split())
        try:
            game = Game.from_fen(variant, fen, moves)
        except RulesError as exc:
            raise OpeningError(f"{source}:{number}: {exc}") from exc
        if game.outcome() is not None:
            raise OpeningError(f"{source}:{number}: the game is already over")
        out.append(Opening(fen, moves, comment.strip(), f"{Path(source).name}:{number}"))
    if not out:
        raise OpeningError(f"{source}: no openings")
    return out


def default_suite(variant: str) -> Path:
    """The suite shipped for ``variant``."""
    return OPENINGS_DIR / f"{variant}.txt"


def parse_epd(variant: str, text: str, source: str = "<epd>") -> list[Opening]:
    """The positions of an EPD text (see the module docstring)."""
    out: list[Opening] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        fields = raw.split()
        if not fields or raw.lstrip().startswith("#"):
            continue
        if len(fields) < 2:
            raise OpeningError(f"{source}:{number}: an EPD line needs a board and a side to move")
        board, side = fields[0], fields[1]
        rest = " ".join(fields[4:]) if len(fields) > 4 else ""
        ops = dict(_EPD_OP_RE.findall(rest))
        fen = f"{board} {side} - - {ops.get('hmvc', '0')} {ops.get('fmvn', '1')}"
        try:
            game = Game.from_fen(variant, fen)
        except RulesError as exc:
            raise OpeningError(f"{source}:{number}: {exc}") from exc
        if game.outcome() is not None:
            raise OpeningError(f"{source}:{number}: the game is already over")
        comment = ops.get("id", "").strip('"')
        out.append(Opening(game.start_fen, (), comment, f"{Path(source).name}:{number}"))
    if not out:
        raise OpeningError(f"{source}: no positions")
    return out


_EPD_OP_RE = re.compile(r"(\w+)\s+([^;]*);")


def parse_pgn_book(variant: str, text: str, source: str = "<pgn>") -> list[Opening]:
    """The games of a PGN text as openings (each game's start and moves)."""
    from ladder.match.output.pgn import PgnError, fsf_fen, read_pgn, replay

    out: list[Opening] = []
    try:
        for number, parsed in enumerate(read_pgn(text), start=1):
            try:
                game = replay(parsed, variant)
            except PgnError as exc:
                raise OpeningError(f"{source}: game {number}: {exc}") from exc
            fen = parsed.headers.get("FEN")
            fen = None if fen is None else fsf_fen(fen)  # XBoard's letters read too
            event = parsed.headers.get("Event", "")
            where = f"{Path(source).name}:game {number}"
            out.append(Opening(fen, tuple(game.moves), event, where))
    except PgnError as exc:
        raise OpeningError(f"{source}: {exc}") from exc
    if not out:
        raise OpeningError(f"{source}: no games")
    return out


def book_format(path: Path) -> str:
    """The book format a file's suffix names (``suite`` for any other suffix)."""
    suffix = path.suffix.lower().lstrip(".")
    return suffix if suffix in ("epd", "pgn") else "suite"


def load_openings(
    variant: str,
    path: Path | str | None = None,
    *,
    fmt: str | None = None,
    plies: int | None = None,
) -> list[Opening]:
    """The openings of a book file (default: the shipped suite of ``variant``), in the
    format ``fmt`` (default: by the file's suffix), each cut to ``plies`` moves."""
    p = Path(path) if path is not None else default_suite(variant)
    fmt = fmt or book_format(p)
    if fmt not in BOOK_FORMATS:
        raise OpeningError(f"unknown book format {fmt!r}: expected one of {BOOK_FORMATS}")
    if plies is not None and plies < 0:
        raise OpeningError(f"plies must be >= 0, got {plies}")
    try:
        text = p.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise OpeningError(f"cannot read opening book {p}: {exc}") from exc
    parse = {"suite": parse_openings, "epd": parse_epd, "pgn": parse_pgn_book}[fmt]
    book = parse(variant, text, str(p))
    if plies is not None:
        book = [Opening(o.fen, o.moves[:plies], o.comment, o.source) for o in book]
    for number, opening in enumerate(book, start=1):
        if Game.from_fen(variant, opening.fen, opening.moves).outcome() is not None:
            raise OpeningError(f"{p}: opening {number}: the game is already over")
    return book


def suite_digest(openings: list[Opening]) -> str:
    """A short fingerprint of a suite (part of a match's identity, for resuming)."""
    h = hashlib.sha256("\n".join(f"{o.fen}|{' '.join(o.moves)}" for o in openings).encode())
    return h.hexdigest()[:16]


@dataclass(frozen=True)
class GameSlot:
    """One scheduled game: its number, its pair, the opening, who has Red."""

    game_no: int
    pair_no: int
    opening_no: int
    a_is_red: bool


def schedule(
    n_openings: int, games: int, seed: int, order: str = "random", repeat: int = 2
) -> list[GameSlot]:
    """``games`` games; with ``repeat`` 2 (the default) in pairs: pair ``k`` plays one
    opening twice, player A Red in the first game and Black in the second (an odd count
    ends with the first game of a pair). With ``repeat`` 1 (cutechess without
    ``-repeat``) every game has an opening of its own, A Red in the even-numbered ones;
    games ``2k`` and ``2k+1`` are still a pair for the statistics.

    Openings are used in a seeded random order, a fresh shuffle for each pass through
    the suite (``order="sequential"``: in the book's order, from the start again after
    the last). The schedule depends only on ``(n_openings, seed, order, repeat)`` and
    grows as a prefix when ``games`` grows, so a resumed or extended match plays the same
    games.
    """
    if n_openings < 1:
        raise OpeningError("no openings")
    if order not in ORDERS:
        raise OpeningError(f"unknown opening order {order!r}: expected one of {ORDERS}")
    if repeat not in (1, 2):
        raise OpeningError(f"repeat is 1 or 2 (each opening once or twice), got {repeat}")
    games = max(games, 0)
    rng = random.Random(f"openings:{seed}")
    queue: list[int] = []

    def next_opening(k: int) -> int:
        nonlocal queue
        if order == "sequential":
            return k % n_openings
        if not queue:
            queue = list(range(n_openings))
            rng.shuffle(queue)
            queue.reverse()
        return queue.pop()

    slots: list[GameSlot] = []
    if repeat == 1:
        for game in range(games):
            slots.append(GameSlot(game, game // 2, next_opening(game), game % 2 == 0))
        return slots
    for pair in range((games + 1) // 2):
        opening = next_opening(pair)
        slots.append(GameSlot(2 * pair, pair, opening, True))
        slots.append(GameSlot(2 * pair + 1, pair, opening, False))
    return slots[:games]
