"""Helpers for hand-made positions: a FEN from a {point: letter} map."""

from __future__ import annotations

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
            letter = grid.get((f, rank))
            if letter:
                row += (str(empty) if empty else "") + letter
                empty = 0
            else:
                empty += 1
        rows.append(row + (str(empty) if empty else ""))
    board = "/".join(rows) + (f"[{hand}]" if hand is not None else "")
    return f"{board} {turn} - - {halfmove} {fullmove}"


def moves_from(legal: list[str], point: str) -> set[str]:
    """Destinations of the legal moves starting on ``point``."""
    return {m[len(point) :] for m in legal if m.startswith(point) and not m[len(point)].isdigit()}
