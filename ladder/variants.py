"""The three rule sets: their API ids (defined here and nowhere else) and their section
names in variants.ini."""

from __future__ import annotations

from typing import Final, Literal, get_args

from ladder.package_data import data_path

#: The rule sets for the engine (the repository's top-level file, built into the package).
VARIANTS_INI = data_path("variants.ini")

#: The API id of a rule set. The rules checker, the service's request schema and the CLI
#: all take their lists from here.
VariantId = Literal["xiangqi", "atomic-xiangqi", "crazyhouse-xiangqi"]
VARIANT_IDS: Final[tuple[VariantId, ...]] = get_args(VariantId)

# The API id -> the variants.ini section. `xiangqi` is also a built-in FSF variant with
# other game-end rules (it punishes chasing), so ours has its own section name.
FSF_VARIANT: Final[dict[str, str]] = {
    **{variant: variant for variant in VARIANT_IDS},
    "xiangqi": "mistboard-xiangqi",
}
