"""The three rule sets: API ids and their section names in variants.ini."""

from __future__ import annotations

from ladder.package_data import data_path

#: The rule sets for the engine (the repository's top-level file, built into the package).
VARIANTS_INI = data_path("variants.ini")

# The API id -> the variants.ini section. `xiangqi` is also a built-in FSF variant with
# other game-end rules (it punishes chasing), so ours has its own section name.
FSF_VARIANT: dict[str, str] = {
    "xiangqi": "mistboard-xiangqi",
    "atomic-xiangqi": "atomic-xiangqi",
    "crazyhouse-xiangqi": "crazyhouse-xiangqi",
}
VARIANT_IDS: tuple[str, ...] = tuple(FSF_VARIANT)
