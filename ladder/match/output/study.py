"""``ladder study``: annotated games and a per-match summary, for the site's designers.

For each game of the matches (from the results database) or PGN files given:

* every atomic capture is marked with what it removed (the rules checker's board before
  and after the move): ``explosion on d8 removed: Red chariot d1 (the capturer), Black
  cannon d8, Black general d9``; a cannon's capture is a ``cannon shot``;
* every crazyhouse drop that gave check is marked (``drop gives check``);
* the decisive move: a reference engine (a player spec, default
  ``level:8,variety=off``) evaluates every position of the game, through the analysis
  core that ``ladder analyse`` and the service's analysis use (:mod:`ladder.analysis`:
  the rules notes above are its too); the move after which the mover's win chance fell
  the most is marked, with the evaluation before and after and the move the engine
  preferred. Win chances come from the evaluation by lichess's logistic curve
  (:mod:`ladder.analysis.winchance`), so that a swing from +0.3 to -4.5 counts and one
  from +9 to +15 does not.

The summary, one row per match: games, draw rate, Red's score, mean length in plies,
and the endings by reason: the table a designer compares between two rule variants.
"""

from __future__ import annotations

import asyncio
import calendar
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from rich.console import Console

from ladder.analysis.pgn import eval_text
from ladder.analysis.plies import PlyAnalysis
from ladder.analysis.runner import GamePositions, analyse
from ladder.analysis.search import Evaluation, checked_line
from ladder.match.exit_codes import ExitCode
from ladder.match.game.endings import Ending, from_rules
from ladder.match.game.move_record import MoveRecord
from ladder.match.game.play import GameRecord
from ladder.match.output.json_document import write_json
from ladder.match.output.pgn import PgnError, format_pgn, pgn_move, read_pgn, replay
from ladder.match.output.progress import StatusLines, progress_bar
from ladder.match.output.store import ResultStore
from ladder.match.output.summary import MatchStats, match_stats
from ladder.match.players.player import SearchingPlayer
from ladder.match.players.specs import PlayerSpec, PlayerSpecError, parse_player
from ladder.match.players.start import make_player
from ladder.notation.pgn_text import DECIDED_RESULTS
from ladder.rules import Game, RulesError
from protocol import EngineError, Limit

__all__ = [
    "GameNotes",
    "StudyError",
    "decisive_move",
    "load_games",
    "run_study",
    "summary_table",
]


class StudyError(Exception):
    """A study that cannot be made: a bad source, a reference engine that fails."""

    def __init__(self, message: str, code: ExitCode = ExitCode.USAGE) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class GameNotes:
    """What the study says about one game: the analysis core's plies and the notes."""

    plies: list[PlyAnalysis] = field(default_factory=list)
    decisive: tuple[int, str] | None = None  #: (ply index, note)

    def notes(self) -> dict[int, str]:
        """The comment text per ply index: the rules' notes, then the decisive move's."""
        out = {p.ply - 1: p.note for p in self.plies if p.note is not None}
        if self.decisive is not None:
            ply, text = self.decisive
            out[ply] = f"{out[ply]}; {text}" if ply in out else text
        return out


def decisive_move(
    record: GameRecord, plies: Sequence[PlyAnalysis], notation: str = "wxf"
) -> tuple[int, str] | None:
    """The move whose mover's win chance fell the most (book moves excluded), with a
    note; None when no move lost 5 points or more."""
    candidates = [p for p in plies if p.ply > record.book_plies and p.drop >= 0.05]
    if not candidates:
        return None
    worst = max(candidates, key=lambda p: p.drop)
    text = (
        f"decisive: the evaluation went from {eval_text(worst.before)} to {eval_text(worst.after)}"
    )
    best = worst.before.best
    if best is not None and best != worst.move:
        shown = worst.best_wxf
        if notation != "wxf":  # written in the position it was best in
            before = Game.from_fen(record.variant, record.start_fen, record.moves[: worst.ply - 1])
            shown = pgn_move(notation, before, best)
        text += f"; the engine preferred {shown}"
    return worst.ply - 1, text


class Reference:
    """The reference engine: one search per position, from a player spec; it evaluates
    the positions of the analysis core (:mod:`ladder.analysis`)."""

    def __init__(self, spec: PlayerSpec, nodes: int | None) -> None:
        player = make_player(spec)
        if not isinstance(player, SearchingPlayer):
            raise StudyError(f"the reference must be an engine or a level, not {spec.text!r}")
        self.player = player
        self.spec = spec
        self.nodes = nodes

    def limit(self, variant: str) -> Limit:
        if self.nodes is not None:
            return Limit(nodes=self.nodes)
        limit = self.player.reference_limit(variant)
        if limit.infinite:
            raise StudyError(f"the reference {self.spec.text!r} needs nodes=, depth= or movetime=")
        return limit

    async def analyse(self, record: GameRecord) -> list[PlyAnalysis]:
        """Every ply of the game, by the analysis core on this engine."""
        limit = self.limit(record.variant)

        async def evaluate(game: Game) -> Evaluation:
            result = await self.player.evaluate(game, limit)
            score = result.info.get("score")
            cp = mate = None
            if score is not None:
                red_view = score.white()  # the player reports Red as White
                cp, mate = red_view.score(), red_view.mate()
            line = tuple(result.info.get("pv") or ()) or ((result.move,) if result.move else ())
            return Evaluation(
                cp=cp,
                mate=mate,
                best=result.move,
                pv=checked_line(game, line),
                depth=int(result.info.get("depth", 0)),
                nodes=int(result.info.get("nodes", 0)),
            )

        positions = GamePositions(record.variant, record.start_fen, record.moves)
        return [ply async for ply in analyse(positions, [evaluate])]


def _record_from_pgn(parsed: Any, index: int, source: str, variant: str | None) -> GameRecord:
    if variant is None and "Variant" not in parsed.headers:
        variant = "xiangqi"  # a game with no rule set named is plain xiangqi (see --variant)
    game = replay(parsed, variant)
    h = parsed.headers
    comments = parsed.comments
    book = 0
    while book < len(comments) and comments[book] == "book":
        book += 1
    outcome = game.outcome()
    result = h.get("Result", parsed.result or "*")
    # Without a Termination tag: the rules' ending, else the result's word alone (a
    # resignation, a clock, an adjudication), else none yet.
    unruled = Ending.RESULT_TAG if result in DECIDED_RESULTS else Ending.UNTERMINATED
    reason = h.get("Termination") or (from_rules(outcome.reason) if outcome else unruled)
    return GameRecord(
        match_id=h.get("Match") or source,
        game_no=int(h["GameNo"]) if h.get("GameNo", "").isdigit() else index,
        pair_no=index // 2,
        opening_no=_opening_no(h),
        opening="" if h.get("Opening", "").lstrip("#").isdigit() else h.get("Opening", ""),
        variant=game.variant.name,
        red=h.get("Red") or h.get("White") or "?",
        black=h.get("Black") or "?",
        red_slot="A",
        start_fen=game.start_fen,
        book_plies=book,
        moves=game.moves,
        # each move's own comment ([%eval], "random move"...), kept as it was written
        infos=[MoveRecord(comment=c) if c else MoveRecord() for c in comments[book:]],
        result=result,
        winner={"1-0": "red", "0-1": "black"}.get(result),
        reason=reason,
        search_seconds={"red": 0.0, "black": 0.0},
        wall_seconds=0.0,
        worker=h.get("Site", "?"),
        finished_at=_date(h.get("Date", "")),
    )


def _opening_no(headers: dict[str, str]) -> int:
    """The opening's number as format_pgn writes it (``OpeningNo``, or a bare number
    or ``#N`` in ``Opening``), 0 without one."""
    for text in (headers.get("OpeningNo", ""), headers.get("Opening", "").lstrip("#")):
        if text.isdigit():
            return int(text)
    return 0


def _date(text: str) -> float:
    """A PGN ``Date`` tag as a Unix time (today's when it has no full date)."""
    try:
        return calendar.timegm(time.strptime(text, "%Y.%m.%d"))
    except ValueError:
        return time.time()


def load_games(
    sources: Sequence[str], db: Path, variant: str | None
) -> list[tuple[str, list[GameRecord]]]:
    """(label, games) per match: a PGN file's games grouped by their ``Match`` tag, or a
    match of the database by its id or a unique prefix of it."""
    out: dict[str, list[GameRecord]] = defaultdict(list)
    for source in sources:
        path = Path(source)
        if path.is_file():
            try:
                parsed_games = list(read_pgn(path.read_text()))
                for i, parsed in enumerate(parsed_games):
                    record = _record_from_pgn(parsed, i, path.name, variant)
                    out[record.match_id].append(record)
            except (OSError, UnicodeDecodeError, PgnError, RulesError) as exc:
                raise StudyError(f"{source}: {exc}") from exc
            if not parsed_games:
                raise StudyError(f"{source}: no games")
            continue
        if not db.is_file():
            raise StudyError(f"{source!r} is neither a PGN file nor a match (no database {db})")
        with ResultStore(db) as store:
            ids = [m["match_id"] for m in store.matches()]
            found = [i for i in ids if i == source] or [i for i in ids if i.startswith(source)]
            if len(found) != 1:
                what = "no match" if not found else f"{len(found)} matches ({', '.join(found)})"
                raise StudyError(f"{source!r}: {what} with that id in {db}")
            out[found[0]] += list(store.records(found))
    return list(out.items())


def _study_stats(games: Sequence[GameRecord]) -> MatchStats:
    """A match's figures from its games with a result; an unfinished game (``*``) is no
    draw: it is counted apart (``unfinished``), and its length still counts."""
    decided = [r for r in games if r.result in DECIDED_RESULTS]
    stats = match_stats(decided, "A", "B")
    stats.unfinished = len(games) - len(decided)
    if stats.unfinished:
        stats.reasons["unfinished"] = stats.unfinished
    if games:
        stats.mean_plies = sum(len(r.moves) for r in games) / len(games)
    return stats


def summary_table(rows: Sequence[tuple[str, MatchStats]]) -> str:
    """One line per match: games, draw rate, Red's score, mean plies, endings (the draw
    rate and Red's score of the games with a result)."""
    width = max([5, *(len(label) for label, _ in rows)])
    lines = [f"{'match':<{width}}  games  drawn  Red's score  mean plies  endings"]
    for label, s in rows:
        endings = ", ".join(f"{k} {v}" for k, v in sorted(s.reasons.items()))
        drawn, red = (
            (f"{100 * s.draw_rate:>4.0f}%", f"{100 * s.red_score:>10.1f}%")
            if s.games
            else (f"{'-':>5}", f"{'-':>11}")  # every game unfinished: no figure
        )
        lines.append(
            f"{label:<{width}}  {s.games + s.unfinished:>5}  {drawn}  {red}  "
            f"{s.mean_plies:>10.1f}  {endings}"
        )
    return "\n".join(lines)


def run_study(
    sources: Sequence[str],
    *,
    out: Path,
    db: Path,
    variant: str | None,
    reference: str,
    nodes: int | None,
    json_path: str | None,
    notation: str,
    report: TextIO,
    patched_engine: Path | None = None,
) -> int:
    """``ladder study``: write the annotated games to ``out``, print the summary
    (``patched_engine``: where the patched engine is, None: the usual lookup)."""
    try:
        spec = parse_player(reference).with_patched_engine(patched_engine)
    except PlayerSpecError as exc:
        raise StudyError(f"--engine: {exc}") from exc
    matches = load_games(sources, db, variant)
    if spec.kind == "level":  # its levels file and Elo, for every variant it will judge
        for variant_id in sorted({record.variant for _, games in matches for record in games}):
            try:
                spec.level_settings(variant_id)
            except PlayerSpecError as exc:
                raise StudyError(f"--engine: {exc}") from exc
    engine = Reference(spec, nodes)

    try:
        annotated = asyncio.run(_annotate(engine, matches, notation, _StudyProgress(matches)))
    except EngineError as exc:
        raise StudyError(f"the reference engine failed: {exc}", ExitCode.ENGINE_FAILURE) from exc
    annotator = f"ladder study (reference {spec.name})"
    with out.open("w") as f:
        for record, notes in annotated:
            f.write(
                format_pgn(
                    record,
                    notation=notation,
                    notes=notes.notes(),
                    extra_headers=[("Annotator", annotator)],
                )
                + "\n"
            )
    rows = [(label, _study_stats(games)) for label, games in matches]
    print(summary_table(rows), file=report)
    print(f"{len(annotated)} games annotated into {out}", file=report)
    if json_path is not None:
        write_json(json_path, _json_document(spec, rows, annotated))
    return ExitCode.DONE


class _StudyProgress:
    """The games annotated so far, on standard error: a live bar on a terminal, else
    :class:`StatusLines` (a game at the default 50,000 nodes a position takes seconds: a
    study of a match, hours)."""

    def __init__(self, matches: Sequence[tuple[str, list[GameRecord]]]) -> None:
        total = sum(len(games) for _, games in matches)
        console = Console(stderr=True)
        self.bar = progress_bar(console)
        self._task = self.bar.add_task("study", total=total, figures="")
        self.lines = (
            None if console.is_terminal else StatusLines(console, "study", total, "games annotated")
        )

    def __enter__(self) -> _StudyProgress:
        self.bar.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.bar.stop()

    def add(self, record: GameRecord) -> None:
        if self.lines is not None:
            self.lines.add()
            return
        self.bar.update(self._task, advance=1, figures=f"{record.match_id} game {record.game_no}")


async def _annotate(
    engine: Reference,
    matches: Sequence[tuple[str, list[GameRecord]]],
    notation: str,
    progress: _StudyProgress,
) -> list[tuple[GameRecord, GameNotes]]:
    """Every game's notes from the reference engine, started for them and closed after."""
    await engine.player.start()
    try:
        done = []
        with progress:
            for _, games in matches:
                for record in games:
                    notes = GameNotes(plies=await engine.analyse(record))
                    notes.decisive = decisive_move(record, notes.plies, notation)
                    done.append((record, notes))
                    progress.add(record)
        return done
    finally:
        await engine.player.close()


def _json_document(
    spec: PlayerSpec,
    rows: Sequence[tuple[str, MatchStats]],
    annotated: Sequence[tuple[GameRecord, GameNotes]],
) -> dict[str, Any]:
    """``ladder study --json``: the summary per match and each game's notes."""
    return {
        "command": "study",
        "reference": spec.text,
        "matches": [
            {
                "match": label,
                "games": s.games + s.unfinished,
                "unfinished": s.unfinished,
                "draw_rate": s.draw_rate if s.games else None,
                "red_score": s.red_score if s.games else None,
                "mean_plies": s.mean_plies,
                "endings": dict(s.reasons),
            }
            for label, s in rows
        ],
        "games": [
            {
                "match": r.match_id,
                "game": r.game_no,
                "red": r.red,
                "black": r.black,
                "result": r.result,
                "reason": r.reason,
                "notes": {str(k): v for k, v in sorted(n.notes().items())},
            }
            for r, n in annotated
        ],
    }
