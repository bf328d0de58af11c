"""WXF move notation (``C2=5``, ``H8+7``, drops ``A@45``) as Fairy-Stockfish writes it.

``pyffish.get_san_moves`` with ``NOTATION_XIANGQI_WXF``, our variants.ini loaded. Used
by a match's PGN (:mod:`ladder.match.pgn`) and by ``POST /v1/position`` with
``"wxf": true`` (the /play page's move list). Should pyffish be missing or refuse a move
(an unpatched pyffish does not know the atomic explosion), that move and the rest are
given in canonical notation (``h3e3``).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from types import ModuleType

from ladder.variants import FSF_VARIANT, VARIANTS_INI

__all__ = ["pyffish_module", "wxf_moves"]


@lru_cache(maxsize=1)
def pyffish_module() -> ModuleType | None:
    """pyffish with our variants.ini loaded, or None where it is not installed."""
    try:
        import pyffish
    except ImportError:  # pragma: no cover - pyffish is part of `make engine`
        return None
    pyffish.load_variant_config(VARIANTS_INI.read_text())
    return pyffish


def wxf_moves(variant: str, start_fen: str, moves: Sequence[str]) -> list[str]:
    """WXF notation of ``moves`` from ``start_fen`` (canonical notation where pyffish
    cannot write a move: see the module docstring)."""
    sf = pyffish_module()
    if sf is None or not moves:
        return list(moves)
    section = FSF_VARIANT[variant]
    try:
        return list(
            sf.get_san_moves(section, start_fen, list(moves), False, sf.NOTATION_XIANGQI_WXF)
        )
    except ValueError:
        pass
    out: list[str] = []
    for i, move in enumerate(moves):
        try:
            out.append(
                sf.get_san(section, start_fen, move, False, sf.NOTATION_XIANGQI_WXF)
                if i == 0
                else sf.get_san_moves(
                    section, start_fen, list(moves[: i + 1]), False, sf.NOTATION_XIANGQI_WXF
                )[-1]
            )
        except ValueError:
            return out + list(moves[i:])
    return out
