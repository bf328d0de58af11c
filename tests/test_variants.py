"""The variant ids are defined once (ladder.variants); everything that lists the rule
sets agrees with that definition."""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import get_args

from ladder.analysis.winchance import WIN_CHANCE_K
from ladder.level_engine.book import load_book
from ladder.level_engine.expected_time import NODES_PER_SECOND
from ladder.levels import load_levels
from ladder.package_data import data_path
from ladder.rules.variants import VARIANT_SPECS
from ladder.service.domain.models import MoveRequest, PositionRequest, VariantInfo
from ladder.variants import FSF_VARIANT, VARIANT_IDS, VARIANTS_INI


def test_the_rules_checker_implements_every_variant_in_order() -> None:
    assert tuple(VARIANT_SPECS) == VARIANT_IDS
    assert all(name == spec.name for name, spec in VARIANT_SPECS.items())


def test_the_service_schema_takes_exactly_the_variant_ids() -> None:
    for model in (MoveRequest, PositionRequest):
        assert get_args(model.model_fields["variant"].annotation) == VARIANT_IDS
    assert get_args(VariantInfo.model_fields["id"].annotation) == VARIANT_IDS
    enum = MoveRequest.model_json_schema()["properties"]["variant"]["enum"]
    assert tuple(enum) == VARIANT_IDS


def test_every_variant_has_its_variants_ini_section() -> None:
    assert tuple(FSF_VARIANT) == VARIANT_IDS
    sections = set(re.findall(r"^\[([^\]:]+)", VARIANTS_INI.read_text(), re.MULTILINE))
    assert set(FSF_VARIANT.values()) <= sections
    assert FSF_VARIANT["xiangqi"] == "mistboard-xiangqi"  # not FSF's built-in xiangqi


def test_every_per_variant_table_and_file_has_every_variant() -> None:
    """A new rule set (docs/architecture.md, "The cost of a change") fails here until
    every table and file kept per rule set has it."""
    tables: dict[str, Collection[str]] = {
        "ladder.rules.variants.VARIANT_SPECS": VARIANT_SPECS,
        "ladder.variants.FSF_VARIANT": FSF_VARIANT,
        "ladder.analysis.winchance.WIN_CHANCE_K": WIN_CHANCE_K,
        "ladder.level_engine.expected_time.NODES_PER_SECOND": NODES_PER_SECOND,
        "ladder/levels.toml": load_levels(),
    }
    for name, table in tables.items():
        assert set(table) == set(VARIANT_IDS), name
    for variant in VARIANT_IDS:
        assert (data_path("openings") / f"{variant}.txt").is_file(), variant
        assert load_book(variant) is not None, variant
