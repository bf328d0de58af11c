"""The human reference on the ladder's scale (``ladder/human_reference.json``, made by
``scripts/measure_mistakes.py --source master --human-reference``): per level, its share
of the grandmaster's move and its mean loss on master positions, beside the masters'
own (docs/tuning.md, "A human reference on the scale")."""

from __future__ import annotations

import functools
import json
from typing import Any

from ladder.levels import Level, play_settings
from ladder.package_data import data_path

__all__ = ["human_reference"]


@functools.cache
def _human_reference() -> dict[str, Any]:
    path = data_path("human_reference.json")
    return dict(json.loads(path.read_text()))


def human_reference(variant: str, level: Level) -> dict[str, Any] | None:
    """The human reference of ``level`` in ``variant`` (``ladder/human_reference.json``,
    made by ``scripts/measure_mistakes.py --source master``): its share of the
    grandmaster's move and its mean loss on master positions, beside the masters' own
    mean loss against the same reference; None where the reference cannot judge it, or
    where it measured other settings than the level plays now (a retuned level's old
    figures would describe another player)."""
    data = _human_reference()
    row = data["variants"].get(variant, {}).get(str(level.level))
    if row is None or row.get("settings") != play_settings(level):
        return None
    row = {k: v for k, v in row.items() if k != "settings"}
    return {
        **row,
        "masters_mean_loss_cp": data["masters_mean_loss_cp"],
        "masters_mean_loss_ci": data["masters_mean_loss_ci"],
        "reference_nodes": data["reference_nodes"],
        "positions": data["positions"],
    }
