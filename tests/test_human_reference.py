"""The human reference (``ladder/human_reference.json``) describes each level only as it
plays now."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import ladder
from ladder.human_reference import human_reference
from ladder.levels import LEVELS_FILE, load_levels


def test_the_human_reference_describes_only_the_settings_it_measured() -> None:
    shipped = load_levels(LEVELS_FILE)["xiangqi"]
    judged = [n for n in shipped if human_reference("xiangqi", shipped[n]) is not None]
    assert judged, "the shipped reference judges no level as it plays now"
    one = shipped[judged[0]]
    ref = human_reference("xiangqi", one)
    assert ref is not None and 0 <= ref["master_move_share"] <= 1 and "settings" not in ref
    # the same level retuned (another node count, or another mistake rule) has no reference
    assert human_reference("xiangqi", replace(one, nodes=one.nodes + 1)) is None
    assert human_reference("xiangqi", replace(one, variety=None)) is None


def test_every_level_the_reference_measured_is_described_as_it_plays_now() -> None:
    """A retuned level loses its reference (above): the shipped file is measured again
    with it (`scripts/measure_mistakes.py --source master ... --human-reference`, the
    command in its `method`), not left to describe fewer levels than it judged."""
    data = json.loads((Path(ladder.__file__).parent / "human_reference.json").read_text())
    shipped = load_levels(LEVELS_FILE)
    for variant, rows in data["variants"].items():
        stale = [n for n in rows if human_reference(variant, shipped[variant][int(n)]) is None]
        assert not stale, f"{variant}: the human reference of levels {stale} is stale"
