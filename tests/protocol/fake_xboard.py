#!/usr/bin/env python3
"""A fake XBoard/CECP engine for fault injection: a real subprocess over real pipes.

    python fake_xboard.py MODE [--child] [--once PATH] [--features TEXT]

It keeps no board, only a count of the moves on it: it answers ``go`` (and a move out
of force mode) with the move of a fixed list at that count, in XBoard's 0..9 ranks,
after two thinking-output lines.

Modes (the fault, and when it strikes):

    normal            a well-behaved protover 2 engine
    banner            a banner in ANSI colours before its features, which it sends late
                      (done=0 first)
    protover1         sends no features at all (an engine from before protocol 2)
    crash-at-start    exits with code 3 before reading anything
    crash-mid-search  dies on `go` after one thinking line
    hang-search       never moves, even on `?`
    illegal           answers the first move it is sent with `Illegal move: …`
    resign            answers `go` with `resign`
    claim             moves, then claims `1-0 {White mates}`
    claim-only        answers `go` with `0-1 {Black mates}` and no move
    draw-offer        offers a draw, then moves
    garbage-move      answers `go` with a `move` line holding control characters
    bad-move          answers `go` with `move zz9`

--child      start a `sleep` child first (the client must kill the whole tree)
--once P     fault only if file P does not exist, creating it (a restart is healthy)
--features T the protover 2 features to announce instead of the default ones
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys

MODES = {
    "normal",
    "banner",
    "protover1",
    "crash-at-start",
    "crash-mid-search",
    "hang-search",
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


def main(argv: list[str]) -> int:
    mode = argv[0]
    if mode not in MODES:
        raise SystemExit(f"unknown mode {mode}")
    child = None
    features = FEATURES
    i = 1
    while i < len(argv):
        if argv[i] == "--child":
            child = subprocess.Popen(["sleep", "600"])
            i += 1
        elif argv[i] == "--once":
            path = argv[i + 1]
            if os.path.exists(path):
                mode = "normal"
            else:
                with open(path, "w") as fh:
                    fh.write(mode)
            i += 2
        elif argv[i] == "--features":
            features = argv[i + 1]
            i += 2
        else:
            raise SystemExit(f"unknown argument {argv[i]}")
    del child  # left running on purpose: the client must kill it
    if mode == "crash-at-start":
        sys.stderr.write("fake xboard: crashing at start\n")
        return 3

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

    for raw in sys.stdin:
        cmd = raw.strip()
        word = cmd.split(" ", 1)[0]
        if word == "xboard":
            if mode == "banner":
                sys.stdout.buffer.write(b"\x1b[1m\x1b[32mFakeBoard\x1b[0m\n\n\xff\xfe\n")
                sys.stdout.flush()
        elif word == "protover":
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
