"""The error profile of a player: how it errs, over one set of positions
(``scripts/measure_mistakes.py`` runs it; docs/tuning.md has the figures).

For every player, over the same positions and with the same seed per position, as the
move service would answer (the player's real move, :mod:`ladder.match.players`):

- **free pieces taken**: in the positions where the reference's best move is a capture
  that it rates at least 300 cp better than every move that does not capture on that
  point (a free piece), the share where the player captured on that point;
- **one-move hangs**: the share of moves after which the opponent has a capture that
  wins at least a piece net (200 cp: an advisor, elephant or better) once the best
  recapture is counted: a two-ply exchange on the board, by the rules checker, with
  the site's piece values (:mod:`ladder.material`; an atomic blast counts what it
  removes on both sides);
- **gross blunders**: the share of moves that lose at least 300 cp against the
  reference's best move;
- **master moves** (positions from the grandmaster games, source ``master``): the share
  where the player played the move the master played.

Each share comes with its 95 % Wilson interval. The reference is the patched engine at
``reference_nodes`` (default 100,000; levels 1-3 search at most a few thousand nodes,
so it sees far deeper than what it judges), Hash 64, a new game before each search, 8
lines at the root (MultiPV 8) so that a free piece is judged against the best
alternative; a move outside those lines is searched on its own. Reference searches are
cached in ``cache`` (JSON), so a rerun with more players only searches what is new.

Positions (``source``): ``record``, one ply past the opening from each game of the
committed calibration record (``calibration/games-<variant>.jsonl.gz``) that a weak
player (random, greedy, levels 1-3) played in, drawn with ``seed``: the positions where
pieces hang; ``master``, one ply at or past ``min_ply`` of each grandmaster game
(``data/master-games.jsonl.gz``, xiangqi only). On master positions the masters' own
moves are judged too (the row ``masters``): the human reference of docs/ladder.md.
"""

from __future__ import annotations

import gzip
import json
import random
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from ladder.calibration.master_games import master_lines
from ladder.calibration.record import record_path
from ladder.level_engine.beginner import Threat, best_threat, exchanges, loses_at_once, parries
from ladder.level_engine.engine import LevelEngine
from ladder.level_engine.engine_lines import MATE_CP
from ladder.level_engine.level_move import SearchJob
from ladder.levels import play_settings
from ladder.match.players.specs import PlayerSpec
from ladder.match.statistics import wilson
from ladder.material import PIECE_VALUES
from ladder.package_data import CHECKOUT_ROOT
from ladder.rules import Game, RulesError
from ladder.rules.notation import destination
from ladder.seeds import MoveSeed
from ladder.variants import FSF_VARIANT

RECORD = (CHECKOUT_ROOT or Path.cwd()) / "calibration"
GROSS_CP = 300
#: A loss counts at most this much in the mean (a mate is not 100,000 cp worse).
LOSS_CAP_CP = 1000
FREE_CP = 300
HANG_CP = 200
WEAK_PLAYERS = re.compile(r"^(random|greedy|L[123]|old-L[123])$")


@dataclass(frozen=True)
class Spot:
    """A position: the game's start FEN, the moves to it, and the master's next move."""

    variant: str
    start_fen: str
    moves: tuple[str, ...]
    master: str | None = None

    def key(self) -> str:
        return f"{self.variant}|{self.start_fen}|{' '.join(self.moves)}"

    def game(self) -> Game:
        return Game.from_fen(self.variant, self.start_fen, list(self.moves))


def record_spots(variant: str, count: int, seed: int) -> list[Spot]:
    """One random post-opening ply of each of ``count`` record games with a weak player."""
    games = []
    with gzip.open(record_path(RECORD, variant), "rt") as fh:
        for line in fh:
            row = json.loads(line)
            if "mv" in row and (WEAK_PLAYERS.match(row["r"]) or WEAK_PLAYERS.match(row["b"])):
                games.append(row)
    rng = random.Random(seed)
    rng.shuffle(games)
    spots: list[Spot] = []
    for round_no in range(4):  # more than one ply a game when the record is short
        for row in games:
            if len(spots) >= count:
                return spots
            moves = row["mv"].split()
            first = int(row.get("k", 0))
            if len(moves) <= first + 1:
                continue
            ply = random.Random(f"{seed}:{round_no}:{row['m']}:{row['g']}").randrange(
                first, len(moves)
            )
            spot = Spot(variant, row["f"], tuple(moves[:ply]))
            if spot not in spots and spot.game().outcome() is None:
                spots.append(spot)
    return spots


def master_spots(count: int, seed: int, min_ply: int) -> list[Spot]:
    """One random ply at or past ``min_ply`` of each of ``count`` grandmaster games."""
    start = Game.from_fen("xiangqi").start_fen
    games = master_lines()
    rng = random.Random(seed)
    rng.shuffle(games)
    spots: list[Spot] = []
    for moves in games:
        if len(spots) >= count:
            break
        if len(moves) <= min_ply + 1:
            continue
        ply = rng.randrange(min_ply, len(moves) - 1)
        spot = Spot("xiangqi", start, tuple(moves[:ply]), master=moves[ply])
        try:  # one game in ten goes on past a point where our rules end it
            spot.game().push(moves[ply])
        except RulesError:
            continue
        spots.append(spot)
    return spots


def hang(game: Game) -> Threat | None:
    """The capture that punishes the side that just moved, if it left the opponent (to
    move in ``game``) one that wins at least :data:`HANG_CP` net after the best recapture
    (:func:`ladder.level_engine.beginner.best_threat`, every capture seen); else None."""
    threat = best_threat(game)
    return threat if threat is not None and threat.gain_cp >= HANG_CP else None


def hangs(game: Game) -> bool:
    """Whether the side that just moved hangs a piece (:func:`hang`)."""
    return hang(game) is not None


class Reference:
    """The judging engine, with a cache of its verdicts: per position the root's lines
    (MultiPV 8) as (move, value) pairs, best first; per position and move outside them
    the value after the move."""

    LINES = 8

    def __init__(self, nodes: int, cache: Path | None) -> None:
        self.nodes = nodes
        self.cache_path = cache
        self.cache: dict[str, Any] = {}
        if cache is not None and cache.exists():
            self.cache = json.loads(cache.read_text())
        self.engine = LevelEngine()

    def save(self) -> None:
        if self.cache_path is not None:
            tmp = self.cache_path.with_suffix(".tmp")
            tmp.write_text(json.dumps(self.cache))
            tmp.replace(self.cache_path)

    async def _lines(self, spot: Spot, multipv: int) -> list[tuple[str, int]]:
        game = spot.game()
        outcome = game.outcome()
        if outcome is not None:  # the side to move has lost, or it is drawn
            return [("", 0 if outcome.winner is None else -MATE_CP)]
        fen, moves = game.engine_position()
        job = SearchJob(
            FSF_VARIANT[spot.variant], fen, moves, self.nodes, multipv=multipv, hash_mb=64
        )
        searched = await self.engine.search(job, frozenset(game.legal_moves()))
        lines = sorted(searched.result.lines.values(), key=lambda ln: ln.multipv)
        out = [(ln.move, ln.value()) for ln in lines]
        if not out and searched.result.bestmove:
            out = [(searched.result.bestmove, 0)]
        return out

    async def root(self, spot: Spot) -> list[tuple[str, int]]:
        key = f"{self.nodes}|root|{spot.key()}"
        if key not in self.cache:
            self.cache[key] = await self._lines(spot, self.LINES)
        return [(str(m), int(v)) for m, v in self.cache[key]]

    async def loss(self, spot: Spot, move: str) -> int:
        lines = await self.root(spot)
        best = lines[0][1]
        for m, v in lines:
            if m == move:
                return max(0, best - v)
        key = f"{self.nodes}|after|{spot.key()}|{move}"
        if key not in self.cache:
            after = Spot(spot.variant, spot.start_fen, (*spot.moves, move))
            self.cache[key] = (await self._lines(after, 1))[0][1]
        return max(0, best + int(self.cache[key]))

    async def free_point(self, spot: Spot) -> str | None:
        """The point of a free piece at ``spot`` (see the module docstring), or None."""
        lines = await self.root(spot)
        best_move, best = lines[0]
        point = destination(best_move) if best_move else None
        if point is None or spot.game().piece_at(point) is None:
            return None
        others = [v for m, v in lines if destination(m) != point]
        if others:
            return point if best - max(others) >= FREE_CP else None
        # Every line takes there: the weakest of them bounds the alternatives.
        return point if len(lines) >= self.LINES and best - lines[-1][1] >= FREE_CP else None


def share(hits: int, n: int) -> dict[str, float | int]:
    lo, hi = wilson(hits / n, n) if n else (0.0, 1.0)
    return {"hits": hits, "n": n, "share": hits / n if n else 0.0, "lo": lo, "hi": hi}


async def measure(
    variant: str,
    source: str,
    players: list[str],
    *,
    positions: int = 500,
    seed: int = 1,
    min_ply: int = 16,
    reference_nodes: int = 100_000,
    cache: Path | None = None,
) -> dict[str, Any]:
    """Every player's error profile (``players``: ``NAME=SPEC`` texts of
    :mod:`ladder.match.players.specs`) over the same positions; a JSON-ready table."""
    from ladder.match.players.start import started_players

    if source == "master":
        if variant != "xiangqi":
            raise ValueError("source master: the grandmaster games are xiangqi games")
        spots = master_spots(positions, seed, min_ply)
    else:
        spots = record_spots(variant, positions, seed)
    if not spots:
        raise ValueError(f"no {variant} positions from {source}")
    specs = named_specs(players)
    given = {spec.name: spec.text for spec in specs}  # each player's spec as given
    settings = {
        spec.name: play_settings(spec.level_settings(variant))
        for spec in specs
        if spec.kind == "level"
    }
    reference = Reference(reference_nodes, cache)
    names = [s.name for s in specs] + (["masters"] if source == "master" else [])
    rows: dict[str, dict[str, int]] = {
        name: dict.fromkeys(("n", "free_n", "free", "hang", "gross", "master", "loss"), 0)
        for name in names
    }
    try:
        async with started_players(specs) as started:
            with _progress() as bar:
                task = bar.add_task(f"{variant} {source} positions", total=len(spots))
                for i, spot in enumerate(spots):
                    free = await reference.free_point(spot)
                    moves: dict[str, str] = {}
                    for player_spec, player in zip(specs, started, strict=True):
                        await player.new_game(variant, seed)
                        chosen = await player.choose(
                            spot.game(), MoveSeed.fixed(seed * 1_000_003 + i)
                        )
                        moves[player_spec.name] = chosen.move
                    if spot.master is not None:
                        moves["masters"] = spot.master
                    for name, move in moves.items():
                        await judge(rows[name], reference, spot, move, free)
                    bar.advance(task)
                    if i % 20 == 19:
                        reference.save()
    finally:
        reference.save()
        await reference.engine.close()
    table = {
        name: _profile_row(r, given.get(name, "the master's move"), settings.get(name), source)
        for name, r in rows.items()
    }
    return {
        "variant": variant,
        "source": source,
        "reference_nodes": reference_nodes,
        "seed": seed,
        "players": table,
    }


def _progress() -> Progress:
    """A measurement's progress bar (kept on a terminal, gone from a log)."""
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    return Progress(*columns, TimeRemainingColumn(), transient=not sys.stderr.isatty())


def named_specs(players: list[str]) -> list[PlayerSpec]:
    """The players of ``NAME=SPEC`` texts (or bare specs), each named by its NAME."""
    specs = []
    for text in players:
        label, sep, spec_text = text.partition("=")
        spec = PlayerSpec.parse(spec_text if sep else text)
        specs.append(spec.with_name(label) if sep else spec)
    return specs


def _profile_row(
    r: dict[str, int], spec: str, settings: dict[str, Any] | None, source: str
) -> dict[str, Any]:
    """One player's row of the table: its counts as shares with their intervals."""
    return {
        "spec": spec,
        # a level's settings: docs/ladder.md shows a retuned level's row as stale
        "settings": settings,
        "positions": r["n"],
        "free_taken": share(r["free"], r["free_n"]),
        "hangs": share(r["hang"], r["n"]),
        "gross": share(r["gross"], r["n"]),
        "master_move": share(r["master"], r["n"]) if source == "master" else None,
        "mean_loss_capped": r["loss"] / r["n"],
        "mean_loss_ci": mean_interval(r["loss"], r.get("loss_sq", 0), r["n"]),
    }


async def judge(
    row: dict[str, int], reference: Reference, spot: Spot, move: str, free: str | None
) -> None:
    """Count one move of one player at ``spot`` into its ``row``."""
    loss = min(await reference.loss(spot, move), LOSS_CAP_CP)
    row["n"] += 1
    row["loss"] += loss
    row["loss_sq"] = row.get("loss_sq", 0) + loss * loss
    row["gross"] += loss >= GROSS_CP
    game = spot.game()
    game.push(move)
    row["hang"] += game.outcome() is None and hangs(game)
    if free is not None:
        row["free_n"] += 1
        row["free"] += destination(move) == free
    if spot.master is not None:
        row["master"] += move == spot.master


def mean_interval(total: int, total_sq: int, n: int) -> tuple[float, float]:
    """The normal 95 % interval of a mean from its sum and sum of squares."""
    if n < 2:
        return (0.0, float(LOSS_CAP_CP))
    mean = total / n
    var = max(0.0, (total_sq - n * mean * mean) / (n - 1))
    half = 1.96 * (var / n) ** 0.5
    return (mean - half, mean + half)


#: How the one-move hangs are split by the piece that takes (lower-case FEN letters).
CAPTURERS = ("c", "n", "r", "p", "other")


async def measure_sets(
    variant: str,
    players: list[str],
    *,
    half: str = "report",
    seed: int = 1,
    folder: Path | None = None,
) -> dict[str, Any]:
    """The beginner's measures of every player (``NAME=SPEC`` texts) on ``half`` of
    ``variant``'s frozen position sets (:mod:`ladder.calibration.position_sets`; in ``folder``,
    default ``data/``), by the rules checker alone (no reference engine):

    - ``check``: the share of moves in check that do not lose at once;
    - ``threat``: the share of moves facing a threat to win at once that parry it;
    - ``free``: the share of positions with a free piece (a capture winning 300 cp net,
      two plies) where the player took one;
    - ``hangs`` on the general positions: the share of moves that leave a one-move hang
      (:func:`hang`), split by the piece that takes (``by``: cannon, horse, chariot,
      soldier, other);
    - ``drops`` (crazyhouse-xiangqi): of the player's drops where it holds a piece, the
      share that the opponent takes at once for nothing (a capture on the point winning
      at least the dropped piece's value net).
    """
    from ladder.calibration.position_sets import DATA, FREE_CP, KINDS, load_sets
    from ladder.match.players.start import started_players

    positions = [p for p in load_sets(variant, folder or DATA) if p.half == half]
    specs = named_specs(players)
    counts: dict[str, dict[str, int]] = {s.name: {} for s in specs}
    async with started_players(specs) as started:
        with _progress() as bar:
            task = bar.add_task(f"{variant} sets ({half})", total=len(positions))
            for i, pos in enumerate(positions):
                game = pos.game()
                free = (
                    {
                        destination(t.capture)
                        for t in exchanges(game)
                        if t.gain_cp >= FREE_CP and destination(t.capture)
                    }
                    if pos.kind == "free"
                    else set()
                )
                for spec, player in zip(specs, started, strict=True):
                    await player.new_game(variant, seed)
                    move = (
                        await player.choose(game.copy(), MoveSeed.fixed(seed * 1_000_003 + i))
                    ).move
                    _count(counts[spec.name], pos.kind, game, move, free)
                bar.advance(task)
    return {
        "variant": variant,
        "half": half,
        "seed": seed,
        "positions": {k: sum(1 for p in positions if p.kind == k) for k in KINDS},
        "players": {
            spec.name: {
                "spec": spec.text,
                # a level's settings: docs/ladder.md shows a retuned level's row as stale
                "settings": (
                    play_settings(spec.level_settings(variant)) if spec.kind == "level" else None
                ),
                **_sets_row(counts[spec.name]),
            }
            for spec in specs
        },
    }


def _count(row: dict[str, int], kind: str, game: Game, move: str, free: set[str | None]) -> None:
    def add(key: str, hit: bool = True) -> None:
        row[key] = row.get(key, 0) + int(hit)

    add(f"{kind}_n")
    if kind == "check":
        add("check", not loses_at_once(game, move))
    elif kind == "threat":
        add("threat", parries(game, move))
    elif kind == "free":
        add("free", destination(move) in free)
    elif kind == "general":
        game.push(move)
        try:
            threat = hang(game) if game.outcome() is None else None
        finally:
            game.pop()
        if threat is not None:
            add("hang")
            add("by_" + (threat.piece if threat.piece in CAPTURERS else "other"))
    elif kind == "drops" and "@" in move:
        add("drop")
        point = move.split("@")[1]
        value = PIECE_VALUES.get(move[0].lower(), 0)
        game.push(move)
        try:
            lost = game.outcome() is None and any(
                t.gain_cp >= value for t in exchanges(game, lambda c, _: destination(c) == point)
            )
        finally:
            game.pop()
        add("drop_hang", lost)


def _sets_row(c: dict[str, int]) -> dict[str, Any]:
    hangs_n = c.get("hang", 0)
    return {
        "check": share(c.get("check", 0), c.get("check_n", 0)),
        "threat": share(c.get("threat", 0), c.get("threat_n", 0)),
        "free": share(c.get("free", 0), c.get("free_n", 0)),
        "hangs": share(hangs_n, c.get("general_n", 0)),
        "hangs_by": {k: c.get(f"by_{k}", 0) for k in CAPTURERS},
        "cannon_horse": share(c.get("by_c", 0) + c.get("by_n", 0), hangs_n),
        "drops": {"positions": c.get("drops_n", 0), "drops": c.get("drop", 0)},
        "drop_hangs": share(c.get("drop_hang", 0), c.get("drop", 0)),
    }
