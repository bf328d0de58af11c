"""What of a level goes into a match's id beyond its spec's text: its engine settings from
the levels file, so that a retuned level is a new player in the results database.

What this gives for a level that already exists must never change, or stored matches
(calibration's among them) would no longer be found: a field added later is left out
where it has its "not used" value.
"""

from __future__ import annotations

from ladder.level_engine.book import book_digest
from ladder.levels import Level, Variety, variety_table

__all__ = ["level_identity"]


def level_identity(level: Level, variant: str) -> dict[str, object]:
    """The settings of ``level`` (as ``variant`` plays it) that decide its moves."""
    out: dict[str, object] = {
        "nodes": level.nodes,
        "hash_mb": level.hash_mb,
        "variety": _variety_settings(level.variety),
    }
    if level.book:  # (absent for a level without a book: the ids stored before stay)
        out["book"] = book_digest(variant)
    if level.blend is not None:  # an Elo between a mistake level and a full search
        b = level.blend.stronger
        out["blend"] = {
            "weight": round(level.blend.weight, 6),
            "nodes": b.nodes,
            "hash_mb": b.hash_mb,
            "variety": _variety_settings(b.variety),
        }
    return out


#: Variety fields added after match ids were first stored, with the value that means
#: "not used": a rule that uses none of them leaves them out of its settings, so the ids
#: stored before them stay the same (a rule that uses one keeps them all).
_LATER_VARIETY_FIELDS = {"second_look": None, "reject_cp": 0, "node_jitter_pct": 0.0}


def _variety_settings(variety: Variety | None) -> dict[str, object] | None:
    """A variety rule as it goes into a level's settings (and so its match ids)."""
    if variety is None:
        return None
    table = variety_table(variety)
    if all(table.get(k) == v for k, v in _LATER_VARIETY_FIELDS.items()):  # a rule from before
        return {k: v for k, v in table.items() if k not in _LATER_VARIETY_FIELDS}
    return table
