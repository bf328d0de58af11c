"""`ladder uci`: the ladder as a UCI engine (and the base of UCCI's,
:mod:`ladder.bridge.ucci`).

UCI (moves as Fairy-Stockfish writes them, ranks 1..10)::

    < uci
    > id name Mistboard ladder (level 1, ladder 5b85651335b8)
    > id author Mistboard
    > option name UCI_Variant type combo default xiangqi var xiangqi var atomic-xiangqi ...
    > option name Level type spin default 1 min 1 max 8
    > option name Seed type spin default 0 min 0 max 2147483647
    > option name Elo type spin default 620 min 620 max 2410     (only with ratings)
    > uciok
    < setoption name Level value 3
    < isready
    > readyok
    < position startpos moves h3e3
    < go wtime 60000 btime 60000
    > info depth 5 score cp -12 nodes 3021 time 14 pv h10g8 h1g3
    > bestmove h10g8 ponder h1g3

Every ``go`` plays the level's move (:mod:`ladder.bridge.session`): the level is a
node count, and ``depth``/``nodes`` limits a GUI sends are read and ignored. On a clock
(UCI ``wtime``/``btime``/``winc``/``binc``/``movestogo``/``movetime``; UCCI's: see
:mod:`ladder.bridge.ucci`) the search also stops early, by the rule of ``/v1/move``'s clock
(:mod:`ladder.bridge.clocks`), so the level never oversteps the GUI's clock. ``go
ponder`` holds the answer until ``stop``/``ponderhit``. ``go searchmoves m1 m2 ...``
keeps the level (and an analysis) to the listed moves.

An analysis is the engine at full strength, its ``info`` lines passed on as they come:
``go infinite`` (until ``stop``), and every ``go`` while ``UCI_AnalyseMode`` is on (then
``depth``, ``nodes``, ``movetime`` and the clock bound it). ``stop`` ends a search at
once; in UCCI, ``stop`` with nothing to stop answers ``nobestmove`` (as the
specification asks). A refused command gets ``info string error: …`` (UCCI: ``info
message error: …``) and changes nothing; a refused position falls back to what is
legal (see :meth:`LevelSession.set_position`). Errors name points in the GUI's
notation (UCCI: ranks 0..9).
"""

from __future__ import annotations

import asyncio
from typing import ClassVar, TextIO

from ladder.bridge.clocks import GuiClock
from ladder.bridge.server import GuiServer
from ladder.bridge.session import SEED_OPTION_MAX, Answer, LevelSession, SessionError
from ladder.level_engine.clock import deadline_after
from ladder.levels import LEVEL_NUMBERS
from ladder.variants import VARIANT_IDS
from protocol import InfoDict, Limit, RankNumbering

__all__ = ["UciServer", "check_option"]


class UciServer(GuiServer):
    """`ladder uci` (see the module docstring)."""

    name = "uci"
    ranks = RankNumbering.ONE_BASED
    hello: ClassVar[str] = "uci"
    #: How an option line names its option (``name`` in UCI, nothing in UCCI).
    option_word: ClassVar[str] = "name "

    def __init__(self, session: LevelSession, output: TextIO | None = None) -> None:
        super().__init__(session, output)
        self.banned: frozenset[str] = frozenset()
        self.release = asyncio.Event()
        # The GUIs' strength slider (Stockfish's convention): UCI_Elo (its default
        # unless the GUI sets it) plays while UCI_LimitStrength is on, whatever Level
        # says; turned off, the Level plays again.
        self.limit_strength = False
        self.uci_elo: int | None = spin[0] if (spin := self.elo_spin()) else None
        #: ``UCI_AnalyseMode``: every ``go`` is an analysis at full strength.
        self.analyse_mode = False
        self.commands.update(
            {
                self.hello: self.cmd_hello,
                "isready": self.cmd_isready,
                "setoption": self.cmd_setoption,
                "ucinewgame": self.cmd_newgame,
                "position": self.cmd_position,
                "go": self.cmd_go,
                "stop": self.cmd_stop,
                "ponderhit": self.cmd_ponderhit,
                "quit": self.cmd_quit,
                "debug": self.cmd_ignore,
                "register": self.cmd_ignore,
            }
        )

    def error(self, message: str) -> None:
        self.send(f"info string error: {message}")

    def note(self, message: str) -> None:
        self.send(f"info string {message}")

    # ------------------------------------------------------------------ options

    def option_lines(self) -> list[str]:
        word = self.option_word
        session = self.session
        variants = " ".join(f"var {v}" for v in VARIANT_IDS)
        lines = [
            f"option {word}UCI_Variant type combo default {session.variant} {variants}",
            f"option {word}Level type spin default {session.level} "
            f"min {LEVEL_NUMBERS[0]} max {LEVEL_NUMBERS[-1]}",
            f"option {word}Seed type spin default {session.seed} min 0 max {SEED_OPTION_MAX}",
            f"option {word}OwnBook type check default {str(session.own_book).lower()}",
            f"option {word}UCI_AnalyseMode type check default false",
        ]
        spin = self.elo_spin()
        if spin is not None:  # Elo needs a calibrated levels file; without one it is not offered
            default, low, high = spin
            lines.append(f"option {word}Elo type spin default {default} min {low} max {high}")
            lines.append(f"option {word}UCI_LimitStrength type check default false")
            lines.append(f"option {word}UCI_Elo type spin default {default} min {low} max {high}")
        return lines

    def parse_setoption(self, args: list[str]) -> tuple[str, str]:
        """(name, value) of ``setoption name N value V``."""
        text = " ".join(args)
        if not text.startswith("name "):
            raise SessionError(f"setoption needs 'name …': {text[:80]!r}")
        name, _, value = text[len("name ") :].partition(" value ")
        return name.strip(), value.strip()

    def set_option(self, name: str, value: str) -> None:
        session = self.session
        key = name.lower()
        if key == "uci_variant":
            session.set_variant(value)
        elif key == "level":
            self.set_strength("level", _integer(name, value))
            if self.limit_strength and self.uci_elo is not None:
                session.set_elo(self.uci_elo)  # the slider still rules
        elif key == "elo":
            self.set_strength("elo", _integer(name, value))
        elif key == "seed":
            session.set_seed(_integer(name, value))
        elif key == "uci_limitstrength":
            if value.lower() not in ("true", "false"):
                raise SessionError(f"UCI_LimitStrength is true or false, not {value!r}")
            was, self.limit_strength = self.limit_strength, value.lower() == "true"
            if was and not self.limit_strength:
                self.play_level(session.level)  # turned off: the Level plays again
            elif self.limit_strength and self.uci_elo is not None:
                session.set_elo(self.uci_elo)
        elif key == "uci_elo":
            elo = _integer(name, value)
            if self.limit_strength:
                session.set_elo(elo)
            else:
                session.check_elo(elo)  # refused now if no level plays it
            self.uci_elo = elo
        elif key == "ownbook":
            session.own_book = check_option(name, value)
        elif key == "uci_analysemode":
            self.analyse_mode = check_option(name, value)
        else:
            known = ", ".join(
                [
                    "UCI_Variant",
                    "Level",
                    "Elo",
                    "UCI_LimitStrength",
                    "UCI_Elo",
                    "Seed",
                    "OwnBook",
                    "UCI_AnalyseMode",
                ]
            )
            raise SessionError(f"unknown option {name!r} (options: {known})")
        if key in ("uci_variant", "elo", "uci_limitstrength", "uci_elo"):
            self.say_elo_note()

    # ------------------------------------------------------------------ commands

    async def cmd_ignore(self, args: list[str]) -> None:
        return None

    async def cmd_hello(self, args: list[str]) -> None:
        self.send(
            f"id name Mistboard ladder ({self.session.strength_name()}, "
            f"ladder {self.session.levels_version})"
        )
        self.send("id author Mistboard")
        for line in self.option_lines():
            self.send(line)
        self.send(f"{self.hello}ok")
        self.warm_up()

    @property
    def analysis_next(self) -> bool:
        return self.analyse_mode

    async def cmd_isready(self, args: list[str]) -> None:
        await self.ready()
        self.send("readyok")

    async def cmd_setoption(self, args: list[str]) -> None:
        await self.finish_search()
        name, value = self.parse_setoption(args)
        self.set_option(name, value)

    async def cmd_newgame(self, args: list[str]) -> None:
        await self.finish_search()
        self.session.new_game()

    async def cmd_position(self, args: list[str]) -> None:
        await self.finish_search()
        self.banned = frozenset()
        fen: str | None = None
        if args[:1] == ["startpos"]:
            rest = args[1:]
        elif args[:1] == ["fen"]:
            end = args.index("moves") if "moves" in args else len(args)
            fen, rest = " ".join(args[1:end]), args[end:]
        else:
            self.session.set_position(None, [])
            raise SessionError("position needs startpos or fen: using the start position")
        if rest and rest[0] != "moves":
            self.error(f"position: expected 'moves', got {rest[0]!r}")
        moves: list[str] = []
        malformed: str | None = None
        for i, text in enumerate(rest[1:], start=1):
            move = self.from_gui(text)
            if move is None:
                malformed = f"move {i} of the position: {self.malformed(text)}; stopped before it"
                break
            moves.append(move)
        problem = self.session.set_position(fen, moves, self.gui_reason) or malformed
        if problem is not None:
            self.error(problem)

    async def cmd_go(self, args: list[str]) -> None:
        await self.finish_search()
        self.release = asyncio.Event()
        if "ponder" not in args:
            self.release.set()
        numbers = self.go_numbers(args)
        time_limit = self.clock(numbers).time_limit_ms()
        banned = self.banned | self.outside_searchmoves(args)
        if ("infinite" in args and "ponder" not in args) or self.analyse_mode:
            # (in analysis mode every go is one, a ponder too: answered after ponderhit)
            limit = Limit(
                depth=numbers.get("depth"),
                nodes=numbers.get("nodes"),
                deadline=deadline_after(time_limit),
            )
            self.start_search(lambda: self.analysis(limit, banned))
        else:
            self.start_search(lambda: self.search(time_limit, banned))

    #: The numbers a ``go`` may carry (milliseconds for the times).
    go_keys: ClassVar[frozenset[str]] = frozenset(
        {"wtime", "btime", "winc", "binc", "movestogo", "movetime", "depth", "nodes"}
    )

    def go_numbers(self, args: list[str]) -> dict[str, int]:
        """The ``go`` command's numbers by name; a bad one gets an error line and is left
        out (the search still runs: a GUI waits for its move)."""
        numbers: dict[str, int] = {}
        for i, key in enumerate(args):
            value = args[i + 1] if i + 1 < len(args) else ""
            if key not in self.go_keys or value == "infinite":  # (UCCI's `go depth infinite`)
                continue
            try:
                numbers[key] = int(value)
            except ValueError:
                self.error(f"go: {key} needs an integer, not {value[:20]!r}: ignored")
        return numbers

    #: Every word of a ``go`` that is not a move (where a ``searchmoves`` list ends).
    go_words: ClassVar[frozenset[str]] = frozenset({"searchmoves", "ponder", "infinite", "mate"})

    def outside_searchmoves(self, args: list[str]) -> frozenset[str]:
        """The legal moves a ``go searchmoves m1 m2 ...`` leaves out (none without it).
        A listed move that is not legal here gets an error line and is left out; a list
        with no legal move restricts nothing (the level plays as without it)."""
        if "searchmoves" not in args:
            return frozenset()
        listed = []
        for word in args[args.index("searchmoves") + 1 :]:
            if word in self.go_keys or word in self.go_words:
                break
            listed.append(word)
        legal = frozenset(self.session.game.legal_moves())
        moves = {text: self.from_gui(text) for text in listed}
        unknown = [text for text, move in moves.items() if move not in legal]
        if unknown:
            self.error(f"searchmoves: not legal here, ignored: {' '.join(unknown)[:200]}")
        kept = frozenset(move for move in moves.values() if move in legal)
        return legal - kept if kept else frozenset()

    def clock(self, numbers: dict[str, int]) -> GuiClock:
        """The mover's clock from ``go``'s numbers (UCI: ``wtime`` is Red's)."""
        red = self.session.game.turn == "red"
        return GuiClock(
            remaining_ms=numbers.get("wtime" if red else "btime"),
            increment_ms=numbers.get("winc" if red else "binc", 0),
            moves_to_go=numbers.get("movestogo"),
            movetime_ms=numbers.get("movetime"),
        )

    async def search(self, time_limit_ms: int | None, banned: frozenset[str]) -> None:
        answer = await self.level_answer(banned, time_limit_ms)
        await self.release.wait()
        self.report(answer)

    async def analysis(self, limit: Limit, banned: frozenset[str]) -> None:
        answer = await self.analysis_answer(limit, self.send_info, banned)
        await self.release.wait()
        self.report(answer, thinking=False)

    async def cmd_stop(self, args: list[str]) -> None:
        if not self.searching:
            self.idle_stop()
            return
        await self.finish_search()

    def idle_stop(self) -> None:
        return None  # UCI: nothing to stop

    async def cmd_ponderhit(self, args: list[str]) -> None:
        self.release.set()

    async def finish_search(self) -> None:
        # A command that needs the search over (`position`, `go`…) during `go infinite`
        # is the GUI's mistake; the held answer is given rather than waited for forever.
        self.release.set()
        await super().finish_search()

    async def end_of_input(self) -> None:
        # Like Stockfish, an input that ends during a search still gets its answer
        # (`printf 'position startpos\ngo\n' | ladder uci`).
        await self.finish_search()

    async def cmd_quit(self, args: list[str]) -> None:
        self.quitting = True

    # ------------------------------------------------------------------ answers

    def report(self, answer: Answer | None, thinking: bool = True) -> None:
        if answer is None:
            self.error("no legal move: the game is over")
            self.send("bestmove (none)")
            return
        if thinking:  # (an analysis has shown its lines as they came)
            self.send_thinking(answer)
        ponder = f" ponder {self.to_gui(answer.ponder)}" if answer.ponder else ""
        self.send(f"bestmove {self.to_gui(answer.move)}{ponder}")

    def send_thinking(self, answer: Answer) -> None:
        mate = None if answer.score is None else answer.score.mate()
        if mate is not None:
            score = f" score mate {mate}"
        else:  # no score at all for a move the engine did not search (a fallback)
            score = f" score cp {answer.score.score()}" if answer.score is not None else ""
        pv = " ".join(self.to_gui(m) for m in answer.pv)
        self.send(
            f"info depth {answer.depth}{score} nodes {answer.nodes} "
            f"time {round(answer.seconds * 1000)} pv {pv}"
        )

    def send_info(self, info: InfoDict) -> None:
        """One ``info`` line of an analysis, as the engine gave it (moves in the GUI's
        notation); lines without a principal variation are left out."""
        if "pv" not in info or not info["pv"]:
            return
        parts = [f"info depth {info.get('depth', 0)}"]
        if "seldepth" in info:
            parts.append(f"seldepth {info['seldepth']}")
        if "score" in info:
            relative = info["score"].relative
            mate = relative.mate()
            parts.append(
                f"score mate {mate}" if mate is not None else f"score cp {relative.score()}"
            )
        for key in ("nodes", "nps"):
            if key in info:
                parts.append(f"{key} {info[key]}")
        if "time" in info:
            parts.append(f"time {round(info['time'] * 1000)}")
        parts.append("pv " + " ".join(self.to_gui(m) for m in info["pv"]))
        self.send(" ".join(parts))


def check_option(name: str, value: str) -> bool:
    """A check option's value."""
    if value.lower() not in ("true", "false"):
        raise SessionError(f"{name} must be true or false, not {value[:40]!r}")
    return value.lower() == "true"


def _integer(name: str, value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise SessionError(f"option {name} needs an integer, not {value!r}") from None
