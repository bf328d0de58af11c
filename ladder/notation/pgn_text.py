"""A PGN game's text as both PGN writers lay it out (a match's games,
:mod:`ladder.match.output.pgn`; a game's analysis, :mod:`ladder.analysis.pgn`): the tag
pairs, a blank line, then the movetext wrapped at 79 columns."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["DECIDED_RESULTS", "pgn_text"]

#: A game's results that score it (a PGN's ``*`` is a game without a result).
DECIDED_RESULTS = frozenset({"1-0", "0-1", "1/2-1/2"})

#: The longest movetext line (PGN's export format asks for under 80 characters).
LINE_WIDTH = 79


def pgn_text(tags: Iterable[tuple[str, object]], tokens: Iterable[str]) -> str:
    """The tag pairs (a value's backslashes and quotes escaped, ``\\\\`` and ``\\"``, as
    the PGN standard's strings ask) and the movetext tokens (move numbers, moves,
    comments, the result), wrapped."""
    lines = [f'[{k} "{_escaped(str(v))}"]' for k, v in tags]
    body, line = [], ""
    for tok in tokens:
        if line and len(line) + 1 + len(tok) > LINE_WIDTH:
            body.append(line)
            line = tok
        else:
            line = f"{line} {tok}" if line else tok
    body.append(line)
    return "\n".join(lines) + "\n\n" + "\n".join(body) + "\n"


def _escaped(value: str) -> str:
    """A tag's value as a PGN string (PGN standard 7)."""
    return value.replace("\\", "\\\\").replace('"', '\\"')
