"""Counting game results: trinomial (W/D/L) and pentanomial (game-pair) tallies.

Engine matches are played in *game pairs*: the same opening is played twice with the
colours reversed.  Scoring each game from player A's point of view (win 1, draw 1/2,
loss 0), a pair scores 0, 1/2, 1, 3/2 or 2 for A.  The **pentanomial** count is the
number of pairs with each of those five totals::

    pair total   0     1/2    1          3/2    2
    bucket       LL    LD     DD + WL    WD     WW

(order inside a pair does not matter: LD means "one loss and one draw").  A pair "WL"
(A won one game and lost the other, typically each side winning with the favoured
colour) scores the same as two draws, so fishtest and fastchess merge the two into the
middle bucket.  This is the order fishtest's ``LLRcalc`` uses for its length-5
``results`` list (``LL, LD+DL, LW+DD+WL, DW+WD, WW``), and :meth:`Pentanomial.as_list`
returns it.

The **trinomial** count simply ignores the pairing: numbers of wins, draws and losses.
Its list form follows fishtest too: ``[L, D, W]``.

Why bother with pairs?  The two games of a pair are positively correlated (a lopsided
opening favours whoever has the good side in both games, so results like WL are more
common than independence predicts).  Treating the games as independent overstates the
variance of the match score; the pentanomial model estimates it from the pairs
themselves, giving tighter, still honest, error bars and faster SPRTs.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "PAIR_SCORES",
    "Pentanomial",
    "Trinomial",
    "pair_score",
    "pentanomial_from_pair_scores",
    "pentanomial_from_results",
    "trinomial_from_results",
]

#: The five possible pair totals, in pentanomial bucket order.
PAIR_SCORES: tuple[float, ...] = (0.0, 0.5, 1.0, 1.5, 2.0)

_VALID_GAME_SCORES = (0.0, 0.5, 1.0)


def _check_game_score(score: float) -> float:
    if score not in _VALID_GAME_SCORES:
        raise ValueError(f"game score must be 0, 0.5 or 1, got {score!r}")
    return float(score)


@dataclass(frozen=True, slots=True)
class Trinomial:
    """Win/draw/loss counts from one player's point of view."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    def __post_init__(self) -> None:
        if min(self.wins, self.draws, self.losses) < 0:
            raise ValueError(f"counts must be non-negative: {self}")

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        return self.wins + 0.5 * self.draws

    @property
    def score(self) -> float:
        """Mean score per game, ``(W + D/2) / N``."""
        if self.games == 0:
            raise ValueError("no games")
        return self.points / self.games

    @property
    def draw_ratio(self) -> float:
        """Fraction of games drawn, ``D / N``."""
        if self.games == 0:
            raise ValueError("no games")
        return self.draws / self.games

    def as_list(self) -> list[int]:
        """fishtest order: ``[L, D, W]``."""
        return [self.losses, self.draws, self.wins]

    def reversed(self) -> Trinomial:
        """The same games from the opponent's point of view."""
        return Trinomial(wins=self.losses, draws=self.draws, losses=self.wins)

    def __add__(self, other: Trinomial) -> Trinomial:
        return Trinomial(
            self.wins + other.wins, self.draws + other.draws, self.losses + other.losses
        )


@dataclass(frozen=True, slots=True)
class Pentanomial:
    """Game-pair counts ``[LL, LD, DD+WL, WD, WW]`` from one player's point of view."""

    ll: int = 0
    ld: int = 0
    dd_wl: int = 0
    wd: int = 0
    ww: int = 0

    def __post_init__(self) -> None:
        if min(self.as_list()) < 0:
            raise ValueError(f"counts must be non-negative: {self}")

    @classmethod
    def from_list(cls, counts: Sequence[int]) -> Pentanomial:
        """Build from fishtest order ``[LL, LD, DD+WL, WD, WW]``."""
        if len(counts) != 5:
            raise ValueError(f"need 5 counts, got {len(counts)}")
        return cls(*counts)

    @property
    def pairs(self) -> int:
        return sum(self.as_list())

    @property
    def games(self) -> int:
        return 2 * self.pairs

    @property
    def points(self) -> float:
        """Total points over all games: ``sum(count * pair_total)``."""
        return sum(c * s for c, s in zip(self.as_list(), PAIR_SCORES, strict=True))

    @property
    def score(self) -> float:
        """Mean score per game (= mean pair total / 2)."""
        if self.pairs == 0:
            raise ValueError("no pairs")
        return self.points / self.games

    def as_list(self) -> list[int]:
        """fishtest order: ``[LL, LD, DD+WL, WD, WW]``."""
        return [self.ll, self.ld, self.dd_wl, self.wd, self.ww]

    def reversed(self) -> Pentanomial:
        """The same pairs from the opponent's point of view."""
        return Pentanomial(self.ww, self.wd, self.dd_wl, self.ld, self.ll)

    def __add__(self, other: Pentanomial) -> Pentanomial:
        return Pentanomial(*(a + b for a, b in zip(self.as_list(), other.as_list(), strict=True)))


def pair_score(first: float, second: float) -> float:
    """Total score of a game pair for player A: the sum of A's two game scores."""
    return _check_game_score(first) + _check_game_score(second)


def pentanomial_from_pair_scores(pair_totals: Iterable[float]) -> Pentanomial:
    """Tally pair totals (each in {0, 0.5, 1, 1.5, 2}) into a :class:`Pentanomial`."""
    counts = [0, 0, 0, 0, 0]
    for total in pair_totals:
        index = 2 * total
        if index not in (0, 1, 2, 3, 4):
            raise ValueError(f"pair total must be one of {PAIR_SCORES}, got {total!r}")
        counts[int(index)] += 1
    return Pentanomial.from_list(counts)


def pentanomial_from_results(results: Sequence[float]) -> Pentanomial:
    """Pentanomial counts from A's game scores, consecutive games forming a pair.

    ``results[2k]`` and ``results[2k+1]`` are the two games of pair ``k`` (same opening,
    colours reversed), each scored 1/0.5/0 for A.  An odd number of games is an error:
    an unfinished pair has no pentanomial bucket.
    """
    if len(results) % 2:
        raise ValueError(f"need an even number of games, got {len(results)}")
    return pentanomial_from_pair_scores(
        pair_score(results[i], results[i + 1]) for i in range(0, len(results), 2)
    )


def trinomial_from_results(results: Iterable[float]) -> Trinomial:
    """W/D/L counts from A's game scores (1, 0.5 or 0)."""
    wins = draws = losses = 0
    for r in results:
        score = _check_game_score(r)
        if score == 1.0:
            wins += 1
        elif score == 0.5:
            draws += 1
        else:
            losses += 1
    return Trinomial(wins=wins, draws=draws, losses=losses)
