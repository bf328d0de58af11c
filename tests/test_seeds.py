"""Seeds: one derivation, and a move's seed derived only when read."""

from __future__ import annotations

import hashlib

import pytest

from ladder import seeds
from ladder.seeds import MoveSeed, derive_seed


def test_derive_seed_is_the_sha256_of_the_parts_joined() -> None:
    digest = hashlib.sha256(b"12:xiangqi:7").digest()
    assert derive_seed(12, "xiangqi", 7) == int.from_bytes(digest[:8], "big") >> 1
    assert 0 <= derive_seed(1, 2) < 2**63
    assert derive_seed(1, 2) != derive_seed(2, 1)


def test_a_move_seed_is_derived_once_and_only_when_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[tuple[object, ...]] = []

    def counted(*parts: object) -> int:
        calls.append(parts)
        return derive_seed(*parts)

    monkeypatch.setattr(seeds, "derive_seed", counted)
    seed = MoveSeed(99, 14)
    assert calls == []  # made, not derived
    assert seed.value() == derive_seed(99, 14)
    assert seed.value() == derive_seed(99, 14)
    assert calls == [(99, 14)]
    assert repr(seed) == "MoveSeed(99, 14)"


def test_a_fixed_seed_is_its_value() -> None:
    seed = MoveSeed.fixed(1_000_003)
    assert seed.value() == 1_000_003
    assert repr(seed) == "MoveSeed.fixed(1000003)"
