"""One ply of an analysed game: the evaluations around the move, its loss, win chance,
accuracy and judgement, the engine's line, and what the rules did (atomic blasts,
crazyhouse drops)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ladder.analysis.judgement import Judgement, judge
from ladder.analysis.search import Evaluation
from ladder.analysis.winchance import CP_CEILING, WIN_CHANCE_K, move_accuracy, win_chance
from ladder.notation.wxf import WxfError, wxf_move
from ladder.rules import Game
from ladder.rules.notation import destination

__all__ = ["PlyAnalysis", "analyse_ply", "capped_cp", "line_wxf", "rules_note"]

_PIECE_NAMES = {
    "k": "general",
    "a": "advisor",
    "b": "elephant",
    "n": "horse",
    "r": "chariot",
    "c": "cannon",
    "p": "soldier",
}
_POINTS = [f"{f}{r}" for r in range(1, 11) for f in "abcdefghi"]


def _piece(letter: str, point: str) -> str:
    side = "Red" if letter.isupper() else "Black"
    return f"{side} {_PIECE_NAMES.get(letter.lower(), letter)} {point}"


def rules_note(game: Game, move: str) -> str | None:
    """What the rules did on ``move`` (legal in ``game``, which is left unchanged): an
    atomic capture's blast (``explosion on d8 removed: Red chariot d1 (the capturer),
    Black cannon d8, Black general d9``; a cannon's capture is a ``cannon shot``), a
    crazyhouse drop that gives check (``drop gives check``); None otherwise."""
    if "@" in move:
        return "drop gives check" if game.gives_check(move) else None
    to = destination(move)
    if not game.variant.atomic or to is None or game.piece_at(to) is None:
        return None
    frm = move[: len(move) - len(to)]
    before = {p: game.piece_at(p) for p in _POINTS}
    game.push(move)
    try:
        after = {p: game.piece_at(p) for p in _POINTS}
    finally:
        game.pop()
    mover = before[frm]
    removed = []
    for point, letter in before.items():
        if letter is None or after[point] == letter:
            continue
        if point == frm and after[to] == mover:
            continue  # the capturer moved and survived
        removed.append(_piece(letter, point) + (" (the capturer)" if point == frm else ""))
    kind = "cannon shot" if (mover or "").lower() == "c" else "explosion"
    return f"{kind} on {to} removed: {', '.join(removed)}"


def line_wxf(game: Game, line: tuple[str, ...]) -> tuple[str, ...]:
    """``line`` (legal from ``game``'s position, which is left unchanged) in WXF."""
    board = game.copy()
    out: list[str] = []
    for move in line:
        try:
            out.append(wxf_move(board, move))
        except WxfError:
            out.append(move)
        board.push(move)
    return tuple(out)


def capped_cp(cp: int | None, mate: int | None) -> int:
    """A score as centipawns within ±:data:`CP_CEILING` (a mate counts as the cap)."""
    if mate is not None:
        return CP_CEILING if mate > 0 else -CP_CEILING
    return max(-CP_CEILING, min(CP_CEILING, cp or 0))


@dataclass(frozen=True)
class PlyAnalysis:
    """The analysis of ply ``ply`` (1 for the first move of the game's move list)."""

    ply: int
    side: str  #: the mover, ``red`` or ``black``
    move: str  #: canonical
    wxf: str
    before: Evaluation  #: the position before the move (its best move and line)
    after: Evaluation  #: the position after it
    best_wxf: str | None
    pv_wxf: tuple[str, ...]
    loss_cp: int  #: the mover's loss, centipawns within the cap, 0 or more
    win_chance_before: float  #: Red's win chance before the move, 0..1
    win_chance: float  #: Red's win chance after the move (the graph's point), 0..1
    drop: float  #: the mover's win chance lost by the move, 0..1
    accuracy: float  #: the move's accuracy, 0..100
    judgement: Judgement | None
    note: str | None

    def to_dict(self) -> dict[str, Any]:
        """The ply as the service's and the CLI's JSON give it."""

        def score(e: Evaluation) -> dict[str, Any]:
            out: dict[str, Any] = {"cp": e.cp, "mate": e.mate}
            if e.result is not None:
                out["result"] = e.result
            return out

        return {
            "ply": self.ply,
            "side": self.side,
            "move": self.move,
            "wxf": self.wxf,
            "eval_before": score(self.before),
            "eval_after": score(self.after),
            "best": self.before.best,
            "best_wxf": self.best_wxf,
            "pv": list(self.before.pv),
            "pv_wxf": list(self.pv_wxf),
            "depth": self.before.depth,
            "nodes": self.before.nodes,
            "loss_cp": self.loss_cp,
            "win_chance_before": round(self.win_chance_before, 4),
            "win_chance": round(self.win_chance, 4),
            "drop": round(self.drop, 4),
            "accuracy": round(self.accuracy, 1),
            "judgement": None if self.judgement is None else self.judgement.value,
            "note": self.note,
        }


def analyse_ply(
    game: Game, ply: int, move: str, before: Evaluation, after: Evaluation
) -> PlyAnalysis:
    """Ply ``ply``: ``move`` played in ``game`` (left unchanged), whose position
    evaluates to ``before`` and the next to ``after``."""
    k = WIN_CHANCE_K[game.variant.name]
    red = game.turn == "red"
    cp0, mate0 = before.for_side(red)
    cp1, mate1 = after.for_side(red)
    chance0 = win_chance(capped_cp(cp0, mate0), None, k)
    chance1 = win_chance(capped_cp(cp1, mate1), None, k)
    try:
        written = wxf_move(game, move)
    except WxfError:
        written = move
    best_wxf = line_wxf(game, (before.best,))[0] if before.best is not None else None
    return PlyAnalysis(
        ply=ply,
        side=game.turn,
        move=move,
        wxf=written,
        before=before,
        after=after,
        best_wxf=best_wxf,
        pv_wxf=line_wxf(game, before.pv),
        loss_cp=max(0, capped_cp(cp0, mate0) - capped_cp(cp1, mate1)),
        win_chance_before=chance0 if red else 1 - chance0,
        win_chance=chance1 if red else 1 - chance1,
        drop=max(0.0, chance0 - chance1),
        accuracy=move_accuracy(chance0, chance1),
        # the engine's own choice is never judged: its "loss" is the search's noise
        judgement=None if move == before.best else judge(cp0, mate0, cp1, mate1, k),
        note=rules_note(game, move),
    )
