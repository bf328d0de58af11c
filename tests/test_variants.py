"""The variant ids are defined once (ladder.variants); everything that lists the rule
sets agrees with that definition."""

from __future__ import annotations

import re
from typing import get_args

from ladder.rules.variants import VARIANT_SPECS
from ladder.service.models import MoveRequest, PositionRequest, VariantInfo
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
