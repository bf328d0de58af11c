"""`ladder xboard`: the ladder as an XBoard/CECP engine.

    xboard -fcp "ladder xboard --level 2" -variant xiangqi      (a GUI that we did not write)

XBoard numbers a xiangqi board's ranks 0..9 (``move h0g2``), as ``maxqi`` does; an
adapter that passes a UCI engine's 1..10 ranks through (Debian's ``uci2wb``) is
forfeited by XBoard on its first move, which is why this command exists. A session::

    < xboard
    < protover 2
    > feature done=0
    > feature myname="Mistboard ladder (level 1)" variants="xiangqi,atomic-xiangqi,..."
    >   setboard=1 ping=1 usermove=1 playother=1 colors=0 analyze=1 draw=0 ...
    > feature option="Level -spin 1 1 8"
    > feature done=1
    < new
    < variant xiangqi
    < level 40 5 0
    < post
    < usermove h2e2            (the GUI's move: the engine plays Black after `new`)
    > 5 -12 1 3021 h9g7 h0g2   (thinking output: ply, score, centiseconds, nodes, pv)
    > move h9g7
    < ping 3
    > pong 3

The engine plays the side ``new``, ``go`` and ``playother`` give it, in the game the
rules checker keeps: a GUI move it refuses is answered ``Illegal move (reason): MOVE``
and not played; a refused ``setboard`` is ``tellusererror Illegal position: …`` and the
variant's start position is used instead. When the game ends by our rules (docs/rules.md)
after a move, the engine says so (``1-0 {checkmate}``, ``1/2-1/2 {sixty-plies}``);
XBoard's own rules for xiangqi differ in places (repetitions, the move count), so a GUI
should accept the engine's claims (XBoard: ``-testClaims false``). ``?`` moves now,
``force`` stops without a move, ``result`` ends the game, ``ping`` is answered after a
move in progress (as the protocol asks). A level is a node count, but on a clock
(``level MPS BASE INC`` with ``time``, or ``st``) its search also stops early, by the
rule of ``/v1/move``'s clock (:mod:`ladder.bridge.clocks`), so it never oversteps the
GUI's clock. ``analyze`` analyses at full strength, the thinking output as it comes,
again after each move or ``undo``, until ``exit``. Errors name points as XBoard does
(ranks 0..9). The ``Level``, ``Elo`` and ``Seed``
options are set with ``option Level=3``. Only ``xiangqi`` is a variant XBoard itself
knows; ``atomic-xiangqi`` and ``crazyhouse-xiangqi`` need a GUI that leaves the rules to
the engine.
"""

from __future__ import annotations

from typing import TextIO

from ladder.bridge.clocks import GuiClock, XBoardTimeControl
from ladder.bridge.server import GuiServer
from ladder.bridge.session import SEED_OPTION_MAX, Answer, LevelSession, SessionError
from ladder.level_engine.engine_lines import MATE_CP
from ladder.variants import VARIANT_IDS
from protocol import InfoDict, Limit, RankNumbering
from protocol.info import XBOARD_MATE

__all__ = ["XBoardServer"]

#: Commands a GUI may send that this engine reads and ignores (pondering, ``otim``, …).
IGNORED = frozenset(
    {
        "accepted",
        "rejected",
        "random",
        "sd",
        "otim",
        "nps",
        "hard",
        "easy",
        "computer",
        "name",
        "rating",
        "ics",
        "memory",
        "cores",
        "egtpath",
        "draw",
        "hint",
        "bk",
        "pause",
        "resume",
        "white",
        "black",
        ".",
    }
)


class XBoardServer(GuiServer):
    """`ladder xboard` (see the module docstring)."""

    name = "xboard"
    ranks = RankNumbering.ZERO_BASED

    def __init__(self, session: LevelSession, output: TextIO | None = None) -> None:
        super().__init__(session, output)
        self.start_variant = session.variant
        self.force = False
        self.side: str | None = "black"  # the side the engine plays (None: neither)
        self.post = True
        self.pongs: list[str] = []  # pings that came while the engine was thinking
        self.claimed = -1  # the ply whose ending was announced
        # The GUI played on after the end our rules see (its rules differ): so do we.
        self.playing_on = False
        self.analysing = False  # `analyze` until `exit`
        self.time_control = XBoardTimeControl()
        self.commands.update(
            {
                "xboard": self.cmd_ignore,
                "protover": self.cmd_protover,
                "new": self.cmd_new,
                "variant": self.cmd_variant,
                "force": self.cmd_force,
                "go": self.cmd_go,
                "playother": self.cmd_playother,
                "usermove": self.cmd_usermove,
                "setboard": self.cmd_setboard,
                "undo": self.cmd_undo,
                "remove": self.cmd_remove,
                "post": self.cmd_post,
                "nopost": self.cmd_nopost,
                "ping": self.cmd_ping,
                "?": self.cmd_move_now,
                "result": self.cmd_result,
                "option": self.cmd_option,
                "quit": self.cmd_quit,
                "level": self.cmd_level,
                "st": self.cmd_st,
                "time": self.cmd_time,
                "analyze": self.cmd_analyze,
                "exit": self.cmd_exit,
                **dict.fromkeys(IGNORED, self.cmd_ignore),
            }
        )

    def error(self, message: str) -> None:
        self.send(f"Error ({message})")

    def note(self, message: str) -> None:
        self.send(f"# {message}")  # a comment: XBoard logs it, nothing pops up

    def unknown(self, line: str) -> None:
        self.send(f"Error (unknown command): {line[:80]}")

    async def handle(self, line: str) -> None:
        words = line.split()
        if words and words[0] not in self.commands and self.from_gui(words[0]) is not None:
            await self.cmd_usermove(words[:1])  # a move sent without `usermove`
        else:
            await super().handle(line)
        if self.analysing and not self.searching and not self.quitting:
            self.start_search(self.analysis)  # the position changed: analyse it afresh

    async def cancel_search(self) -> None:
        if self.analysing and self.searching:
            await self.finish_search()  # an analysis is stopped, not abandoned
        await super().cancel_search()
        self.flush_pongs()

    def flush_pongs(self) -> None:
        for number in self.pongs:
            self.send(f"pong {number}")
        self.pongs.clear()

    # ------------------------------------------------------------------ setup

    async def cmd_ignore(self, args: list[str]) -> None:
        return None

    async def cmd_protover(self, args: list[str]) -> None:
        session = self.session
        self.send("feature done=0")
        self.send(
            f'feature myname="Mistboard ladder ({session.strength_name()}, '
            f'ladder {session.levels_version})" '
            f'variants="{",".join(VARIANT_IDS)}" setboard=1 ping=1 usermove=1 playother=1 '
            "colors=0 analyze=1 draw=0 sigint=0 sigterm=0 reuse=1 time=1 name=0 pause=0 "
            "nps=0 memory=0 smp=0 exclude=0 setscore=0 debug=1"
        )
        self.send(f'feature option="Level -spin {session.level} 1 8"')
        self.send(f'feature option="Seed -spin {session.seed} 0 {SEED_OPTION_MAX}"')
        spin = self.elo_spin()
        if spin is not None:  # Elo needs a calibrated levels file; without one it is not offered
            self.send('feature option="Elo -spin {} {} {}"'.format(*spin))
        # done=0 holds the GUI until done=1 (the protocol's way for an engine that
        # starts slowly): the engine is started and set up first, out of any clock.
        try:
            await self.ready()
        finally:
            self.send("feature done=1")

    async def cmd_new(self, args: list[str]) -> None:
        await self.cancel_search()
        self.session.set_variant(self.start_variant)
        self.say_elo_note()
        self.force, self.side = False, "black"
        self.forget_the_end()
        self.time_control.clock_ms = None  # the time control stays; its clock starts again

    async def cmd_variant(self, args: list[str]) -> None:
        await self.cancel_search()
        name = args[0] if args else ""
        if name not in VARIANT_IDS:
            self.send(f"Error (unsupported variant): {name[:40]}")
            return
        self.session.set_variant(name)
        self.say_elo_note()
        self.forget_the_end()

    async def cmd_setboard(self, args: list[str]) -> None:
        await self.cancel_search()
        fields = list(args)
        if len(fields) == 4 and fields[2].isdigit() and fields[3].isdigit():
            fields[2:2] = ["-", "-"]  # XBoard's xiangqi FEN has no castling or e.p. field
        problem = self.session.set_position(" ".join(fields), [])
        self.forget_the_end()
        if problem is not None:
            self.send(f"tellusererror Illegal position: {problem}")

    async def cmd_option(self, args: list[str]) -> None:
        name, _, value = " ".join(args).partition("=")
        key = name.strip().lower()
        try:
            number = int(value)
        except ValueError:
            raise SessionError(f"option {name.strip()[:40]} needs a number") from None
        if key in ("level", "elo"):
            self.set_strength(key, number)
            self.say_elo_note()
        elif key == "seed":
            self.session.set_seed(number)
        else:
            raise SessionError(f"unknown option {name.strip()[:40]!r}")

    # ------------------------------------------------------------------ clocks

    async def cmd_level(self, args: list[str]) -> None:
        self.time_control.level(args)

    async def cmd_st(self, args: list[str]) -> None:
        self.time_control.st(args)

    async def cmd_time(self, args: list[str]) -> None:
        self.time_control.time(args)

    def clock(self) -> GuiClock:
        """The engine's clock for the move it is about to make."""
        return self.time_control.clock(self.session.game.game_ply)

    # ------------------------------------------------------------------ analysis

    async def cmd_analyze(self, args: list[str]) -> None:
        await self.cancel_search()
        self.force, self.side, self.analysing = True, None, True

    async def cmd_exit(self, args: list[str]) -> None:
        if self.analysing:
            await self.cancel_search()
            self.analysing = False

    async def analysis(self) -> None:
        await self.analysis_answer(Limit(), self.send_info)

    def send_info(self, info: InfoDict) -> None:
        """One line of an analysis as thinking output (ply, score, centiseconds, nodes, pv)."""
        if "pv" not in info or not info["pv"] or "score" not in info:
            return
        relative = info["score"].relative
        mate = relative.mate()
        score = relative.score(mate_score=MATE_CP)
        if mate is not None:
            score = XBOARD_MATE + mate if mate > 0 else -XBOARD_MATE + mate
        pv = " ".join(self.to_gui(m) for m in info["pv"])
        centis = round(info.get("time", 0.0) * 100)
        self.send(f"{info.get('depth', 0)} {score} {centis} {info.get('nodes', 0)} {pv}")

    async def cmd_post(self, args: list[str]) -> None:
        self.post = True

    async def cmd_nopost(self, args: list[str]) -> None:
        self.post = False

    # ------------------------------------------------------------------ who moves

    async def cmd_force(self, args: list[str]) -> None:
        await self.cancel_search()
        self.force, self.side = True, None

    async def cmd_go(self, args: list[str]) -> None:
        await self.cancel_search()
        self.force, self.side, self.analysing = False, self.session.game.turn, False
        if self.claimed == self.session.game.ply:
            self.playing_on = True  # `go` after our claim: the GUI plays on
        self.think()

    async def cmd_playother(self, args: list[str]) -> None:
        await self.cancel_search()
        self.force, self.analysing = False, False
        self.side = "black" if self.session.game.turn == "red" else "red"

    async def cmd_usermove(self, args: list[str]) -> None:
        if self.analysing:
            await self.cancel_search()  # the analysis restarts after the move
        if self.searching:
            self.send(f"Error (command not legal now): usermove {' '.join(args)[:40]}")
            return
        text = args[0] if args else ""
        move = self.from_gui(text)
        if move is None:
            problem: str | None = self.malformed(text)
        else:
            over = self.session.game.outcome() is not None
            refused = self.session.play(move)
            self.playing_on = self.playing_on or (over and refused is None)
            problem = None if refused is None else self.gui_reason(refused)
        if problem is not None:
            self.send(f"Illegal move ({problem[:160]}): {text[:40]}")
            return
        self.announce_end()
        if not self.force and self.side == self.session.game.turn:
            self.think()

    async def cmd_undo(self, args: list[str]) -> None:
        await self.take_back(1)

    async def cmd_remove(self, args: list[str]) -> None:
        await self.take_back(2)

    async def take_back(self, plies: int) -> None:
        await self.cancel_search()
        game = self.session.game
        if game.ply < plies:
            self.send("Error (command not legal now): no move to take back")
            return
        for _ in range(plies):
            game.pop()
        self.forget_the_end()

    # ------------------------------------------------------------------ thinking

    def think(self) -> None:
        if self.session.game.outcome() is not None and not self.playing_on:
            self.announce_end()  # a claim; a GUI that plays on gets a move next time
            return
        self.start_search(self.search)

    async def search(self) -> None:
        answer = await self.level_answer(time_limit_ms=self.clock().time_limit_ms())
        if answer is None:
            self.announce_end()
        else:
            self.report(answer)
        self.flush_pongs()

    def report(self, answer: Answer) -> None:
        if self.post and answer.score is not None:  # (none: a move the engine did not search)
            score = answer.score.score(mate_score=MATE_CP)
            mate = answer.score.mate()
            if mate is not None:  # XBoard: 100000 + N for mate in N moves
                score = XBOARD_MATE + mate if mate > 0 else -XBOARD_MATE + mate
            pv = " ".join(self.to_gui(m) for m in answer.pv)
            centis = round(answer.seconds * 100)
            self.send(f"{answer.depth} {score} {centis} {answer.nodes} {pv}")
        self.session.play(answer.move)  # legal: the level chose it among the legal moves
        self.send(f"move {self.to_gui(answer.move)}")
        self.announce_end()

    def forget_the_end(self) -> None:
        """A new position: no end claimed yet, and no playing on past one."""
        self.claimed, self.playing_on = -1, False

    def announce_end(self) -> None:
        """Say how the game ended (once), if it has by our rules (and the GUI has not
        played on past it)."""
        game = self.session.game
        outcome = game.outcome()
        if outcome is None or self.claimed == game.ply or self.playing_on:
            return
        self.claimed = game.ply
        self.send(f"{outcome.result} {{{outcome.reason.value}}}")

    async def end_of_input(self) -> None:
        # As `ladder uci` does: a move asked for before the input ended is still played
        # (`printf 'xboard\nnew\ngo\n' | ladder xboard`), at its level's node count; an
        # analysis never ends by itself, so it is left.
        if self.searching and not self.analysing:
            await self.wait_search()

    async def cmd_move_now(self, args: list[str]) -> None:
        if self.searching:
            await self.session.stop()

    @property
    def analysis_next(self) -> bool:
        return self.analysing

    async def cmd_ping(self, args: list[str]) -> None:
        number = args[0] if args else ""
        if self.searching and not self.analysing:
            self.pongs.append(number)  # answered after the move, as the protocol asks
        else:
            if not self.searching:
                await self.ready()  # the engine set up now, not in the next move's clock
            self.send(f"pong {number}")

    async def cmd_result(self, args: list[str]) -> None:
        await self.cancel_search()
        self.force, self.side = True, None

    async def cmd_quit(self, args: list[str]) -> None:
        self.quitting = True
