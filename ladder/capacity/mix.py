"""A mix as an operator writes it, ``1:0.3,4:0.4,8:0.3`` (level: share of the moves), or
``xiangqi:0.7,atomic-xiangqi:0.3`` (variants; without shares, equal ones): read and
checked, a bad one refused in one line naming the value."""

from __future__ import annotations

import math
from collections.abc import Callable, Collection
from typing import TypeVar

__all__ = ["MixError", "parse_levels", "parse_mix", "parse_variants"]

K = TypeVar("K")

#: How far the shares may sum from 1 (rounding in what a person writes: 1/3 as 0.333).
SUM_TOLERANCE = 0.005


class MixError(ValueError):
    """A mix that cannot be used; the message names the option and the value."""


def parse_mix(
    text: str, option: str, key: Callable[[str], K], *, shares_optional: bool = False
) -> dict[K, float]:
    """`text` as ``key:share,...`` (``key`` reads and checks a key; a bad one raises
    ValueError with its reason). With `shares_optional`, keys alone share equally."""
    items = [part.strip() for part in text.split(",")]
    if not text.strip() or any(not item for item in items):
        raise MixError(f"{option}: an empty entry in {text!r}")
    mix: dict[K, float] = {}
    bare = [":" not in item for item in items]
    if any(bare) and not (shares_optional and all(bare)):
        item = items[bare.index(True)]
        raise MixError(f"{option}: {item!r} has no share (write it as {item}:0.5)")
    for item in items:
        name, _, share_text = item.partition(":")
        try:
            k = key(name.strip())
        except ValueError as exc:
            raise MixError(f"{option}: {exc}") from None
        if k in mix:
            raise MixError(f"{option}: {name.strip()!r} given twice")
        if share_text:
            try:
                share = float(share_text)
            except ValueError:
                raise MixError(
                    f"{option}: the share {share_text.strip()!r} of {name.strip()!r} "
                    "is not a number"
                ) from None
            if not 0 < share <= 1 or math.isnan(share):
                raise MixError(
                    f"{option}: the share {share_text.strip()!r} of {name.strip()!r} is not "
                    "between 0 and 1"
                )
        else:
            share = 1 / len(items)
        mix[k] = share
    total = sum(mix.values())
    if abs(total - 1) > SUM_TOLERANCE:
        raise MixError(f"{option}: the shares in {text!r} sum to {total:g}, not 1")
    return {k: s / total for k, s in mix.items()}


def parse_levels(text: str, levels: Collection[int]) -> dict[int, float]:
    """A level mix (``--mix``), its levels among `levels`."""

    def level(name: str) -> int:
        try:
            n = int(name)
        except ValueError:
            raise ValueError(f"{name!r} is not a level (a number, {_span(levels)})") from None
        if n not in levels:
            raise ValueError(f"no level {n} in the ladder (levels {_span(levels)})")
        return n

    return parse_mix(text, "--mix", level)


def parse_variants(text: str, variants: Collection[str]) -> dict[str, float]:
    """A variant mix (``--variants``), its variants among `variants`."""

    def variant(name: str) -> str:
        if name not in variants:
            raise ValueError(f"no variant {name!r} (variants: {', '.join(variants)})")
        return name

    return parse_mix(text, "--variants", variant, shares_optional=True)


def _span(levels: Collection[int]) -> str:
    return f"{min(levels)}-{max(levels)}" if levels else "none"
