"""A level's choice among the engine's lines: one rule each (:func:`rule_for`).

A level's variety rule (:class:`ladder.levels.Variety`) names how the move is chosen
from the engine's search; each way is one :class:`ChoiceRule` here:

- :class:`BestMove`: the engine's best move (no variety, or a single line);
- :class:`WeightedPick`: a seeded pick among the lines, weight 1 within ``window_cp`` of
  the best and ``exp(-(loss - window_cp) / temperature_cp)`` beyond it (the top
  levels' opening variety, and the softmax mistake rule before the second look);
- :class:`SecondLook`: the weak levels' rule
  (:func:`ladder.level_engine.second_look.second_look_pick`);
- :class:`RandomMove`: with probability ``random_move_pct`` % a uniformly random legal
  move, else the rule it wraps (the ladder's first weak levels; kept for the levels
  files that still use it).

Every rule draws from one ``random.Random(seed)`` in a fixed order, so a level, a
position and a seed give one move wherever it is played.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from ladder.level_engine.engine_lines import Line, SearchResult
from ladder.level_engine.second_look import second_look_pick
from ladder.levels import Variety
from ladder.rules import Game

__all__ = [
    "BestMove",
    "Candidates",
    "Choice",
    "ChoiceRule",
    "RandomMove",
    "SecondLook",
    "WeightedPick",
    "rule_for",
]


@dataclass(frozen=True)
class Choice:
    """The move played, and the line that backs it."""

    move: str
    ponder: str | None
    line: Line | None


@dataclass(frozen=True)
class Candidates:
    """What a rule chooses from: the search's answer, its best line, the legal moves,
    what each capture takes at first sight and the position (the second look's)."""

    result: SearchResult
    best: Line | None  #: the line of the engine's bestmove (None: the search gave none)
    legal: frozenset[str]
    captures: Mapping[str, int]
    game: Game | None

    def lines(self) -> list[Line]:
        """One line per legal move the search reached, in MultiPV order (a line can be
        reported twice in odd cases: the first counts)."""
        by_move: dict[str, Line] = {}
        for ln in sorted(self.result.lines.values(), key=_multipv):
            pv = ln.pv
            if pv and pv[0] in self.legal and pv[0] not in by_move:
                by_move[pv[0]] = ln
        return list(by_move.values())

    def played(self, pick: Line) -> Choice:
        """``pick`` as the move played: the engine's own ponder move when it is the best."""
        ponder = pick.pv[1] if len(pick.pv) > 1 else None
        if pick.move == self.result.bestmove and self.result.ponder is not None:
            ponder = self.result.ponder
        return Choice(pick.move, ponder, pick)


class ChoiceRule(Protocol):
    """One way of choosing the move from a search."""

    def pick(self, c: Candidates, rng: random.Random) -> Choice: ...


@dataclass(frozen=True)
class BestMove:
    """The engine's best move, with its ponder move (the engine's, else its line's)."""

    def pick(self, c: Candidates, rng: random.Random) -> Choice:
        bestmove = c.result.bestmove
        assert bestmove is not None  # choose() returns before any rule without one
        ponder = c.result.ponder
        if ponder is None and c.best is not None and len(c.best.pv) > 1:
            ponder = c.best.pv[1]
        return Choice(bestmove, ponder, c.best)


@dataclass(frozen=True)
class WeightedPick:
    """A seeded pick among the lines: weight 1 within ``window_cp`` of the best line,
    ``exp(-(loss - window_cp) / temperature_cp)`` beyond it (0 with no temperature)."""

    window_cp: int
    temperature_cp: float

    def pick(self, c: Candidates, rng: random.Random) -> Choice:
        if c.best is None:
            return BestMove().pick(c, rng)
        top = c.best.value()
        lines = c.lines()
        weights = [self.weight(top - ln.value()) for ln in lines]
        chosen = c.best if sum(weights) <= 0 else rng.choices(lines, weights=weights)[0]
        return c.played(chosen)

    def weight(self, loss: int) -> float:
        """A line's weight: 1 within the window, decaying with the loss beyond."""
        excess = loss - self.window_cp
        if excess <= 0:
            return 1.0
        if self.temperature_cp <= 0:
            return 0.0
        return math.exp(-excess / self.temperature_cp)


@dataclass(frozen=True)
class SecondLook:
    """The weak levels' rule: :func:`ladder.level_engine.second_look.second_look_pick` over every
    legal move, those the engine's lines did not reach counted as bad as its worst."""

    variety: Variety

    def pick(self, c: Candidates, rng: random.Random) -> Choice:
        if c.best is None:
            return BestMove().pick(c, rng)
        lines = c.lines()
        # A player considers every move, also those the engine's lines did not reach in
        # its node budget: they count as bad as its worst line (multipv 0: no line).
        floor = min((ln.value() for ln in lines), default=0)
        seen = {ln.move for ln in lines}
        from chess.engine import Cp  # (python-chess: not imported for a book move)

        lines += [Line(0, (move,), Cp(floor), 0, 0) for move in sorted(c.legal - seen)]
        chosen = (
            second_look_pick(lines, c.best.value(), self.variety, c.captures, rng, c.game) or c.best
        )
        if chosen.multipv == 0:
            return Choice(chosen.move, None, None)
        return c.played(chosen)


@dataclass(frozen=True)
class RandomMove:
    """With probability ``pct`` % a uniformly random legal move, else ``then``'s."""

    pct: float
    then: ChoiceRule

    def pick(self, c: Candidates, rng: random.Random) -> Choice:
        if rng.random() * 100 < self.pct:
            move = rng.choice(sorted(c.legal))
            line = next((ln for ln in c.result.lines.values() if ln.pv and ln.move == move), None)
            return Choice(move, line.pv[1] if line and len(line.pv) > 1 else None, line)
        return self.then.pick(c, rng)


def rule_for(variety: Variety | None) -> ChoiceRule:
    """The rule a variety names (None: the best move)."""
    if variety is None:
        return BestMove()
    rule: ChoiceRule
    if variety.multipv < 2:
        rule = BestMove()
    elif variety.second_look is not None:
        rule = SecondLook(variety)
    else:
        rule = WeightedPick(variety.window_cp, variety.temperature_cp)
    return RandomMove(variety.random_move_pct, rule) if variety.random_move_pct > 0 else rule


def _multipv(line: Line) -> int:
    return line.multipv
