"""The three rule sets and what distinguishes them for the move generator."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from ladder.rules.board import ADVISOR_MOVES_HALF, ADVISOR_MOVES_PALACE
from ladder.rules.errors import RulesError
from ladder.variants import VARIANT_IDS, VariantId

XIANGQI_START: Final = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
CRAZYHOUSE_START: Final = (
    "rn2k2nr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RN2K2NR[AABBaabb] w - - 0 1"
)


@dataclass(frozen=True)
class VariantSpec:
    """One rule set.

    Attributes:
        name: the API id (:data:`ladder.variants.VARIANT_IDS`).
        atomic: captures explode (docs/rules.md "atomic-xiangqi"); check is the wide sense.
        drops: hands, drops and captures-to-hand (docs/rules.md "crazyhouse-xiangqi");
            advisors and elephants are free on their own half.
        start_fen: the standard start position.
    """

    name: VariantId
    atomic: bool
    drops: bool
    start_fen: str

    @property
    def advisor_moves(self) -> tuple[tuple[tuple[int, ...], ...], ...]:
        """Advisor step table ``[colour][point]`` for this rule set."""
        return ADVISOR_MOVES_HALF if self.drops else ADVISOR_MOVES_PALACE


XIANGQI: Final = VariantSpec("xiangqi", atomic=False, drops=False, start_fen=XIANGQI_START)
ATOMIC: Final = VariantSpec("atomic-xiangqi", atomic=True, drops=False, start_fen=XIANGQI_START)
CRAZYHOUSE: Final = VariantSpec(
    "crazyhouse-xiangqi", atomic=False, drops=True, start_fen=CRAZYHOUSE_START
)
VARIANT_SPECS: Final[dict[str, VariantSpec]] = {v.name: v for v in (XIANGQI, ATOMIC, CRAZYHOUSE)}


def get_variant(name: object) -> VariantSpec:
    """The rule set with API id ``name``; RulesError(field="variant") for anything else."""
    if not isinstance(name, str) or name not in VARIANT_SPECS:
        shown = repr(name)[:40]
        raise RulesError("variant", f"unknown variant {shown}; expected one of {list(VARIANT_IDS)}")
    return VARIANT_SPECS[name]
