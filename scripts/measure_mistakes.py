"""The error profile of the weak levels: how a player errs, over one set of positions.

    python scripts/measure_mistakes.py --variant xiangqi --positions 500 \\
        --player 'soft1=level:1,levels=calibration/levels-softmax.toml' \\
        --player 'L1=level:1' --json out.json

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
- **master moves** (positions from the grandmaster games, ``--source master``): the share
  where the player played the move the master played.

Each share comes with its 95 % Wilson interval. The reference is the patched engine at
``--reference-nodes`` (default 100,000; levels 1-3 search at most a few thousand nodes,
so it sees far deeper than what it judges), Hash 64, a new game before each search, 8
lines at the root (MultiPV 8) so that a free piece is judged against the best
alternative; a move outside those lines is searched on its own. Reference searches are
cached in ``--cache`` (JSON), so a rerun with more players only searches what is new.

Positions (``--source``): ``record``, one ply past the opening from each game of the
committed calibration record (``calibration/games-<variant>.jsonl.gz``) that a weak
player (random, greedy, levels 1-3) played in, drawn with ``--seed``: the positions where
pieces hang; ``master``, one ply at or past ``--min-ply`` of each grandmaster game
(``data/master-games.jsonl.gz``, xiangqi only).
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import random
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from ladder.calibration.fit import wilson
from ladder.calibration.record import record_path
from ladder.engine_binary import engine_path
from ladder.level_move import MATE_CP, SearchJob, search_level
from ladder.master_games import master_lines
from ladder.match.players import Player, PlayerSpec, make_player
from ladder.material import material
from ladder.rules import Game
from ladder.variants import FSF_VARIANT, VARIANTS_INI
from protocol.managed import ManagedEngine

ROOT = Path(__file__).resolve().parent.parent
GROSS_CP = 300
FREE_CP = 300
HANG_CP = 200
WEAK_PLAYERS = re.compile(r"^(random|greedy|L[123]|old-L[123])$")
_DEST = re.compile(r"[a-i]\d{1,2}$")


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
    with gzip.open(record_path(ROOT / "calibration", variant), "rt") as fh:
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
        if spot.game().outcome() is None:
            spots.append(spot)
    return spots


def destination(move: str) -> str | None:
    found = _DEST.search(move)
    return found.group(0) if found and "@" not in move else None


def hangs(game: Game) -> bool:
    """Whether the side that just moved has left the opponent (to move in ``game``) a
    capture that wins at least :data:`HANG_CP` net after the best recapture."""
    them = game.turn == "red"
    for capture in game.legal_moves():
        dest = destination(capture)
        if dest is None or game.piece_at(dest) is None:
            continue
        before = material(game.board_fen(), them) - material(game.board_fen(), not them)
        game.push(capture)
        try:
            if game.outcome() is not None:
                continue
            gained = material(game.board_fen(), them) - material(game.board_fen(), not them)
            worst = gained
            for reply in game.legal_moves():
                rdest = destination(reply)
                if rdest is None or game.piece_at(rdest) is None:
                    continue
                game.push(reply)
                bf = game.board_fen()
                worst = min(worst, material(bf, them) - material(bf, not them))
                game.pop()
            if worst - before >= HANG_CP:
                return True
        finally:
            game.pop()
    return False


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
        self.engine = ManagedEngine(
            [str(engine_path())],
            options={"Threads": 1},
            variant_path=VARIANTS_INI,
            variant_aliases=FSF_VARIANT,
            retries=1,
        )

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
        searched = await search_level(self.engine, job, frozenset(game.legal_moves()))
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


async def run(args: argparse.Namespace) -> dict[str, Any]:
    if args.source == "master":
        if args.variant != "xiangqi":
            raise SystemExit("--source master: the grandmaster games are xiangqi games")
        spots = master_spots(args.positions, args.seed, args.min_ply)
    else:
        spots = record_spots(args.variant, args.positions, args.seed)
    if not spots:
        raise SystemExit(f"no {args.variant} positions from {args.source}")
    specs = []
    for text in args.player:
        name, sep, spec = text.partition("=")
        specs.append(PlayerSpec.parse(f"{spec},name={name}" if sep else text))
    players: list[Player] = [make_player(s) for s in specs]
    reference = Reference(args.reference_nodes, args.cache)
    for p in players:
        await p.start()
    rows: dict[str, dict[str, int]] = {
        s.name: dict.fromkeys(("n", "free_n", "free", "hang", "gross", "master", "loss"), 0)
        for s in specs
    }
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    try:
        with Progress(*columns, TimeRemainingColumn(), transient=not sys.stderr.isatty()) as bar:
            task = bar.add_task(f"{args.variant} {args.source} positions", total=len(spots))
            for i, spot in enumerate(spots):
                free = await reference.free_point(spot)
                for spec, player in zip(specs, players, strict=True):
                    await player.new_game(args.variant, args.seed)
                    info = await player.choose(spot.game(), args.seed * 1_000_003 + i)
                    row = rows[spec.name]
                    loss = await reference.loss(spot, info.move)
                    row["n"] += 1
                    row["loss"] += min(loss, 1000)
                    row["gross"] += loss >= GROSS_CP
                    game = spot.game()
                    game.push(info.move)
                    row["hang"] += game.outcome() is None and hangs(game)
                    if free is not None:
                        row["free_n"] += 1
                        row["free"] += destination(info.move) == free
                    if spot.master is not None:
                        row["master"] += info.move == spot.master
                bar.advance(task)
                if i % 20 == 19:
                    reference.save()
    finally:
        reference.save()
        await reference.engine.close()
        for p in players:
            await p.close()
    table = {
        name: {
            "positions": r["n"],
            "free_taken": share(r["free"], r["free_n"]),
            "hangs": share(r["hang"], r["n"]),
            "gross": share(r["gross"], r["n"]),
            "master_move": share(r["master"], r["n"]) if args.source == "master" else None,
            "mean_loss_capped": r["loss"] / r["n"],
        }
        for name, r in rows.items()
    }
    return {
        "variant": args.variant,
        "source": args.source,
        "reference_nodes": args.reference_nodes,
        "seed": args.seed,
        "players": table,
    }


def _pct(s: dict[str, Any] | None) -> str:
    if s is None:
        return "-"
    return f"{100 * s['share']:5.1f}% [{100 * s['lo']:4.1f}, {100 * s['hi']:4.1f}] of {s['n']}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--variant", required=True)
    p.add_argument("--source", choices=("record", "master"), default="record")
    p.add_argument("--player", action="append", required=True, help="NAME=SPEC")
    p.add_argument("--positions", type=int, default=500)
    p.add_argument("--min-ply", type=int, default=16, help="master positions from this ply on")
    p.add_argument("--reference-nodes", type=int, default=100_000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--cache", type=Path, default=None)
    p.add_argument("--json", type=Path, default=None)
    args = p.parse_args(argv)
    out = asyncio.run(run(args))
    print(
        f"{out['variant']} ({out['source']} positions, reference {out['reference_nodes']:,} "
        f"nodes): free pieces taken | one-move hangs | gross blunders | master moves"
    )
    for name, row in out["players"].items():
        print(
            f"  {name:>10}: free {_pct(row['free_taken'])} | hangs {_pct(row['hangs'])} | "
            f"gross {_pct(row['gross'])} | master {_pct(row['master_move'])} | "
            f"mean loss {row['mean_loss_capped']:.0f} cp"
        )
    if args.json is not None:
        args.json.write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
