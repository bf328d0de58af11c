"""Helpers: hand-made positions (a FEN from a {point: letter} map), the engine
position by the slow rule, and positions whose tandems every notation names alike."""

from __future__ import annotations

import random
from collections.abc import Iterator

from ladder.rules import Game
from protocol.notation import to_ucci

FILES = "abcdefghi"


def make_fen(
    pieces: dict[str, str],
    turn: str = "w",
    hand: str | None = None,
    halfmove: int = 0,
    fullmove: int = 1,
) -> str:
    """FEN with ``pieces`` (e.g. ``{"e1": "K", "d10": "k"}``) on an otherwise empty board.

    ``hand`` (crazyhouse) is written in brackets after the board when not None.
    """
    grid: dict[tuple[int, int], str] = {}
    for point, letter in pieces.items():
        grid[(FILES.index(point[0]), int(point[1:]))] = letter
    rows = []
    for rank in range(10, 0, -1):
        row, empty = "", 0
        for f in range(9):
            piece = grid.get((f, rank))
            if piece:
                row += (str(empty) if empty else "") + piece
                empty = 0
            else:
                empty += 1
        rows.append(row + (str(empty) if empty else ""))
    board = "/".join(rows) + (f"[{hand}]" if hand is not None else "")
    return f"{board} {turn} - - {halfmove} {fullmove}"


def moves_from(legal: list[str], point: str) -> set[str]:
    """Destinations of the legal moves starting on ``point``."""
    return {m[len(point) :] for m in legal if m.startswith(point) and not m[len(point)].isdigit()}


def pieces_on_board(fen: str) -> int:
    """How many pieces a FEN has on its board (not in hand)."""
    return sum(ch.isalpha() for ch in fen.split(" ", 1)[0].split("[", 1)[0])


def replay_engine_position(
    variant: str, start_fen: str, moves: list[str]
) -> tuple[str, tuple[str, ...]]:
    """What to send an engine, by the rule written the slow way: with drops the start FEN
    and every move; otherwise replay the game from its start and take the FEN after the
    last move that took a piece off the board (none: the start) and the moves since."""
    game = Game.from_fen(variant, start_fen)
    if game.variant.drops:
        return start_fen, tuple(moves)
    base_fen, base = game.fen(), 0
    for ply, move in enumerate(moves, start=1):
        before = pieces_on_board(game.fen())
        game.push(move)
        if pieces_on_board(game.fen()) < before:
            base_fen, base = game.fen(), ply
    return base_fen, tuple(moves[base:])


def at_most_two_alike_on_a_file(game: Game) -> bool:
    """At most two like pieces on any file: positions whose tandems the other notation
    tools (cchess) name as the standard does (they do not tell two files of tandem
    soldiers apart)."""
    counts: dict[tuple[str, int], int] = {}
    for row in game.board_fen().split("/"):
        file = 0
        for ch in row:
            if ch.isdigit():
                file += int(ch)
            else:
                counts[(ch, file)] = counts.get((ch, file), 0) + 1
                file += 1
    return max(counts.values()) <= 2


def beside_cchess(seed: int, games: int) -> Iterator[tuple[Game, str, str]]:
    """Random xiangqi games (of at most 200 plies) played on cchess's board and ours:
    each position before a move (the move is pushed after the caller's turn), the move,
    and cchess's Chinese text for it: an independent writer to compare with."""
    import cchess  # type: ignore[import-untyped]

    rng = random.Random(seed)
    for _ in range(games):
        game = Game.from_fen("xiangqi")
        theirs = cchess.ChessBoard(cchess.FULL_INIT_FEN)
        while game.outcome() is None and game.ply < 200:
            move = rng.choice(game.legal_moves())
            written = theirs.move_iccs(to_ucci(move))
            assert written is not None, f"cchess refuses {move} in {game.fen()}"
            yield game, move, written.to_text()
            theirs.next_turn()
            game.push(move)
