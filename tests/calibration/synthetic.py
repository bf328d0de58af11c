"""Synthetic calibration games: players of known Elo, results drawn from the logistic
curve, for the tests of the fit and the criteria."""

from __future__ import annotations

import random
from pathlib import Path

from ladder.match.game.play import GameRecord
from ladder.match.statistics.elo import elo_to_score


def record(
    red: str,
    black: str,
    result: str,
    pair: int,
    game: int,
    mid: str,
    moves: int = 0,
    seconds: tuple[float, float] = (0.0, 0.0),
) -> GameRecord:
    return GameRecord(
        match_id=mid,
        game_no=game,
        pair_no=pair,
        opening_no=0,
        variant="xiangqi",
        red=red,
        black=black,
        red_slot="A",
        start_fen="rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
        book_plies=0,
        moves=["h3e3"] * moves,
        infos=[],
        result=result,
        winner={"1-0": "red", "0-1": "black"}.get(result),
        reason="checkmate",
        search_seconds={"red": seconds[0], "black": seconds[1]},
        wall_seconds=0,
        worker="x:1",
        finished_at=0,
    )


def games(truth: dict[str, float], pairs_per_match: int, seed: int = 1) -> list[GameRecord]:
    """Adjacent and skip-one pairings of the players in ``truth`` (in order)."""
    rng = random.Random(seed)
    names = list(truth)
    out = []
    for i in range(len(names) - 1):
        for j in (i + 1, i + 2):
            if j >= len(names):
                continue
            a, b = names[j], names[i]
            mid = f"{a}-{b}"
            for p in range(pairs_per_match):
                for g, (red, black) in enumerate(((a, b), (b, a))):
                    s = elo_to_score(truth[red] - truth[black])
                    res = "1-0" if rng.random() < s else "0-1"
                    out.append(record(red, black, res, p, 2 * p + g, mid))
    return out


def rated_levels(path: Path) -> Path:
    """A levels file at ``path`` whose eight levels carry ratings 450, 750, ... 2,550 (as
    TRUTH's levels: greedy 150 and 300 a level), which an ``elo:`` player needs."""
    path.write_text(
        "".join(f"[[level]]\nlevel = {n}\nnodes = {100 * 2**n}\n\n" for n in range(1, 9))
        + "".join(
            f"[variant.xiangqi.{n}]\nelo = {150.0 + 300 * n}\nelo_lo = {100.0 + 300 * n}\n"
            f"elo_hi = {200.0 + 300 * n}\ngames = 100\n\n"
            for n in range(1, 9)
        )
    )
    return path
