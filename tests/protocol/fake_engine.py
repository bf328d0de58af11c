#!/usr/bin/env python3
"""A fake engine for fault injection, in every dialect: a real subprocess over real pipes.

    python fake_engine.py MODE [--child] [--once PATH] [--leak-mb N] [--ranks R]
                               [--features TEXT]

It speaks UCI or UCCI when its first command is `uci`/`ucci`, XBoard/CECP when it is
`xboard`. Modes (the fault, and when it strikes; most apply to one family):

    normal            a well-behaved engine
    crash-at-start    exits with code 3 before reading anything
    crash-mid-search  on `go`: one info/thinking line, then dies (SIGKILL itself)
    hang-search       never answers go with a move, even after stop/`?`
    banner            a well-behaved engine that prints a banner in ANSI colours (and
                      blank lines, a prompt, undecodable bytes) before its handshake
                      answer, as Sjaak II does; UCI/UCCI: an unreadable unknown line
                      before each bestmove; XBoard: `done=0` first, the features late
  UCI/UCCI:
    hang-handshake    never answers uci/ucci
    hang-isready      handshake fine, never answers isready
    ignore-stop       searches `go infinite` and ignores stop
    garbage           answers uci with an `id` line of binary garbage and ANSI codes
    long-line         answers uci with 10 MB without a newline, then waits
    flood             answers go with an endless stream of unknown lines
    bad-bestmove      answers go with a malformed `bestmove zz9`
    control-option    an `option` line in its handshake holds an ANSI colour code
    control-info      answers go with an `info` line holding a bell, then a bestmove
    control-bestmove  answers go with its bestmove in ANSI colours
    illegal-bestmove  answers go with `bestmove a1a1` (a move that does not move)
    slow-quit         takes 60 s to exit after quit
    slow-newgame      ucinewgame takes 1 s; the n-th go answers a1a(n+1)
    bad-perft         answers go perft with counts whose sum is not its total
  XBoard (it keeps no board, only a count of the moves on it, and answers with the move
  of a fixed list at that count, after two thinking-output lines):
    protover1         sends no features at all (an engine from before protocol 2)
    illegal           answers the first move it is sent with `Illegal move: …`
    resign            answers `go` with `resign`
    claim             moves, then claims `1-0 {White mates}`
    claim-only        answers `go` with `0-1 {Black mates}` and no move
    draw-offer        offers a draw, then moves
    garbage-move      answers `go` with a `move` line holding control characters
    bad-move          answers `go` with `move zz9`

--child      start a `sleep` child first (to test that the whole tree is killed)
--once P     fault only if file P does not exist, creating it (a restart is then healthy)
--leak-mb    allocate N MB more on every go (for the memory guard)
--ranks R    how it numbers a 10-rank board in UCCI mode: 0-9 (default, the UCCI
             specification) or 1-10 (as Sjaak II does); UCI mode always writes 1-10
--features T the XBoard features to announce instead of the default ones
"""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass

MODES = {
    "normal",
    "crash-at-start",
    "crash-mid-search",
    "hang-handshake",
    "hang-isready",
    "hang-search",
    "ignore-stop",
    "garbage",
    "banner",
    "long-line",
    "flood",
    "bad-bestmove",
    "control-option",
    "control-info",
    "control-bestmove",
    "illegal-bestmove",
    "slow-quit",
    "slow-newgame",
    "bad-perft",
    "protover1",
    "illegal",
    "resign",
    "claim",
    "claim-only",
    "draw-offer",
    "garbage-move",
    "bad-move",
}

FEATURES = (
    'myname="FakeBoard 1.0" ping=1 setboard=1 usermove=1 nps=1 memory=1 smp=1 san=1 '
    'variants="xiangqi,normal" option="Style -combo Solid /// *Normal /// Risky" '
    'option="Book -check 1" option="Clear Hash -button" frobnicate=1'
)
# Commands it takes without a word.
IGNORED = frozenset(
    {"accepted", "rejected", "variant", "post", "easy", "sd", "st", "nps", "level", "time"}
    | {"otim", "memory", "cores", "option", "result"}
)
# The moves it plays, by the number of moves on its board (XBoard ranks 0..9).
MOVES = ["h2e2", "h9g7", "b0c2", "b9c7", "a3a4", "i6i5"]


def out(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


@dataclass
class Settings:
    """The command line: the mode and its options."""

    mode: str
    leak_mb: int = 0
    zero_based: bool = True
    features: str = FEATURES


def settings(argv: list[str]) -> Settings:
    """Parse the command line; start the child and apply --once on the way."""
    found = Settings(argv[0])
    if found.mode not in MODES:
        raise SystemExit(f"unknown mode {found.mode}")
    i = 1
    while i < len(argv):
        if argv[i] == "--child":
            # left running on purpose: the client must kill it
            subprocess.Popen(["sleep", "600"])
            i += 1
            continue
        value = argv[i + 1]
        if argv[i] == "--once":
            if os.path.exists(value):
                found.mode = "normal"
            else:
                with open(value, "w") as fh:
                    fh.write(found.mode)
        elif argv[i] == "--leak-mb":
            found.leak_mb = int(value)
        elif argv[i] == "--ranks":
            found.zero_based = {"0-9": True, "1-10": False}[value]
        elif argv[i] == "--features":
            found.features = value
        else:
            raise SystemExit(f"unknown argument {argv[i]}")
        i += 2
    return found


def main(argv: list[str]) -> int:
    config = settings(argv)
    if config.mode == "crash-at-start":
        sys.stderr.write("fake engine: crashing at start\n")
        return 3
    commands = (raw.strip() for raw in sys.stdin)
    first = next(commands, "quit")
    if first == "xboard":
        return xboard(config, commands)
    return uci(config, itertools.chain([first], commands))


def uci(config: Settings, commands: Iterator[str]) -> int:
    """A UCI or UCCI session (see the module docstring)."""
    mode, leak_mb, zero_based = config.mode, config.leak_mb, config.zero_based
    leaked: list[bytearray] = []
    ucci = False
    searching_infinite = False
    searches = 0

    def square(file: str, rank: int) -> str:
        """A square of a 10-rank board (rank 1..10) as this engine writes it."""
        return f"{file}{rank - 1 if ucci and zero_based else rank}"

    def bestmove() -> str:
        if mode == "slow-newgame":
            return f"bestmove a1a{1 + searches}"
        return f"bestmove {square('a', 1)}{square('a', 2)} ponder {square('a', 10)}{square('a', 9)}"

    for cmd in commands:
        word = cmd.split(" ", 1)[0]
        if word in ("uci", "ucci"):
            ucci = word == "ucci"
            if mode == "hang-handshake":
                continue
            if mode == "garbage":
                sys.stdout.buffer.write(b"id name \x00\xff\xfe garbage \x1b[31m\n")
                sys.stdout.flush()
                continue
            if mode == "banner":
                sys.stdout.buffer.write(
                    b"Fake engine 1.0\n 9\x1b[1m\x1b[46m\x1b[30mr \x1b[45mn \x1b[0m\n\n"
                    b"\xff\xfe not utf-8\n#[Xiangqi] 0w>\n"
                )
            if mode == "long-line":
                sys.stdout.write("x" * (10 * 1024 * 1024))
                sys.stdout.flush()
                continue
            out("Fake engine for fault injection")
            out("id name FakeEngine")
            out("id author Mistboard tests")
            if ucci:
                out("option hashsize type spin default 16 min 1 max 1024")
                out("option Clear_Hash type button")
                out("option UCI_Variant type combo default xiangqi var xiangqi")
                out("option usemillisec type check default true")
            else:
                out("option name Hash type spin default 16 min 1 max 1024")
                out("option name Clear Hash type button")
                out("option name UCI_Variant type combo default xiangqi var xiangqi")
            if mode == "control-option":
                out(f"option {'' if ucci else 'name '}Style type string default \x1b[31mred")
            out("ucciok" if ucci else "uciok")
        elif word == "ucinewgame":
            if mode == "slow-newgame":
                time.sleep(1.0)
        elif word == "isready":
            if mode != "hang-isready":
                out("readyok")
        elif word == "go" and mode == "bad-perft" and "perft" in cmd.split():
            out("a1a2: 3")
            out("")
            out("Nodes searched: 5")
        elif word == "go":
            searches += 1
            if leak_mb:
                block = bytearray(leak_mb * 1024 * 1024)
                block[::4096] = b"x" * len(block[::4096])  # touch every page
                leaked.append(block)
            if mode == "crash-mid-search":
                out(f"info depth 1 score cp 10 nodes 1 pv {square('a', 1)}{square('a', 2)}")
                os.kill(os.getpid(), signal.SIGKILL)
            if mode == "hang-search":
                continue
            if mode == "flood":
                while True:
                    out("wibble wobble")
            if mode == "bad-bestmove":
                out("bestmove zz9")
                continue
            if mode == "control-info":
                out(f"info depth 1 score cp 10 nodes 1 pv \x07{square('a', 1)}{square('a', 2)}")
            if mode == "control-bestmove":
                out(f"\x1b[32m{bestmove()}\x1b[0m")
                continue
            if mode == "illegal-bestmove":
                out(f"bestmove {square('a', 1)}{square('a', 1)}")
                continue
            first, reply = square("a", 1) + square("a", 2), square("a", 10) + square("a", 9)
            if "infinite" in cmd.split():
                searching_infinite = True
                out(f"info depth 1 score cp 10 nodes 1 pv {first}")
                continue
            out(
                "info depth 1 seldepth 1 multipv 1 score "
                + ("12" if ucci else "cp 12")
                + f" nodes 10 nps 1000 time 1 pv {first} {reply}"
            )
            if mode == "banner":
                sys.stdout.buffer.write(b"\x1b[32mthinking done\x1b[0m\n")
            out(bestmove())
        elif word == "stop":
            if searching_infinite and mode not in ("ignore-stop", "hang-search"):
                searching_infinite = False
                out(bestmove())
        elif word == "quit":
            if mode == "slow-quit":
                time.sleep(60)
            return 0
    return 0


def xboard(config: Settings, commands: Iterator[str]) -> int:
    """An XBoard session, after its `xboard` command (see the module docstring)."""
    mode, features = config.mode, config.features
    force = False
    plies = 0  # moves on its board
    refused = False

    def think_and_move() -> None:
        nonlocal plies
        move = MOVES[plies % len(MOVES)]
        out(f"1 12 0 10 {move}")
        if mode == "crash-mid-search":
            os.kill(os.getpid(), signal.SIGKILL)
        if mode == "hang-search":
            return
        out("# a debug comment")
        out(f" 2\t-100003 1 120 7 2 {move} a9a8?")
        if mode == "resign":
            out("resign")
        elif mode == "claim-only":
            out("0-1 {Black mates}")
        elif mode == "garbage-move":
            sys.stdout.buffer.write(b"move \x07" + move.encode() + b"\n")
            sys.stdout.flush()
        elif mode == "bad-move":
            out("move zz9")
        else:
            if mode == "draw-offer":
                out("offer draw")
            out(f"move {move}")
            plies += 1
            if mode == "claim":
                out("1-0 {White mates}")

    if mode == "banner":
        sys.stdout.buffer.write(b"\x1b[1m\x1b[32mFakeBoard\x1b[0m\n\n\xff\xfe\n")
        sys.stdout.flush()
    for cmd in commands:
        word = cmd.split(" ", 1)[0]
        if word == "protover":
            if mode == "protover1":
                continue
            if mode == "banner":
                out("feature done=0")
                out("tellics say FakeBoard 1.0")
            out(f"feature {features} done=1")
        elif word in ("new", "setboard"):
            force, plies = force and word != "new", 0
        elif word == "undo":
            plies -= 1
        elif word == "remove":
            plies -= 2
        elif word == "force":
            force = True
        elif word == "ping":
            out(f"pong {cmd.split(' ', 1)[1]}")
        elif word == "go":
            force = False
            think_and_move()
        elif word == "?":
            pass  # it moves at once anyway
        elif word == "usermove" or (len(word) == 4 and word[1].isdigit()):
            move = cmd.split()[-1]
            if mode == "illegal" and not refused:
                refused = True
                out(f"Illegal move: {move}")
            else:
                plies += 1
                if not force:
                    think_and_move()
        elif word == "quit":
            return 0
        elif word in ("sd", "st", "nps", "level", "time", "otim", "memory", "cores") or word in (
            "option",
            "undo",
            "remove",
            "result",
        ):
            pass
        else:
            out(f"Error (unknown command): {cmd}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
