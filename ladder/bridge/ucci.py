"""`ladder ucci`: the ladder as a UCCI engine, UCI's server (:mod:`ladder.bridge.uci`)
with UCCI's differences.

UCCI (the specification's ranks 0..9, options without ``name``/``value``)::

    < ucci
    > id name Mistboard ladder (level 1, ladder 5b85651335b8)
    > option UCI_Variant type combo default xiangqi var xiangqi ...
    > option Level type spin default 1 min 1 max 8
    > option usemillisec type check default true
    > option newgame type button
    > ucciok
    < setoption Level 2
    < position fen rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1 moves h2e2
    < banmoves h9g7
    < go time 300000 increment 0
    > info depth 5 score -12 pv b9c7 h0g2
    > info time 14 nodes 3021
    > bestmove b9c7 ponder h0g2
    < quit
    > bye

The differences: the specification's ranks 0..9; options written without ``name`` and
``value`` (UCI's form is read too); ``usemillisec`` (the times of ``go``, ``time``/
``increment``/``movestogo``, in milliseconds, or seconds after ``setoption usemillisec
false``) and ``newgame``; ``banmoves`` and ``probe``; ``stop`` with nothing to stop, or a
search without a move, answers ``nobestmove``; ``quit`` answers ``bye``; ``info message
error: …`` for a refused command; scores as one number (a mate as a large one).
"""

from __future__ import annotations

from typing import TextIO

from ladder.bridge.clocks import GuiClock
from ladder.bridge.session import Answer, LevelSession, SessionError
from ladder.bridge.uci import UciServer, check_option
from ladder.level_engine.engine_lines import MATE_CP
from protocol import InfoDict, RankNumbering

__all__ = ["UcciServer"]


class UcciServer(UciServer):
    """`ladder ucci` (see the module docstring)."""

    name = "ucci"
    ranks = RankNumbering.ZERO_BASED
    hello = "ucci"
    option_word = ""

    #: UCCI's ``go``: the mover's ``time`` and ``increment``, then the opponent's.
    go_keys = frozenset({"time", "increment", "movestogo", "depth", "nodes"})

    def __init__(self, session: LevelSession, output: TextIO | None = None) -> None:
        super().__init__(session, output)
        self.commands.update({"banmoves": self.cmd_banmoves, "probe": self.cmd_probe})
        #: ``usemillisec``: the times of ``go`` in milliseconds (else seconds).
        self.millisec = True

    def error(self, message: str) -> None:
        self.send(f"info message error: {message}")

    def note(self, message: str) -> None:
        self.send(f"info message {message}")

    def option_lines(self) -> list[str]:
        return [
            *super().option_lines(),
            "option usemillisec type check default true",
            "option newgame type button",
        ]

    def parse_setoption(self, args: list[str]) -> tuple[str, str]:
        if not args:
            raise SessionError("setoption needs an option name")
        if args[0] == "name":  # a GUI that writes UCI's form
            return super().parse_setoption(args)
        return args[0], " ".join(args[1:])

    def set_option(self, name: str, value: str) -> None:
        key = name.lower()
        if key == "usemillisec":
            self.millisec = check_option(name, value)
            return
        if key == "newgame":
            self.session.new_game()
            return
        super().set_option(name, value)

    def clock(self, numbers: dict[str, int]) -> GuiClock:
        unit = 1 if self.millisec else 1000
        time, increment = numbers.get("time"), numbers.get("increment", 0)
        return GuiClock(
            remaining_ms=None if time is None else time * unit,
            increment_ms=increment * unit,
            moves_to_go=numbers.get("movestogo"),
        )

    async def cmd_banmoves(self, args: list[str]) -> None:
        legal = set(self.session.game.legal_moves())
        moves = {text: self.from_gui(text) for text in args}
        unknown = sorted(text for text, move in moves.items() if move not in legal)
        if unknown:
            self.error(f"banmoves: not legal here, ignored: {' '.join(unknown)}")
        self.banned = frozenset(move for move in moves.values() if move in legal)

    async def cmd_probe(self, args: list[str]) -> None:
        self.send("pophash")  # no hash table of ours to show

    def idle_stop(self) -> None:
        self.send("nobestmove")

    async def cmd_quit(self, args: list[str]) -> None:
        await self.cancel_search()
        self.send("bye")
        self.quitting = True

    def report(self, answer: Answer | None, thinking: bool = True) -> None:
        if answer is None:
            self.send("nobestmove")
            return
        super().report(answer, thinking)

    def send_thinking(self, answer: Answer) -> None:
        score = None if answer.score is None else answer.score.score(mate_score=MATE_CP)
        pv = " ".join(self.to_gui(m) for m in answer.pv)
        said = f" score {score}" if score is not None else ""
        self.send(f"info depth {answer.depth}{said} pv {pv}")
        self.send(f"info time {round(answer.seconds * 1000)} nodes {answer.nodes}")

    def send_info(self, info: InfoDict) -> None:
        if "pv" not in info or not info["pv"]:
            return
        score = None
        if "score" in info:
            score = info["score"].relative.score(mate_score=MATE_CP)
        said = f" score {score}" if score is not None else ""
        pv = " ".join(self.to_gui(m) for m in info["pv"])
        self.send(f"info depth {info.get('depth', 0)}{said} pv {pv}")
