"""Move notation: canonical parsing, malformed and off-board moves. (UCCI's rank
numbering is the protocol layer's: tests/protocol/test_protocol_parsing.py.)"""

from __future__ import annotations

import pytest

from ladder.rules import RulesError, normalize_move
from ladder.rules.board import GENERAL
from ladder.rules.movegen import DROP_BASE
from ladder.rules.notation import move_str, parse_move


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("h3e3", "h3e3"),
        ("e@e3", "B@e3"),
        ("h@c5", "N@c5"),
        ("a@d2", "A@d2"),
    ],
)
def test_normalize(text: str, canonical: str) -> None:
    assert normalize_move(text) == canonical


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "malformed"),
        ("h3", "malformed"),
        ("h3-e3", "malformed"),
        ("H3E3", "malformed"),
        ("j1a1", "off the board"),
        ("a11a1", "off the board"),
        ("a0a1", "off the board"),
        ("a01a2", "off the board"),
        ("e3e3", "does not move"),
        ("K@e2", "general"),
        ("X@e3", "unknown piece letter"),
        ("h3e3e3e3e", "characters long"),
        ("h3\ne3", "control"),
        ("h3é3", "non-ASCII"),
        (None, "must be a string"),
        (42, "must be a string"),
    ],
)
def test_malformed_moves(text: object, words: str) -> None:
    with pytest.raises(RulesError) as err:
        normalize_move(text)
    assert words in err.value.reason
    assert err.value.field == "move"


def test_every_canonical_move_reads_as_the_parser_reads_it() -> None:
    """:func:`parse_move` finds canonical strings in a table before parsing: the table
    holds every move :func:`move_str` writes (board moves and drops of every type a hand
    holds) with the int the parser gives it (a ``str`` subclass is parsed, not looked up)."""

    class Text(str):
        pass

    canonical = {
        move_str(m): m
        for m in range((DROP_BASE + 8) * 90)
        if m // 90 != m % 90 and (m < DROP_BASE * 90 or m // 90 - DROP_BASE > GENERAL)
    }
    assert len(canonical) == 90 * 89 + 6 * 90
    for text, m in canonical.items():
        assert parse_move(text) == m == parse_move(Text(text))
