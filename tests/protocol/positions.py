"""The variants file and the xiangqi positions the real-engine protocol tests search."""

from __future__ import annotations

from pathlib import Path

VARIANTS_INI = Path(__file__).resolve().parents[2] / "variants.ini"
START = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
# Red to move: Rb1-b10 mates (a9 guards rank 9, the d-file faces Red's general).
MATE_IN_1 = "4k4/R8/9/9/9/9/9/9/9/1R1K5 w - - 0 1"
# ... and after it: Black to move, checkmated.
CHECKMATED = "1R2k4/R8/9/9/9/9/9/9/9/3K5 b - - 1 1"
