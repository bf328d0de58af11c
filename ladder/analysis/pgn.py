"""The analysed game as PGN, the way lichess exports a game with computer analysis.

* the tags: the seven standard ones (``White`` is Red), ``Game "Chinese Chess"``,
  ``Format "WXF"``, ``Variant``, ``FEN``/``SetUp`` as ``ladder match`` writes them (none
  from the variant's start, else XBoard's letters), ``Annotator``, and the per-side
  summary: ``RedInaccuracies``, ``RedMistakes``, ``RedBlunders``, ``RedACPL``,
  ``RedAccuracy`` and Black's;
* after every move ``{ [%eval 0.35] }``: the evaluation of the position after it, from
  Red's side, in pawns (``#3``: Red mates in 3; ``#-2``: Black does);
* a judged move carries its NAG (``?!`` inaccuracy, ``?`` mistake, ``??`` blunder), a
  comment ``{ (0.35 → -1.20) Mistake. H2+3 was best. }`` and the engine's line as a
  variation from that ply: ``( 3. H2+3 C8=5 ... )``;
* the rules' notes (an atomic blast, a crazyhouse drop that checks) in the comment;
* the moves in any notation ``ladder match`` writes (:data:`ladder.match.output.pgn.NOTATIONS`):
  WXF, ICCS (``H2-E2``), XBoard's coordinates (``h2e2``, ``Format "ICCS"``: what XBoard
  reads) or Chinese (``Format "Chinese"``, ``炮二平五``).
"""

from __future__ import annotations

from collections.abc import Sequence

from ladder.analysis.runner import GameAnalysis
from ladder.analysis.search import Evaluation
from ladder.match.output.pgn import NOTATIONS, pgn_line, pgn_move, setup_tags
from ladder.notation.pgn_text import pgn_text
from ladder.rules import Game

__all__ = ["eval_text", "format_analysis_pgn"]


def eval_text(evaluation: Evaluation) -> str:
    """Red's evaluation as PGN's ``[%eval]`` writes it: ``0.35``, ``#3``, ``#-2``."""
    if evaluation.mate is not None:
        if evaluation.result is not None:  # a finished game: the winner "mates in 0"
            return "#0" if evaluation.result == "1-0" else "#-0"
        return f"#{evaluation.mate}"
    return f"{(evaluation.cp or 0) / 100:.2f}"


def _number(ply_index: int, red_first: bool, first_move_number: int, always: bool) -> str:
    """The move number before the move at 0-based ``ply_index`` ("" when not needed)."""
    red_moves = (ply_index % 2 == 0) == red_first
    number = first_move_number + (ply_index + (0 if red_first else 1)) // 2
    if red_moves:
        return f"{number}."
    return f"{number}..." if always else ""


def _written(analysis: GameAnalysis, notation: str) -> list[tuple[str, str | None, list[str]]]:
    """Each ply's move, best move and line in ``notation`` (WXF as the plies hold it)."""
    if notation == "wxf":
        return [(p.wxf, p.best_wxf, list(p.pv_wxf)) for p in analysis.plies]
    game = Game.from_fen(analysis.variant, analysis.start_fen)
    out: list[tuple[str, str | None, list[str]]] = []
    for p in analysis.plies:
        best = p.before.best
        out.append(
            (
                pgn_move(notation, game, p.move),
                None if best is None else pgn_move(notation, game, best),
                pgn_line(notation, game, p.before.pv),
            )
        )
        game.push(p.move)
    return out


def format_analysis_pgn(
    analysis: GameAnalysis,
    *,
    headers: Sequence[tuple[str, str]] = (),
    result: str = "*",
    annotator: str = "ladder analyse",
    notation: str = "wxf",
) -> str:
    """The PGN text of ``analysis`` (its plies from the first; ``headers`` are the
    source game's, e.g. ``Event``, ``White``, ``Date``, which override the defaults),
    its moves in ``notation`` (:data:`~ladder.match.output.pgn.NOTATIONS`)."""
    given = dict(headers)
    red_first = analysis.start_fen.split()[1] == "w"
    fullmove = (
        int(analysis.start_fen.split()[-1]) if analysis.start_fen.split()[-1].isdigit() else 1
    )
    tags: dict[str, str] = {
        "Event": given.get("Event", "Analysis"),
        "Site": given.get("Site", "?"),
        "Date": given.get("Date", "????.??.??"),
        "Round": given.get("Round", "-"),
        "White": given.get("White", given.get("Red", "?")),
        "Black": given.get("Black", "?"),
        "Result": result,
        "Game": "Chinese Chess",
        "Format": NOTATIONS[notation],
        "Variant": analysis.variant,
        **dict(setup_tags(analysis.variant, analysis.start_fen)),
        "Annotator": f"{annotator} ({analysis.nodes} nodes a position)",
        "PlyCount": str(len(analysis.moves)),
    }
    for key, value in given.items():
        if key not in tags and key not in ("Format", "Game", "FEN", "SetUp"):
            tags[key] = value
    for side, summary in analysis.summary.items():
        prefix = side.capitalize()
        tags[f"{prefix}Inaccuracies"] = str(summary.inaccuracies)
        tags[f"{prefix}Mistakes"] = str(summary.mistakes)
        tags[f"{prefix}Blunders"] = str(summary.blunders)
        if summary.mean_loss_cp is not None:
            tags[f"{prefix}ACPL"] = str(round(summary.mean_loss_cp))
        if summary.accuracy is not None:
            tags[f"{prefix}Accuracy"] = str(round(summary.accuracy))
    tokens: list[str] = []
    for p, (move, best, pv) in zip(analysis.plies, _written(analysis, notation), strict=True):
        i = p.ply - 1
        # every move carries a comment, so Black's moves are numbered too (``1...``)
        number = _number(i, red_first, fullmove, always=True)
        if number:
            tokens.append(number)
        tokens.append(move + (p.judgement.nag if p.judgement else ""))
        tokens.append("{ [%eval " + eval_text(p.after) + "] }")
        words = []
        if p.judgement is not None:
            words.append(
                f"({eval_text(p.before)} → {eval_text(p.after)}) {p.judgement.label}."
                + (f" {best} was best." if best else "")
            )
        if p.note:
            words.append(p.note + ".")
        if words:
            tokens.append("{ " + " ".join(words).replace("}", ")") + " }")
        if p.judgement is not None and pv:
            line = []
            for j, pv_move in enumerate(pv):
                n = _number(i + j, red_first, fullmove, always=j == 0)
                line += [n, pv_move] if n else [pv_move]
            tokens.append("( " + " ".join(line) + " )")
    tokens.append(result)
    return pgn_text(tags.items(), tokens)
