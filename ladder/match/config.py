"""One head-to-head match, as ``ladder match`` (and each pairing of a tournament or a
calibration) describes it: :class:`MatchConfig`, a plain typed model. Its
:meth:`~MatchConfig.identity` is everything that decides the games; the match id is
its digest, so running the same command again resumes the same match."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import Any

from ladder.match.game.adjudication import Adjudication
from ladder.match.openings import Opening, suite_digest
from ladder.match.players.specs import PlayerSpec
from ladder.match.statistics.sprt import Sprt

__all__ = ["MatchConfig"]


@dataclass(frozen=True)
class MatchConfig:
    """One head-to-head match (``ladder match``): players A and B, paired openings with
    colours reversed, a seed for every game. ``tag`` says which command made it
    (``match``, ``tournament``, ``calibrate:<variant>``); ``name`` replaces the derived
    match id."""

    variant: str
    player_a: PlayerSpec
    player_b: PlayerSpec
    openings: list[Opening]
    games: int = 100
    seed: int = 1
    adjudication: Adjudication = field(default_factory=Adjudication)
    sprt: Sprt | None = None
    tag: str = "match"
    name: str | None = None
    openings_order: str = "random"  #: "random" or "sequential" (see openings.schedule)
    repeat: int = 2  #: 2: each opening twice, colours swapped; 1: a new one every game

    def identity(self) -> dict[str, Any]:
        """What decides the games (the match id is its digest; ``games`` is not part of
        it, so a bigger ``--games`` extends a match)."""
        ident: dict[str, Any] = {
            "variant": self.variant,
            "a": self.player_a.identity_text(),
            "b": self.player_b.identity_text(),
            "a_name": self.player_a.name,
            "b_name": self.player_b.name,
            "openings": suite_digest(self.openings),
            "seed": self.seed,
            "adjudication": asdict(self.adjudication),
        }
        if self.adjudication.draw_streak == "after":  # the ids from before it stay
            del ident["adjudication"]["draw_streak"]
        # Only when set, so that the ids of matches without them stay as they were.
        for key, spec in (("a_settings", self.player_a), ("b_settings", self.player_b)):
            if settings := spec.settings(self.variant):
                ident[key] = settings
        if self.openings_order != "random":
            ident["openings_order"] = self.openings_order
        if self.repeat != 2:
            ident["repeat"] = self.repeat
        return ident

    def digest(self) -> str:
        """Short digest of :meth:`identity`."""
        return hashlib.sha256(json.dumps(self.identity(), sort_keys=True).encode()).hexdigest()[:10]

    @property
    def match_id(self) -> str:
        if self.name:
            return self.name
        return f"{self.variant}:{self.player_a.name}-vs-{self.player_b.name}:{self.digest()}"
