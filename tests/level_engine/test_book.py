"""The opening books (:mod:`ladder.level_engine.book`): shipped, legal, weighted, seeded, and what
the
level move does with them."""

from __future__ import annotations

import asyncio
import collections
import json
from pathlib import Path

import pytest

from ladder.level_engine.book import BookError, load_book, parse_book, position_key
from ladder.level_engine.engine import LevelEngine
from ladder.levels import load_levels
from ladder.rules import Game
from ladder.variants import VARIANT_IDS
from tests.service.helpers import OUT_OF_BOOK


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_every_shipped_book_move_is_legal_where_it_stands(variant: str) -> None:
    book = load_book(variant)
    assert book is not None and book.variant == variant
    # Walk the book from the start: every position reached is keyed as it stands.
    seen = 0
    todo = [Game.from_fen(variant)]
    visited: set[str] = set()
    while todo:
        game = todo.pop()
        key = position_key(game)
        if key in visited or key not in book.positions:
            continue
        visited.add(key)
        legal = set(game.legal_moves())
        for move, weight in book.positions[key]:
            assert move in legal and weight > 0
            child = game.copy()
            child.push(move)
            todo.append(child)
            seen += 1
    assert visited == set(book.positions)  # nothing unreachable was shipped
    assert seen > 100


def test_the_pick_follows_the_weights_and_the_seed() -> None:
    text = json.dumps(
        {
            "variant": "xiangqi",
            "source": "test",
            "plies": 4,
            "positions": {
                position_key(Game.from_fen("xiangqi")): [["h3e3", 3], ["b3e3", 1]],
            },
        }
    )
    book = parse_book(text, "test")
    start = Game.from_fen("xiangqi")
    picks = collections.Counter(book.pick(start, seed) for seed in range(4000))
    assert set(picks) == {"h3e3", "b3e3"}
    assert 0.70 < picks["h3e3"] / 4000 < 0.80
    assert [book.pick(start, s) for s in range(20)] == [book.pick(start, s) for s in range(20)]
    assert book.pick(Game.from_fen("xiangqi", moves=["h3e3"]), 1) is None  # out of the book


def test_a_position_past_the_books_plies_is_out_of_it() -> None:
    book = load_book("xiangqi")
    assert book is not None
    game = Game.from_fen("xiangqi")
    while game.ply < book.plies:
        entries = book.moves(game)
        if not entries:
            break
        game.push(entries[0][0])
    assert book.moves(game) == () or game.ply < book.plies


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("{", "not a book"),
        ('{"variant": "xiangqi", "source": "", "plies": 2}', "not a book"),
        (
            '{"variant": "xiangqi", "source": "", "plies": 2, "positions": {"k": [["h3e3", 0]]}}',
            "positive weight",
        ),
    ],
)
def test_a_bad_book_file_is_named(tmp_path: Path, text: str, needle: str) -> None:
    with pytest.raises(BookError, match=needle):
        parse_book(text, str(tmp_path / "book.json"))


def test_a_level_plays_book_moves_by_the_seed_then_searches() -> None:
    """At the start every level draws from the book (no search: nodes 0), the same seed
    the same move; level 4 then searches out of the book."""

    async def run() -> None:
        engine = LevelEngine()
        try:
            level = load_levels()["xiangqi"][4]
            start = Game.from_fen("xiangqi")
            first = [await engine.play(start, level, seed) for seed in range(30)]
            assert all(m.book and m.result.nodes == 0 for m in first)
            assert len({m.move for m in first}) >= 3
            again = [await engine.play(start, level, seed) for seed in range(30)]
            assert [m.move for m in again] == [m.move for m in first]
            odd = Game.from_fen("xiangqi", moves=["a4a5", "a7a6", "i4i5"])
            out = await engine.play(odd, level, 1)
            assert not out.book and out.result.nodes > 0
        finally:
            await engine.close()

    asyncio.run(run())


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_the_tests_out_of_book_position_is_out_of_every_book(variant: str) -> None:
    """The service tests that need an engine search play from OUT_OF_BOOK."""
    book = load_book(variant)
    assert book is not None
    assert book.moves(Game.from_fen(variant, None, OUT_OF_BOOK)) == ()
