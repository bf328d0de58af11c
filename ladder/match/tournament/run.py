"""Tournaments: a gauntlet or a round-robin of head-to-head matches, with a crosstable
and a Bradley-Terry rating list.

* **gauntlet**: the first player meets each of the others (cutechess-cli's
  ``-tournament gauntlet``: the engine under test against a field);
* **round-robin**: every player meets every other.

Each pairing is an ordinary match of the results database (:class:`MatchConfig`: paired
openings, colours reversed, its own match id), so a tournament resumes like a match, a
pairing already played as a match is reused, and the games run on the same process pool
or Ray backend. The games of all pairings are interleaved pair by pair, so an
interrupted tournament has measured every pairing a little.

The rating list is the calibration's fit (:func:`ladder.calibration.fit.bt_game`,
:func:`ladder.match.statistics.bradley_terry.fit_ladder`): logistic Elo with a Red advantage,
the anchor player (default: the first) at 0, and bootstrap intervals that resample game
pairs.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

from ladder.calibration.fit import bt_game
from ladder.match.config import MatchConfig
from ladder.match.exit_codes import ExitCode
from ladder.match.game.adjudication import Adjudication
from ladder.match.game.play import GameRecord, GameTask
from ladder.match.openings import Opening
from ladder.match.output.json_document import JSON_GAMES, document_head, game_entries
from ladder.match.output.store import ResultStore
from ladder.match.output.summary import MatchStats, MatchTally
from ladder.match.players.specs import PlayerSpec
from ladder.match.runner.execute import ExecuteResult
from ladder.match.runner.match_run import match_tasks, register_match
from ladder.match.runner.run_loop import RunOptions, run_games
from ladder.match.statistics.bradley_terry import GameResult, LadderFit
from ladder.match.tournament.crosstable import (
    Crosstable,
    crosstable,
    fit_dict,
    rating_list,
    ratings_text,
)

__all__ = [
    "FORMATS",
    "TournamentConfig",
    "TournamentPlan",
    "TournamentRun",
    "play_tournament",
]

FORMATS = ("gauntlet", "round-robin")


@dataclass
class TournamentConfig:
    """Who meets whom, in which variant, with how many games per pairing."""

    variant: str
    players: list[PlayerSpec]
    openings: list[Opening]
    format: str = "round-robin"
    games: int = 2  #: per pairing, rounded up to pairs
    seed: int = 1
    adjudication: Adjudication = field(default_factory=Adjudication)
    openings_order: str = "random"
    repeat: int = 2  #: see :class:`~ladder.match.config.MatchConfig`

    def __post_init__(self) -> None:
        if self.format not in FORMATS:
            raise ValueError(f"tournament format must be one of {FORMATS}, got {self.format!r}")
        if len(self.players) < 2:
            raise ValueError("a tournament needs at least two players")
        names = [p.name for p in self.players]
        if len(set(names)) != len(names):
            twice = sorted({n for n in names if names.count(n) > 1})
            raise ValueError(f"player names must differ (give name=...): {twice}")

    def pairings(self) -> list[tuple[PlayerSpec, PlayerSpec]]:
        """(A, B) of every match: the first player against each other (gauntlet), or
        every pair in list order (round-robin)."""
        if self.format == "gauntlet":
            return [(self.players[0], p) for p in self.players[1:]]
        return list(itertools.combinations(self.players, 2))

    def matches(self) -> list[MatchConfig]:
        return [
            MatchConfig(
                variant=self.variant,
                player_a=a,
                player_b=b,
                openings=self.openings,
                games=self.games,
                seed=self.seed,
                adjudication=self.adjudication,
                tag="tournament",
                openings_order=self.openings_order,
                repeat=self.repeat,
            )
            for a, b in self.pairings()
        ]

    def tasks(self, matches: Sequence[MatchConfig]) -> list[GameTask]:
        """Every match's games, interleaved pair by pair."""
        by_match = [match_tasks(m) for m in matches]
        out: list[GameTask] = []
        for k in range(0, max(len(t) for t in by_match), 2):
            for tasks in by_match:
                out += tasks[k : k + 2]
        return out


@dataclass
class TournamentRun:
    """What :func:`play_tournament` did."""

    engine_restarts: int  #: over every stored game
    crosstable: Crosstable
    fit: LadderFit | None
    pairings: list[MatchStats]
    result: ExecuteResult
    code: ExitCode
    error: str | None = None

    def report(self) -> str:
        order = (
            [r.name for r in self.fit.ranking()]
            if self.fit is not None
            else self.crosstable.players
        )
        parts = [self.crosstable.text(order)]
        if self.fit is not None:
            parts.append(ratings_text(self.fit))
        for stats in self.pairings:
            if stats.games:
                parts.append(stats.report())
        return "\n\n".join(parts)


class TournamentPlan:
    """A tournament as the run loop plays it (:class:`~ladder.match.runner.run_loop.RunPlan`):
    each pairing's figures kept game by game, and of each game only its result (a
    game whole is some 40 KB: a 100,000-game gauntlet is not held in memory); the
    crosstable and the rating list made from the results when the JSON document or the
    report asks for them."""

    def __init__(self, config: TournamentConfig, anchor: str, bootstrap: int):
        self.config, self.anchor, self.bootstrap = config, anchor, bootstrap
        self.matches = config.matches()
        self.match_ids = [m.match_id for m in self.matches]
        self.players = config.players
        self.variant = config.variant
        self.names = [p.name for p in config.players]
        self.description = f"{config.format} of {len(self.names)}"
        #: each game's result, by (match id, game number): the database's order
        self._results: list[tuple[tuple[str, int], GameResult]] = []
        self.recent: deque[GameRecord] = deque(maxlen=JSON_GAMES)  #: the JSON's games
        self._tallies = {
            m.match_id: MatchTally(m.player_a.name, m.player_b.name) for m in self.matches
        }
        self._tasks = config.tasks(self.matches)
        self.total = len(self._tasks)
        self._final_fit: tuple[bool, LadderFit | None] = (False, None)

    @property
    def games(self) -> int:
        return len(self._results)

    @property
    def decided(self) -> bool:
        return False

    def register(self, store: ResultStore) -> None:
        for m in self.matches:
            register_match(store, m)

    def tasks(self) -> list[GameTask]:
        return self._tasks

    def add(self, record: GameRecord) -> None:
        self._results.append(((record.match_id, record.game_no), bt_game(record)))
        self.recent.append(record)
        self._tallies[record.match_id].add(record)

    def figures(self, last: GameRecord | None) -> str:
        return "" if last is None else f"last: {last.red} {last.result} {last.black}"

    def status(self) -> str:
        return "games"

    def exit_code(self) -> ExitCode:
        return ExitCode.DONE

    def pairings(self) -> list[MatchStats]:
        """Each pairing's figures."""
        return [self._tallies[m.match_id].stats() for m in self.matches]

    def results(self) -> list[GameResult]:
        """The games' results by match and game number, as the database gives them."""
        return [result for _, result in sorted(self._results, key=itemgetter(0))]

    @property
    def engine_restarts(self) -> int:
        return sum(tally.engine_restarts for tally in self._tallies.values())

    def final_fit(self) -> LadderFit | None:
        """The rating list with its bootstrap intervals (made once, at the end)."""
        done, fit = self._final_fit
        if not done:
            fit = rating_list(self.results(), self.anchor, self.bootstrap, self.config.seed)
            self._final_fit = (True, fit)
        return fit

    def document(self, code: ExitCode | None) -> dict[str, Any]:
        results = self.results()
        fit = self.final_fit() if code is not None else rating_list(results, self.anchor)
        config = self.config
        head = document_head(
            "tournament", code, config, format=config.format, games_per_pairing=config.games
        )
        return {
            **head,
            "players": [{**p.describe(), **p.settings(config.variant)} for p in config.players],
            "pairings": [
                {"match_id": m.match_id, **s.as_dict()}
                for m, s in zip(self.matches, self.pairings(), strict=True)
            ],
            "crosstable": crosstable(results, self.names).as_dict(),
            "engine_restarts": self.engine_restarts,
            "ratings": fit_dict(fit),
            **game_entries(list(self.recent), self.games),
        }


def play_tournament(
    config: TournamentConfig,
    options: RunOptions,
    *,
    anchor: str | None = None,
    bootstrap: int = 200,
) -> TournamentRun:
    """Run (or resume) a tournament (:func:`run_games`); the crosstable and rating list
    cover every stored game of its pairings."""
    anchor = anchor or config.players[0].name
    if anchor not in [p.name for p in config.players]:
        raise ValueError(f"anchor {anchor!r} is not one of the players")
    plan = TournamentPlan(config, anchor, bootstrap)
    done = run_games(plan, options)
    return TournamentRun(
        plan.engine_restarts,
        crosstable(plan.results(), plan.names),
        plan.final_fit(),
        plan.pairings(),
        done.result,
        done.code,
        done.error,
    )
