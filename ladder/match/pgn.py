"""PGN for match games: WXF move notation, Red/Black headers, per-move search comments.

Moves are written in WXF notation (``C2=5``, ``H8+7``, drops ``A@45``) as Fairy-Stockfish
writes it (:func:`ladder.wxf.wxf_moves`); a move pyffish cannot write is written in
canonical notation (``h3e3``), which :func:`replay` reads as well. Comments: ``{book}``
for opening moves, else ``{+0.35/9 10018N 0.047s}`` (score from the mover's view in
pawns, or ``+M5``; depth; nodes; search time).

:func:`read_pgn` parses the text back and :func:`replay` turns a parsed game into a
rules-checker :class:`~ladder.rules.Game`, matching every WXF token against the WXF of
the legal moves: it fails on a move that is illegal or ambiguous.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ladder.rules import Game, RulesError
from ladder.variants import FSF_VARIANT
from ladder.wxf import pyffish_module, wxf_moves

__all__ = ["PgnError", "PgnGame", "format_pgn", "read_pgn", "replay", "wxf_moves"]


class PgnError(ValueError):
    """PGN text that cannot be read back into a legal game."""


def _comment(info: dict[str, Any]) -> str | None:
    if "error" in info:
        return str(info["error"]).replace("}", ")")
    parts = []
    if "mate" in info:
        m = info["mate"]
        parts.append(f"{'+' if m > 0 else '-'}M{abs(m)}")
    elif "cp" in info:
        parts.append(f"{info['cp'] / 100:+.2f}")
    if parts and "depth" in info:
        parts[0] += f"/{info['depth']}"
    if "nodes" in info:
        parts.append(f"{info['nodes']}N")
    if not parts:  # a baseline's move: nothing searched
        return None
    parts.append(f"{info.get('seconds', 0.0):.3f}s")
    return " ".join(parts)


def format_pgn(record: Any, date: str | None = None) -> str:
    """The PGN text of a :class:`~ladder.match.play.GameRecord`."""
    r = record
    date = date or time.strftime("%Y.%m.%d", time.gmtime(r.finished_at))
    headers = [
        ("Event", r.match_id if not hasattr(r, "event") else r.event),
        ("Site", r.worker.split(":")[0]),
        ("Date", date),
        ("Round", f"{r.pair_no + 1}.{r.game_no % 2 + 1}"),
        ("Red", r.red),
        ("Black", r.black),
        ("Result", r.result),
        ("Variant", r.variant),
        ("FEN", r.start_fen),
        ("SetUp", "1"),
        ("Termination", r.reason),
        ("PlyCount", str(len(r.moves))),
        ("Match", r.match_id),
        ("GameNo", str(r.game_no)),
        ("Opening", str(r.opening_no)),
    ]
    lines = [f'[{k} "{str(v).replace(chr(34), chr(39))}"]' for k, v in headers]
    wxf = wxf_moves(r.variant, r.start_fen, r.moves)
    black_first = r.start_fen.split()[1] == "b"
    fullmove = int(r.start_fen.split()[-1]) if r.start_fen.split()[-1].isdigit() else 1
    tokens: list[str] = []
    for i, move in enumerate(wxf):
        red_moves = (i % 2 == 0) != black_first
        if red_moves:
            tokens.append(f"{fullmove}.")
        elif i == 0:
            tokens.append(f"{fullmove}...")
        tokens.append(move)
        if i < r.book_plies:
            tokens.append("{book}")
        else:
            k = i - r.book_plies
            comment = _comment(r.infos[k]) if k < len(r.infos) else None
            if comment:
                tokens.append("{" + comment + "}")
        if not red_moves:
            fullmove += 1
    if len(r.infos) > len(r.moves) - r.book_plies:  # an engine failure's message
        tokens.append("{" + (_comment(r.infos[-1]) or "") + "}")
    tokens.append(r.result)
    body, line = [], ""
    for tok in tokens:
        if line and len(line) + 1 + len(tok) > 79:
            body.append(line)
            line = tok
        else:
            line = f"{line} {tok}" if line else tok
    body.append(line)
    return "\n".join(lines) + "\n\n" + "\n".join(body) + "\n"


@dataclass
class PgnGame:
    """A parsed PGN game: headers, move tokens, the comment after each move."""

    headers: dict[str, str]
    moves: list[str] = field(default_factory=list)
    comments: list[str | None] = field(default_factory=list)
    result: str | None = None


_HEADER_RE = re.compile(r'^\[(\w+)\s+"(.*)"\]\s*$')
_TOKEN_RE = re.compile(r"\{[^}]*\}|\d+\.(?:\.\.)?|1-0|0-1|1/2-1/2|\*|[^\s{}]+")


def read_pgn(text: str) -> Iterator[PgnGame]:
    """The games of a PGN text, in order."""
    game: PgnGame | None = None
    in_moves = False
    movetext: list[str] = []

    def finish() -> PgnGame | None:
        if game is None:
            return None
        for tok in _TOKEN_RE.findall(" ".join(movetext)):
            if tok.startswith("{"):
                if game.comments:
                    game.comments[-1] = tok[1:-1].strip()
            elif re.fullmatch(r"\d+\.(\.\.)?", tok):
                continue
            elif tok in ("1-0", "0-1", "1/2-1/2", "*"):
                game.result = tok
            else:
                game.moves.append(tok)
                game.comments.append(None)
        return game

    for raw in text.splitlines():
        line = raw.strip()
        m = _HEADER_RE.match(line)
        if m:
            if in_moves or game is None:
                done = finish()
                if done is not None:
                    yield done
                game, in_moves, movetext = PgnGame({}), False, []
            game.headers[m[1]] = m[2]
        elif line:
            if game is None:
                raise PgnError(f"movetext before any header: {line[:40]!r}")
            in_moves = True
            movetext.append(line)
    done = finish()
    if done is not None:
        yield done


#: WXF piece letters -> FEN letters (lower case).
_WXF_PIECES = {
    "K": "k",
    "A": "a",
    "E": "b",
    "B": "b",
    "H": "n",
    "N": "n",
    "R": "r",
    "C": "c",
    "P": "p",
}
_FROM_RE = re.compile(r"^([a-i]\d{1,2})[a-i]\d{1,2}$")


def _candidates(game: Game, token: str) -> list[str]:
    """The legal moves that may have WXF ``token``: same piece type, drop or not
    (saves asking pyffish about every legal move)."""
    letter = next((ch for ch in token if ch.isalpha()), "")
    piece = _WXF_PIECES.get(letter.upper())
    legal = game.legal_moves()
    if piece is None:
        return legal
    if "@" in token:
        return [m for m in legal if "@" in m and m[0].lower() == piece]
    out = []
    for m in legal:
        frm = _FROM_RE.match(m)
        if frm is not None and (game.piece_at(frm.group(1)) or "").lower() == piece:
            out.append(m)
    return out


def replay(pgn: PgnGame) -> Game:
    """Replay a parsed game through the rules checker (PgnError if a move is illegal or
    ambiguous, or the game does not match its headers)."""
    variant = pgn.headers.get("Variant")
    if variant not in FSF_VARIANT:
        raise PgnError(f"unknown or missing Variant header: {variant!r}")
    try:
        game = Game.from_fen(variant, pgn.headers.get("FEN"))
    except RulesError as exc:
        raise PgnError(f"bad FEN header: {exc}") from exc
    sf = pyffish_module()
    section = FSF_VARIANT[variant]
    for ply, token in enumerate(pgn.moves, start=1):
        if game.is_legal(token):
            game.push(token)
            continue
        matches = []
        if sf is not None:
            fen = game.fen()
            for move in _candidates(game, token):
                try:
                    if sf.get_san(section, fen, move, False, sf.NOTATION_XIANGQI_WXF) == token:
                        matches.append(move)
                except ValueError:
                    continue
        if len(matches) != 1:
            what = "no legal move" if not matches else f"ambiguous ({matches})"
            raise PgnError(f"ply {ply}: {token!r} is {what} in {game.fen()}")
        game.push(matches[0])
    return game
