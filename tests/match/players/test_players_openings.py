"""Player specs, baselines, opening suites and the pair schedule (no engine needed)."""

from __future__ import annotations

import random

import pytest

from ladder.match.openings import (
    OpeningError,
    default_suite,
    load_openings,
    parse_openings,
    schedule,
)
from ladder.match.players.baselines import greedy_move
from ladder.match.players.specs import PlayerSpec, PlayerSpecError
from ladder.rules import Game
from ladder.variants import VARIANT_IDS


def test_parse_player_specs() -> None:
    lv = PlayerSpec.parse("level:5")
    assert (lv.kind, lv.level, lv.name) == ("level", 5, "level:5")
    assert lv.newgame_every_move
    eng = PlayerSpec.parse("engine:/x/fsf,protocol=ucci,nodes=20000,Hash=16,name=fsf20k")
    assert (eng.kind, eng.path, eng.protocol, eng.nodes) == ("engine", "/x/fsf", "ucci", 20000)
    assert eng.options == (("Hash", "16"),)
    assert eng.name == "fsf20k"
    xb = PlayerSpec.parse("engine:/usr/games/maxqi,protocol=xboard,depth=3")
    assert (xb.protocol, xb.depth, xb.ranks) == ("xboard", 3, None)
    assert PlayerSpec.parse("engine:/s,protocol=ucci,ranks=1-10,depth=3").ranks == "1-10"
    assert PlayerSpec.parse("random").kind == "random"
    assert PlayerSpec.parse("greedy").name == "greedy"
    for bad in (
        "level:9",
        "level:x",
        "engine:/x",
        "engine:/x,nodes=1,Threads=4",
        "engine:/x,nodes=1,protocol=cecp",
        "engine:/x,nodes=1,protocol=ucci,ranks=1-9",
        "alphazero",
    ):
        with pytest.raises(PlayerSpecError):
            PlayerSpec.parse(bad)


def test_specs_are_hashable_and_renamable() -> None:
    a = PlayerSpec.parse("level:3")
    assert {a: 1}[PlayerSpec.parse("level:3")] == 1
    assert a.with_name("L3").name == "L3"


def test_greedy_takes_the_most_valuable_piece() -> None:
    # Red cannon b3 can take the horse b10 (via the screen b8) or the soldier... the
    # chariot on a9 is hanging to the Red chariot a1 up the open a-file.
    game = Game.from_fen("xiangqi", "1nbakabn1/r8/1c5c1/2p1p1p1p/9/9/2P1P1P1P/1C5C1/9/RNBAKABNR w")
    move = greedy_move(game, random.Random(1))
    assert move == "a1a9"  # the chariot (900) over the horse (400) b3b10


def test_greedy_wins_at_once_in_atomic() -> None:
    # A chariot taking the cannon on d8 blows up the general on d9 (docs/rules.md worked fact).
    fen = "9/3k5/3c5/9/9/9/9/9/9/3R1K3 w - - 0 1"
    game = Game.from_fen("atomic-xiangqi", fen)
    assert greedy_move(game, random.Random(0)) == "d1d8"


def test_shipped_suites_load() -> None:
    for variant in VARIANT_IDS:
        suite = load_openings(variant)
        assert len(suite) >= 200, variant
        assert default_suite(variant).exists()
        assert all(4 <= len(o.moves) <= 8 for o in suite)


def test_parse_openings_with_fen_and_errors() -> None:
    text = (
        "# a comment\n"
        "h3e3 h10g8  # +10cp\n"
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1 | b3e3\n"
    )
    suite = parse_openings("xiangqi", text)
    assert suite[0].moves == ("h3e3", "h10g8") and suite[0].comment == "+10cp"
    assert suite[1].fen is not None and suite[1].moves == ("b3e3",)
    with pytest.raises(OpeningError):
        parse_openings("xiangqi", "h3e3 h3e4\n")
    with pytest.raises(OpeningError):
        parse_openings("xiangqi", "# nothing\n")


def test_schedule_pairs_reverse_colours_on_the_same_opening() -> None:
    slots = schedule(n_openings=5, games=22, seed=3)
    assert len(slots) == 22
    assert schedule(n_openings=5, games=21, seed=3) == slots[:21]  # an odd count: not rounded up
    for k in range(0, len(slots), 2):
        first, second = slots[k], slots[k + 1]
        assert first.pair_no == second.pair_no == k // 2
        assert first.opening_no == second.opening_no
        assert first.a_is_red and not second.a_is_red
    # every opening once per pass through the suite
    firsts = [s.opening_no for s in slots[::2]]
    assert sorted(firsts[:5]) == list(range(5)) and sorted(firsts[5:10]) == list(range(5))


def test_schedule_is_seeded_and_grows_as_a_prefix() -> None:
    assert schedule(50, 10, 1) == schedule(50, 40, 1)[:10]
    assert schedule(50, 40, 1) != schedule(50, 40, 2)
