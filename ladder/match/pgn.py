"""PGN for match games, as xiangqi tools and PGN viewers read it.

:func:`format_pgn` writes the seven standard tags (``White`` is Red's player), then
``Game "Chinese Chess"`` and ``Format`` (``WXF`` or ``ICCS``: the notation of the moves),
``Red``, ``Variant``, ``FEN``, ``SetUp`` and the match's own tags. Moves are WXF
(``C2=5``, ``H8+7``, drops ``A@45``) as Fairy-Stockfish writes it
(:func:`ladder.wxf.wxf_moves`; a move pyffish cannot write is written in canonical
notation, ``h3e3``), or ICCS (``H2-E2``, ranks 0..9). Comments: ``{book}`` for opening
moves, else ``[%eval 0.35,9]`` (Red's view, pawns or ``#-3``, with the depth),
``[%clk 0:00:59.2]`` (the mover's clock after the move), nodes and search time, and a
mark on a random or varied choice.

:func:`read_pgn` parses the text back and :func:`replay` turns a parsed game into a
rules-checker :class:`~ladder.rules.Game`, matching every WXF token against the WXF of
the legal moves (ICCS and canonical tokens directly): it fails on a move that is illegal
or ambiguous.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ladder.match.clocks import format_clock
from ladder.rules import Game, RulesError
from ladder.variants import FSF_VARIANT
from ladder.wxf import pyffish_module, wxf_moves
from protocol.notation import from_ucci, to_ucci

__all__ = ["PgnError", "PgnGame", "format_pgn", "read_pgn", "replay", "wxf_moves"]


class PgnError(ValueError):
    """PGN text that cannot be read back into a legal game."""


#: The PGN notations :func:`format_pgn` writes, with their ``Format`` tag.
NOTATIONS = {"wxf": "WXF", "iccs": "ICCS"}


def iccs_move(move: str) -> str:
    """A canonical move in ICCS, as xqbase-style tools write it: ``h3e3`` → ``H2-E2``
    (ranks 0..9), a drop ``A@e3`` → ``A@E2``."""
    ucci = to_ucci(move)
    if "@" in ucci:
        return ucci.upper()
    return f"{ucci[:2]}-{ucci[2:]}".upper()


def canonical_from_iccs(token: str) -> str:
    """An ICCS move (``H2-E2``, ``h2e2``, ``A@E2``) in canonical notation."""
    return from_ucci(
        token.replace("-", "").lower() if "@" not in token else token[0] + token[1:].lower()
    )


def _eval_text(info: dict[str, Any], red_moved: bool) -> str | None:
    """``[%eval ...]`` from Red's point of view (pawns, or ``#N``), with the depth."""
    sign = 1 if red_moved else -1
    if "mate" in info:
        text = f"#{sign * int(info['mate'])}"
    elif "cp" in info:
        text = f"{sign * int(info['cp']) / 100:.2f}"
    else:
        return None
    if "depth" in info:
        text += f",{info['depth']}"
    return f"[%eval {text}]"


def _comment(info: dict[str, Any], red_moved: bool, notation: str, record: Any, ply: int) -> str:
    """A move's comment: ``[%eval]`` (Red's view), ``[%clk]``, nodes and time, and how the
    move was chosen when it was not the player's best."""
    if "error" in info:
        return str(info["error"]).replace("}", ")")
    parts = []
    evaluation = _eval_text(info, red_moved)
    if evaluation:
        parts.append(evaluation)
    if "clock" in info:
        parts.append(f"[%clk {format_clock(float(info['clock']))}]")
    if "nodes" in info:
        parts.append(f"{info['nodes']}N {info.get('seconds', 0.0):.3f}s")
    if info.get("chosen") == "random":
        parts.append("random move")
    elif info.get("chosen") == "varied":
        best = str(info.get("best", "?"))
        if notation == "iccs":
            best = iccs_move(best)
        else:
            best = wxf_moves(record.variant, record.start_fen, [*record.moves[:ply], best])[-1]
        parts.append(f"varied: the engine's best was {best}")
    return " ".join(parts)


def format_pgn(
    record: Any,
    date: str | None = None,
    *,
    notation: str = "wxf",
    minimal: bool = False,
    notes: Mapping[int, str] | None = None,
    extra_headers: Sequence[tuple[str, str]] = (),
) -> str:
    """The PGN text of a :class:`~ladder.match.play.GameRecord`.

    The seven standard tags (``White`` is Red) come first, then ``Game "Chinese
    Chess"`` and ``Format`` (``WXF`` or ``ICCS``, the notation of the moves), as xqbase-
    style readers expect, then the match's own tags. ``minimal``: the standard tags,
    ``Game``, ``Format``, ``FEN`` and the moves only (no comments), as cutechess's
    ``-pgnout … min`` and for readers that do not skip comments. ``notes``: extra
    comment text after a ply (0-based index into the moves), e.g. a study's;
    ``extra_headers`` follow the others.
    """
    if notation not in NOTATIONS:
        raise PgnError(f"unknown PGN notation {notation!r}: expected one of {sorted(NOTATIONS)}")
    r = record
    date = date or time.strftime("%Y.%m.%d", time.gmtime(r.finished_at))
    headers = [
        ("Event", r.match_id),
        ("Site", r.worker.split(":")[0]),
        ("Date", date),
        ("Round", f"{r.pair_no + 1}.{r.game_no % 2 + 1}"),
        ("White", r.red),
        ("Black", r.black),
        ("Result", r.result),
        ("Game", "Chinese Chess"),
        ("Format", NOTATIONS[notation]),
        ("Red", r.red),
        ("Variant", r.variant),
        ("FEN", r.start_fen),
        ("SetUp", "1"),
    ]
    if not minimal:
        headers += [
            ("Termination", r.reason),
            ("PlyCount", str(len(r.moves))),
            ("Match", r.match_id),
            ("GameNo", str(r.game_no)),
            ("Opening", str(r.opening_no)),
        ]
    headers += list(extra_headers)
    lines = [f'[{k} "{str(v).replace(chr(34), chr(39))}"]' for k, v in headers]
    if notation == "iccs":
        written = [iccs_move(m) for m in r.moves]
    else:
        written = wxf_moves(r.variant, r.start_fen, r.moves)
    fields = r.start_fen.split()
    black_first = fields[1] == "b"
    fullmove = int(fields[-1]) if fields[-1].isdigit() else 1
    tokens: list[str] = []
    for i, move in enumerate(written):
        red_moves = (i % 2 == 0) != black_first
        if red_moves:
            tokens.append(f"{fullmove}.")
        elif i == 0:
            tokens.append(f"{fullmove}...")
        tokens.append(move)
        if not minimal:
            comment = "book" if i < r.book_plies else ""
            k = i - r.book_plies
            if k >= 0 and k < len(r.infos):
                comment = _comment(r.infos[k], red_moves, notation, r, i)
            if notes and i in notes:
                comment = f"{comment}; {notes[i]}" if comment else notes[i]
            if comment:
                tokens.append("{" + comment.replace("}", ")") + "}")
        if not red_moves:
            fullmove += 1
    if not minimal and len(r.infos) > len(r.moves) - r.book_plies:  # the failure's message
        last = r.infos[-1]
        tokens.append("{" + str(last.get("error", "")).replace("}", ")") + "}")
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
_ICCS_RE = re.compile(r"^[A-Ia-i]\d-[A-Ia-i]\d$")
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


def replay(pgn: PgnGame, variant: str | None = None) -> Game:
    """Replay a parsed game through the rules checker (PgnError if a move is illegal or
    ambiguous, or the game does not match its headers).

    The rule set is the ``Variant`` tag's; a game without one is ``variant`` (default:
    plain xiangqi when the ``Game`` tag says ``Chinese Chess``). Moves may be WXF,
    canonical, or ICCS (``H2-E2``; any token when the ``Format`` tag says ``ICCS``).
    """
    tag = pgn.headers.get("Variant")
    if tag is None and pgn.headers.get("Game", "").lower() == "chinese chess":
        tag = variant or "xiangqi"
    tag = tag or variant
    if variant is not None and tag != variant:
        raise PgnError(f"a {tag!r} game where {variant!r} was expected")
    if tag not in FSF_VARIANT:
        raise PgnError(f"unknown or missing Variant header: {tag!r}")
    try:
        game = Game.from_fen(tag, pgn.headers.get("FEN"))
    except RulesError as exc:
        raise PgnError(f"bad FEN header: {exc}") from exc
    sf = pyffish_module()
    section = FSF_VARIANT[tag]
    iccs = pgn.headers.get("Format", "").upper() == "ICCS"
    for ply, token in enumerate(pgn.moves, start=1):
        if iccs or _ICCS_RE.match(token):
            try:
                token = canonical_from_iccs(token)
            except ValueError as exc:
                raise PgnError(f"ply {ply}: {token!r} is not an ICCS move") from exc
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
