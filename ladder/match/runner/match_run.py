"""``ladder match``: one head-to-head match from a :class:`~ladder.match.config.MatchConfig`.

:func:`match_tasks` schedules its games (paired openings, colours reversed, a seed per
game); :class:`MatchPlan` is the match as the run loop
(:func:`~ladder.match.runner.run_loop.run_games`, shared with tournaments) plays it: its
registration, its running figures and its JSON document; :func:`play_match` runs it.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ladder.match.config import MatchConfig
from ladder.match.exit_codes import ExitCode
from ladder.match.game.play import GameRecord, GameTask
from ladder.match.openings import schedule
from ladder.match.output.json_document import JSON_GAMES, document_head, game_entries
from ladder.match.output.pgn import PgnOptions
from ladder.match.output.store import MatchConflict, ResultStore
from ladder.match.output.summary import MatchStats, MatchTally
from ladder.match.runner.execute import ExecuteResult
from ladder.match.runner.run_loop import RunOptions, run_games
from ladder.match.statistics.sprt import SprtDecision
from ladder.seeds import derive_seed

__all__ = [
    "MatchPlan",
    "MatchRun",
    "RunOptions",
    "match_document",
    "match_exit_code",
    "match_tasks",
    "play_match",
    "register_match",
    "run_match",
]


def match_tasks(config: MatchConfig) -> list[GameTask]:
    """The scheduled games of a match, in order (:func:`~ladder.match.openings.schedule`)."""
    mid = config.match_id
    out = []
    order, repeat = config.openings_order, config.repeat
    for slot in schedule(len(config.openings), config.games, config.seed, order, repeat):
        a, b = config.player_a, config.player_b
        red, black = (a, b) if slot.a_is_red else (b, a)
        out.append(
            GameTask(
                match_id=mid,
                game_no=slot.game_no,
                pair_no=slot.pair_no,
                opening_no=slot.opening_no,
                variant=config.variant,
                opening=config.openings[slot.opening_no],
                red=red,
                black=black,
                red_slot="A" if slot.a_is_red else "B",
                seed=derive_seed(config.seed, mid, slot.game_no),
                adjudication=config.adjudication,
                event=f"ladder {config.tag}",
            )
        )
    return out


def register_match(store: ResultStore, config: MatchConfig) -> None:
    """Record the match and its settings in the results database (once; a resumed
    match finds itself there). A match named on the command line (``--name``,
    cutechess's ``-event``) that the database holds with other settings is a
    :class:`MatchConflict`: its games would be counted as this match's."""
    stored = store.stored_config(config.match_id)
    if stored is not None and config.name is not None and config.tag == "match":
        now = json.loads(json.dumps(config.identity()))  # as stored: lists, not tuples
        stored.pop("games", None)
        differ = sorted(k for k in stored.keys() | now.keys() if stored.get(k) != now.get(k))
        if differ:
            raise MatchConflict(
                f"--name {config.name}: {store.path} holds a match of that name played "
                f"with other settings ({', '.join(differ)} differ); give this one another "
                "--name (cutechess: -event), or another --db"
            )
    store.ensure_match(
        config.match_id,
        tag=config.tag,
        variant=config.variant,
        player_a=config.player_a.name,
        player_b=config.player_b.name,
        config={**config.identity(), "games": config.games},
    )


def match_exit_code(stats: MatchStats) -> ExitCode:
    """DONE, or the SPRT's decision."""
    if stats.sprt is not None and stats.sprt.decision is SprtDecision.H0:
        return ExitCode.SPRT_H0
    if stats.sprt is not None and stats.sprt.decision is SprtDecision.H1:
        return ExitCode.SPRT_H1
    return ExitCode.DONE


def match_document(
    config: MatchConfig, stats: MatchStats, recent: Sequence[GameRecord], code: ExitCode | None
) -> dict[str, Any]:
    """The ``--json`` document of a match (:mod:`ladder.match.output.json_document`)."""
    head = document_head(
        "match",
        code,
        config,
        games=config.games,
        sprt=None if config.sprt is None else asdict(config.sprt),
    )
    return {
        **head,
        "match_id": config.match_id,
        "players": {
            "a": {**config.player_a.describe(), **config.player_a.settings(config.variant)},
            "b": {**config.player_b.describe(), **config.player_b.settings(config.variant)},
        },
        "result": stats.as_dict(),
        **game_entries(recent, stats.games),
    }


@dataclass
class MatchRun:
    """What :func:`play_match` did: the figures over all stored games, this run's work,
    and the exit code."""

    stats: MatchStats
    result: ExecuteResult
    code: ExitCode
    error: str | None = None  #: the one-line reason when the code is a failure


class MatchPlan:
    """A match as the run loop plays it (:class:`~ladder.match.runner.run_loop.RunPlan`):
    its figures kept game by game (:class:`MatchTally`)."""

    def __init__(self, config: MatchConfig):
        self.config = config
        self.tally = MatchTally(config.player_a.name, config.player_b.name, config.sprt)
        self.recent: deque[GameRecord] = deque(maxlen=JSON_GAMES)  #: the JSON's games
        # made when asked, not after every game: the outputs ask for them once in a
        # while (a status line, a JSON document), the SPRT stop asks the tally alone
        self._stats: MatchStats | None = None
        self.total = config.games
        self.players = [config.player_a, config.player_b]
        self.variant = config.variant
        self.match_ids = [config.match_id]
        self.description = f"{config.player_a.name} vs {config.player_b.name}"

    @property
    def games(self) -> int:
        return self.tally.games

    @property
    def stats(self) -> MatchStats:
        if self._stats is None:
            self._stats = self.tally.stats()
        return self._stats

    @property
    def decided(self) -> bool:
        return self.tally.decided

    def register(self, store: ResultStore) -> None:
        register_match(store, self.config)

    def tasks(self) -> list[GameTask]:
        return match_tasks(self.config)

    def add(self, record: GameRecord) -> None:
        self.tally.add(record)
        self.recent.append(record)
        self._stats = None

    def figures(self, last: GameRecord | None) -> str:
        return self.stats.line()

    def status(self) -> str:
        return self.stats.line()

    def document(self, code: ExitCode | None) -> dict[str, Any]:
        return match_document(self.config, self.stats, list(self.recent), code)

    def exit_code(self) -> ExitCode:
        return match_exit_code(self.stats)


def run_match(
    config: MatchConfig, *, pgn: Path | str | PgnOptions | None = None, **options: Any
) -> tuple[MatchStats, ExecuteResult]:
    """Run (or resume) a match; returns its figures over all stored games and what this
    run did; a failure raises. ``options``: those of :class:`RunOptions`."""
    pgn_options = PgnOptions(Path(pgn)) if isinstance(pgn, str | Path) else pgn
    plan = MatchPlan(config)
    done = run_games(plan, RunOptions(pgn=pgn_options, **options))
    if done.failure is not None:
        raise done.failure
    return plan.stats, done.result


def play_match(config: MatchConfig, options: RunOptions) -> MatchRun:
    """Run (or resume) a match and say how it ended (:func:`run_games`)."""
    plan = MatchPlan(config)
    done = run_games(plan, options)
    return MatchRun(plan.stats, done.result, done.code, done.error)
