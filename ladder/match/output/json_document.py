"""Machine-readable results (``--json FILE``, ``--json -``).

The document is rewritten whole (to a temporary file, then renamed over the target, so
that a reader never sees half a document) at the end of a run and, for a file, every
``--json-interval`` games (:data:`JSON_INTERVAL` by default, as fastchess's
``-autosaveinterval``). ``-`` writes it once, at the end, to standard output (the human
report then goes to standard error). Its size does not grow with the match: it holds the
last :data:`JSON_GAMES` games (``games``) and says how many it left out
(``games_omitted``); every game is in the results database and the PGN file.

Shape (``schema`` 1): ``command``, ``status`` (``running``, ``done``, ``sprt-h0``,
``sprt-h1``, ``engine-failure``, ``aborted``, ``interrupted``), ``exit_code``,
``error`` (why a failed run failed, in one line), ``engine_failures`` (see
:class:`JsonOutput`),
``settings``, ``players`` and, for a match, ``result`` (:meth:`MatchStats.as_dict
<ladder.match.output.summary.MatchStats.as_dict>`: W/D/L, pentanomial, Elo with its interval,
nElo, LOS, LLR and bounds, endings by reason) and ``games`` (one record per game).
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path
from typing import Any, Protocol

from ladder.match.exit_codes import ExitCode
from ladder.match.game.adjudication import Adjudication
from ladder.match.game.endings import Ending
from ladder.match.game.play import GameRecord
from ladder.match.openings import Opening, suite_digest
from ladder.match.output.outputs import Output, OutputContext, StoredGames

__all__ = [
    "JSON_GAMES",
    "JSON_INTERVAL",
    "SCHEMA",
    "STATUS",
    "JsonOutput",
    "document_head",
    "game_entries",
    "game_entry",
    "json_output",
    "write_json",
]

SCHEMA = 1

#: Games between two writes of a ``--json`` file (``--json-interval``), as fastchess's
#: ``-autosaveinterval`` (its default is 50).
JSON_INTERVAL = 100

#: The most games a document lists (the last ones stored): its size stays bounded.
JSON_GAMES = 100

#: The ``status`` of a document for each exit code.
STATUS = {
    ExitCode.DONE: "done",
    ExitCode.ABORTED: "aborted",
    ExitCode.USAGE: "usage",
    ExitCode.ENGINE_FAILURE: "engine-failure",
    ExitCode.SPRT_H0: "sprt-h0",
    ExitCode.SPRT_H1: "sprt-h1",
    ExitCode.INTERRUPTED: "interrupted",
}


class RunSettings(Protocol):
    """What every match and tournament configuration has (read only)."""

    @property
    def variant(self) -> str: ...

    @property
    def seed(self) -> int: ...

    @property
    def openings(self) -> list[Opening]: ...

    @property
    def openings_order(self) -> str: ...

    @property
    def adjudication(self) -> Adjudication: ...


def document_head(
    command: str, code: ExitCode | None, config: RunSettings, **settings: Any
) -> dict[str, Any]:
    """The start of a document: the command, its status and exit code (None: still
    running), and the settings every run has (plus ``settings``)."""
    return {
        "command": command,
        "status": "running" if code is None else STATUS[code],
        "exit_code": None if code is None else int(code),
        "settings": {
            "variant": config.variant,
            "seed": config.seed,
            "openings": len(config.openings),
            "openings_digest": suite_digest(config.openings),
            "openings_order": config.openings_order,
            "adjudication": asdict(config.adjudication),
            **settings,
        },
    }


def game_entries(recent: Iterable[GameRecord], total: int) -> dict[str, Any]:
    """``games`` (the ``recent`` ones, by match and game number) and ``games_omitted``
    (the ``total`` less those)."""
    listed = sorted(recent, key=lambda r: (r.match_id, r.game_no))
    return {"games_omitted": total - len(listed), "games": [game_entry(r) for r in listed]}


def game_entry(record: GameRecord) -> dict[str, Any]:
    """One game of the ``games`` list."""
    return {
        "match": record.match_id,
        "game": record.game_no,
        "pair": record.pair_no,
        "opening": record.opening_no,
        "red": record.red,
        "black": record.black,
        "result": record.result,
        "winner": record.winner,
        "reason": record.reason,
        "plies": len(record.moves),
        "book_plies": record.book_plies,
        "start_fen": record.start_fen,
        "moves": record.moves,
        "search_seconds": record.search_seconds,
    }


def _clean(value: Any) -> Any:
    """JSON has no infinities or NaN: they become null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def write_json(target: str | Path, document: dict[str, Any]) -> None:
    """Write ``document`` to ``target`` (``-``: standard output) whole, atomically."""
    text = json.dumps({"schema": SCHEMA, **_clean(document)}, indent=2, allow_nan=False)
    if str(target) == "-":
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
        return
    path = Path(target)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text + "\n")
    tmp.replace(path)


class JsonOutput(Output):
    """``--json FILE``: the run's document every ``interval`` games stored and at the
    end; ``--json -``: at the end only. Beside the run's own document it says
    ``engine_failures`` (the games stored as lost to an engine failure, and the failure
    that stopped the run: a game over ``--max-engine-failures``, which is not stored, or
    an engine that failed the check before the first game) and ``error`` (why the run
    failed, in one line; None)."""

    def __init__(self, context: OutputContext, target: Path | str, interval: int):
        self.context, self.target, self.interval = context, target, interval
        self._since = 0
        self._failures = 0

    def start(self, stored: StoredGames) -> None:
        self._failures = stored.engine_failures

    def add(self, record: GameRecord) -> None:
        self._failures += record.reason == Ending.ENGINE_FAILURE
        if str(self.target) == "-":
            return
        self._since += 1
        if self._since >= self.interval:
            self._since = 0
            write_json(self.target, self._document(None))

    def finish(self, code: ExitCode) -> None:
        write_json(self.target, self._document(code))

    def _document(self, code: ExitCode | None) -> dict[str, Any]:
        stopped = code is ExitCode.ENGINE_FAILURE
        return {
            **self.context.run.document(code),
            "engine_failures": self._failures + stopped,
            "error": self.context.error,
        }


def json_output(context: OutputContext) -> Output | None:
    """The JSON output of a run that has ``--json``."""
    options = context.options
    if options.json_path is None:
        return None
    return JsonOutput(context, options.json_path, options.json_interval)
