"""The command line's number types: each refuses what cannot be in the same words,
whichever command or setting reads it (``ladder match --games``, ``ladder serve --port``,
``LADDER_PORT``...)."""

from __future__ import annotations

import argparse
from collections.abc import Callable

import pytest

from ladder.arg_types import (
    non_negative_float,
    non_negative_int,
    port_number,
    positive_float,
    positive_int,
    probability,
)


@pytest.mark.parametrize(
    ("parse", "text", "value"),
    [
        (positive_int, "1", 1),
        (non_negative_int, "0", 0),
        (port_number, "65535", 65535),
        (non_negative_float, "0", 0.0),
        (positive_float, "0.5", 0.5),
        (probability, "0.05", 0.05),
    ],
)
def test_a_good_value_is_read(parse: Callable[[str], object], text: str, value: object) -> None:
    assert parse(text) == value


@pytest.mark.parametrize(
    ("parse", "text", "says"),
    [
        (positive_int, "0", "must be at least 1, got 0"),
        (positive_int, "many", "not an integer: 'many'"),
        (positive_int, "1.5", "not an integer: '1.5'"),
        (non_negative_int, "-1", "must be 0 or more, got -1"),
        (port_number, "65536", "must be 0-65535, got 65536"),
        (port_number, "http", "not an integer: 'http'"),
        (non_negative_float, "inf", "must be 0 or more, got inf"),
        (positive_float, "0", "must be positive, got 0"),
        (positive_float, "x", "not a number: 'x'"),
        (probability, "1", "must be above 0 and below 1, got 1"),
        (probability, "0", "must be above 0 and below 1, got 0"),
    ],
)
def test_a_bad_value_is_refused_in_words(
    parse: Callable[[str], object], text: str, says: str
) -> None:
    with pytest.raises(argparse.ArgumentTypeError) as refused:
        parse(text)
    assert str(refused.value) == says
