"""Move notation: canonical parsing, UCCI conversion, malformed and off-board moves."""

from __future__ import annotations

import pytest

from ladder.rules import RulesError, from_ucci, normalize_move, to_ucci


@pytest.mark.parametrize(
    ("canonical", "ucci"),
    [
        ("h3e3", "h2e2"),
        ("b10c8", "b9c7"),
        ("a1a10", "a0a9"),
        ("A@e3", "A@e2"),
        ("P@i10", "P@i9"),
    ],
)
def test_ucci_conversion(canonical: str, ucci: str) -> None:
    assert to_ucci(canonical) == ucci
    assert from_ucci(ucci) == canonical


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


def test_ucci_rank_range_is_checked() -> None:
    with pytest.raises(RulesError, match="off the board"):
        from_ucci("a10a9")
    with pytest.raises(RulesError, match="off the board"):
        to_ucci("a0a1")
