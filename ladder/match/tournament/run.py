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

The rating list is the calibration's fit (:func:`ladder.calibration.fit.bt_games`,
:func:`ladder.match.statistics.bradley_terry.fit_ladder`): logistic Elo with a Red advantage,
the anchor player (default: the first) at 0, and bootstrap intervals that resample game
pairs.
"""

from __future__ import annotations

import itertools
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from rich.console import Console

from ladder.match.config import MatchConfig
from ladder.match.exit_codes import ExitCode
from ladder.match.game.adjudication import Adjudication
from ladder.match.game.play import GameRecord, GameTask
from ladder.match.openings import Opening
from ladder.match.output.json_document import document_head, game_entry, write_json
from ladder.match.output.pgn_file import PgnWriter
from ladder.match.output.store import ResultStore
from ladder.match.output.summary import MatchStats, engine_restarts, match_stats
from ladder.match.players.player import PlayerError
from ladder.match.players.specs import PlayerSpec
from ladder.match.runner.execute import ExecuteResult, MatchError
from ladder.match.runner.match_run import (
    RunOptions,
    failure_code,
    match_tasks,
    progress_bar,
    register_match,
)
from ladder.match.statistics.bradley_terry import LadderFit
from ladder.match.tournament.crosstable import (
    Crosstable,
    crosstable,
    fit_dict,
    rating_list,
    ratings_text,
)

__all__ = ["FORMATS", "TournamentConfig", "TournamentRun", "play_tournament"]

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

    records: list[GameRecord]
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


def play_tournament(
    config: TournamentConfig,
    options: RunOptions,
    *,
    anchor: str | None = None,
    bootstrap: int = 200,
) -> TournamentRun:
    """Run (or resume) a tournament; the crosstable and rating list cover every stored
    game of its pairings."""
    console = options.console or Console(stderr=True)
    out = options.out or sys.stdout
    anchor = anchor or config.players[0].name
    if anchor not in [p.name for p in config.players]:
        raise ValueError(f"anchor {anchor!r} is not one of the players")
    names = [p.name for p in config.players]
    matches = config.matches()
    ids = [m.match_id for m in matches]
    with ResultStore(options.db) as store, store.playing(ids):
        for m in matches:
            register_match(store, m)
        records = list(store.records(ids))
        tasks = config.tasks(matches)
        bar = progress_bar(console)
        tid = bar.add_task(
            f"{config.format} of {len(names)}",
            total=len(tasks),
            completed=len(records),
            figures="",
        )
        writer = PgnWriter(options.pgn, store, ids)
        last_print = [time.monotonic()]

        def on_record(rec: GameRecord) -> bool:
            records.append(rec)
            writer.add(rec)
            fit = rating_list(records, anchor) if options.writes_json(False) else None
            _write_json(options, config, matches, records, None, fit)
            bar.update(tid, advance=1, figures=f"last: {rec.red} {rec.result} {rec.black}")
            if not console.is_terminal and time.monotonic() - last_print[0] > 10:
                last_print[0] = time.monotonic()
                print(f"[{len(records)}/{len(tasks)}] games", file=out, flush=True)
            return False

        result = ExecuteResult(skipped=min(len(records), len(tasks)))
        code = ExitCode.ABORTED
        error: str | None = None
        try:
            if len(records) < len(tasks):
                result = options.play(tasks, store, config.players, config.variant, bar, on_record)
            code = ExitCode.DONE
        except (PlayerError, MatchError) as exc:
            code, error = failure_code(exc), str(exc)
        except KeyboardInterrupt:
            code, error = ExitCode.INTERRUPTED, "interrupted"
            raise
        finally:
            writer.close()
            records = list(store.records(ids))
            fit = rating_list(records, anchor, bootstrap, config.seed)
            _write_json(options, config, matches, records, code, fit)
        stats = _pairing_stats(matches, records)
        return TournamentRun(records, crosstable(records, names), fit, stats, result, code, error)


def _pairing_stats(matches: Sequence[MatchConfig], records: list[GameRecord]) -> list[MatchStats]:
    """Each pairing's figures from the tournament's records."""
    by_id: dict[str, list[GameRecord]] = defaultdict(list)
    for r in records:
        by_id[r.match_id].append(r)
    return [match_stats(by_id[m.match_id], m.player_a.name, m.player_b.name) for m in matches]


def _write_json(
    options: RunOptions,
    config: TournamentConfig,
    matches: Sequence[MatchConfig],
    records: list[GameRecord],
    code: ExitCode | None,
    fit: LadderFit | None,
) -> None:
    """The ``--json`` document, when it is due (after a game, or at the end: ``code``)."""
    if not options.writes_json(code is not None):
        return
    assert options.json_path is not None
    head = document_head(
        "tournament", code, config, format=config.format, games_per_pairing=config.games
    )
    names = [p.name for p in config.players]
    document = {
        **head,
        "players": [{**p.describe(), **p.settings(config.variant)} for p in config.players],
        "pairings": [
            {"match_id": m.match_id, **s.as_dict()}
            for m, s in zip(matches, _pairing_stats(matches, records), strict=True)
        ],
        "crosstable": crosstable(records, names).as_dict(),
        "engine_restarts": engine_restarts(records),
        "ratings": fit_dict(fit),
        "games": [game_entry(r) for r in records],
    }
    write_json(options.json_path, document)
