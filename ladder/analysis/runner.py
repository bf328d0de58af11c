"""A whole game's analysis: every position evaluated (on one engine or several at once),
every ply assembled in order as soon as the two positions around it are done.

The evaluations are independent of each other (:mod:`ladder.analysis.search`), so the
positions are handed out to the evaluators in order and may finish in any order; a ply
is given out when its position and the next are evaluated. ``from_ply`` starts later in
the game (a resumed analysis): only the positions from the one before that ply are
evaluated. Closing the iterator (or cancelling its task) stops every search it started.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ladder.analysis.plies import PlyAnalysis, analyse_ply
from ladder.analysis.search import Evaluation, evaluate_outcome
from ladder.analysis.summary import SideSummary, summarise
from ladder.rules import Game, RulesError

__all__ = [
    "AnalysisInputError",
    "Evaluator",
    "GameAnalysis",
    "GamePositions",
    "analyse",
]

#: Evaluates a position of a game that is not over (a :class:`~ladder.rules.Game`,
#: which it must not change).
Evaluator = Callable[[Game], Awaitable[Evaluation]]


class AnalysisInputError(ValueError):
    """A game that cannot be analysed: a bad variant or FEN, or an illegal move (``ply``
    counts from 1 for the first move)."""

    def __init__(self, message: str, *, field: str, ply: int | None = None) -> None:
        super().__init__(message)
        self.field = field
        self.ply = ply


class GamePositions:
    """A game replayed by the rules checker: every position of it, the start first."""

    def __init__(self, variant: str, fen: str | None, moves: Sequence[str]) -> None:
        try:
            game = Game.from_fen(variant, fen)
        except RulesError as exc:
            raise AnalysisInputError(f"{exc.field}: {exc.reason}", field=exc.field) from None
        self.variant = game.variant.name
        self.start_fen = game.start_fen
        self.positions = [game.copy()]
        for ply, move in enumerate(moves, start=1):
            try:
                game.push(move)
            except RulesError as exc:
                raise AnalysisInputError(
                    f"moves[{ply - 1}] (ply {ply}): {exc.reason}",
                    field=f"moves[{ply - 1}]",
                    ply=ply,
                ) from None
            self.positions.append(game.copy())
        self.moves: tuple[str, ...] = tuple(game.moves)

    @property
    def plies(self) -> int:
        return len(self.moves)

    @property
    def red_first(self) -> bool:
        return self.positions[0].turn == "red"


@dataclass
class GameAnalysis:
    """A finished analysis: the plies and the per-side summary."""

    variant: str
    start_fen: str
    moves: tuple[str, ...]
    nodes: int
    plies: list[PlyAnalysis] = field(default_factory=list)

    @property
    def summary(self) -> dict[str, SideSummary]:
        return summarise(self.plies)

    def to_dict(self) -> dict[str, Any]:
        return {
            "variant": self.variant,
            "fen": self.start_fen,
            "moves": list(self.moves),
            "nodes": self.nodes,
            "plies": [p.to_dict() for p in self.plies],
            "summary": {side: s.to_dict() for side, s in self.summary.items()},
        }


async def analyse(
    game: GamePositions, evaluators: Sequence[Evaluator], from_ply: int = 1
) -> AsyncIterator[PlyAnalysis]:
    """The plies of ``game`` from ``from_ply`` on, in order, each as soon as it is done;
    the positions are evaluated by ``evaluators`` (one position at a time each)."""
    if not evaluators:
        raise ValueError("an analysis needs at least one evaluator")
    first = max(1, from_ply)
    todo = list(range(first - 1, game.plies + 1)) if first <= game.plies else []
    done: dict[int, Evaluation] = {}
    for index in list(todo):
        finished = evaluate_outcome(game.positions[index])
        if finished is not None:
            done[index] = finished
            todo.remove(index)
    pending = iter(todo)
    arrived = asyncio.Event()

    async def work(evaluate: Evaluator) -> None:
        for index in pending:  # shared: each index is taken by one worker
            done[index] = await evaluate(game.positions[index])
            arrived.set()

    tasks = [asyncio.ensure_future(work(e)) for e in evaluators]
    try:
        for ply in range(first, game.plies + 1):
            while ply - 1 not in done or ply not in done:
                failed = next((t for t in tasks if t.done() and t.exception()), None)
                if failed is not None:
                    failed.result()  # raises the evaluator's error
                arrived.clear()
                waiter = asyncio.ensure_future(arrived.wait())
                running = [t for t in tasks if not t.done()]
                await asyncio.wait([waiter, *running], return_when=asyncio.FIRST_COMPLETED)
                waiter.cancel()
            yield analyse_ply(
                game.positions[ply - 1], ply, game.moves[ply - 1], done[ply - 1], done[ply]
            )
            done.pop(ply - 1, None)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
