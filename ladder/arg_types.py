"""Command-line numbers: argparse types that refuse what cannot be, by name, each in the
same words (``not an integer: 'x'``, ``must be at least 1, got 0``) whichever command or
setting reads it.

Their own module, without the service's settings around them: ``ladder move`` parses its
``--timeout`` with one, and must not import the HTTP server to do so (issue 36)."""

from __future__ import annotations

import argparse

__all__ = [
    "non_negative_float",
    "non_negative_int",
    "port_number",
    "positive_float",
    "positive_int",
    "probability",
]


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None


def _float(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None


def positive_int(text: str) -> int:
    value = _int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def non_negative_int(text: str) -> int:
    value = _int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def port_number(text: str) -> int:
    value = _int(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be 0-65535, got {value}")
    return value


def non_negative_float(text: str) -> float:
    value = _float(text)
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {text}")
    return value


def positive_float(text: str) -> float:
    value = _float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {text}")
    return value


def probability(text: str) -> float:
    value = _float(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be above 0 and below 1, got {text}")
    return value
