"""Move generation: our xiangqi's perft, and stock variants unchanged by the patch."""

from __future__ import annotations

import pytest

from .fsf_uci import UciEngine

XIANGQI = "mistboard-xiangqi"


@pytest.mark.parametrize(("depth", "nodes"), [(1, 44), (2, 1_920), (3, 79_666)])
def test_xiangqi_start_perft(fsf: UciEngine, depth: int, nodes: int) -> None:
    """docs/rules.md worked facts: xiangqi start position perft 44, 1,920, 79,666."""
    fsf.variant(XIANGQI)
    fsf.position()
    assert fsf.perft(depth) == nodes


def test_xiangqi_start_perft_4(fsf: UciEngine) -> None:
    """docs/rules.md worked facts: depth 4 = 3,290,240 (about a second with a -O2 build)."""
    fsf.variant(XIANGQI)
    fsf.position()
    assert fsf.perft(4, timeout=120) == 3_290_240


def test_xiangqi_section_does_not_fall_back_to_builtin(fsf: UciEngine) -> None:
    """Our section is loaded (UCI_Variant accepts it) and is not the built-in xiangqi."""
    out = fsf.variant(XIANGQI)
    assert not any("No such variant" in line for line in out)
    fsf.position()
    assert fsf.fen() == "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"


# Stock variants whose code paths the patch touches (explosions, pseudo-royal kings, drops,
# the n-move rule), in opening and tactical positions. Patched and unpatched must agree on
# every move's subtree count.
STOCK_CASES = [
    ("chess", None, 4),
    ("chess", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 3),
    ("atomic", None, 4),
    ("atomic", "rnbqkb1r/pp2pppp/5n2/2pp4/3P4/2N5/PPP1PPPP/R1BQKBNR w KQkq - 0 4", 3),
    ("atomic", "r3k2r/p1pp1pb1/bn2Qnp1/2qPN3/1p2P3/2N5/PPPBBPPP/R3K2R b KQkq - 3 2", 3),
    ("atomic", "8/8/8/8/3k4/3K4/8/8 w - - 0 1", 5),
    ("nocheckatomic", None, 3),
    ("atomar", None, 3),
    ("xiangqi", None, 3),
    ("xiangqi", "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1", 3),
    ("crazyhouse", None, 3),
    ("crazyhouse", "r1b1k2r/ppp2ppp/2n5/3np3/3P4/2PBP3/PP3PPP/RN2K1NR[QBbq] w KQkq - 0 9", 2),
    ("shogi", None, 3),
]


@pytest.mark.parametrize(("variant", "fen", "depth"), STOCK_CASES)
def test_stock_variants_unchanged(
    fsf: UciEngine, stock_fsf: UciEngine, variant: str, fen: str | None, depth: int
) -> None:
    for engine in (fsf, stock_fsf):
        engine.variant(variant)
        engine.position(fen)
    patched, stock = fsf.perft_divide(depth, timeout=60), stock_fsf.perft_divide(depth, timeout=60)
    assert patched[1] > 0
    assert patched == stock
