#!/usr/bin/env python3
"""A fake UCI/UCCI engine for fault injection: a real subprocess over real pipes.

    python fake_engine.py MODE [--child] [--once PATH] [--leak-mb N]

Modes (the fault, and when it strikes):

    normal            a well-behaved engine (answers uci/ucci, isready, go, stop, quit)
    crash-at-start    exits with code 3 before reading anything
    crash-mid-search  on `go`: one info line, then dies (SIGKILL itself)
    hang-handshake    never answers uci/ucci
    hang-isready      handshake fine, never answers isready
    hang-search       never answers go with a bestmove, even after stop
    ignore-stop       searches `go infinite` and ignores stop
    garbage           answers uci with an `id` line of binary garbage and ANSI codes
    banner            a well-behaved engine that prints a banner in ANSI colours, a
                      prompt and blank lines before its handshake answer (as Sjaak II
                      does), and an unreadable unknown line before each bestmove
    long-line         answers uci with 10 MB without a newline, then waits
    flood             answers go with an endless stream of unknown lines
    bad-bestmove      answers go with a malformed `bestmove zz9`
    illegal-bestmove  answers go with `bestmove a1a1` (a move that does not move)
    slow-quit         takes 60 s to exit after quit
    slow-newgame      ucinewgame takes 1 s; the n-th go answers a1a(n+1)

--child    start a `sleep` child first (to test that the whole tree is killed)
--once P   fault only if file P does not exist, creating it (a restart is then healthy)
--leak-mb  allocate N MB more on every go (for the memory guard)
--ranks R  how it numbers a 10-rank board in UCCI mode: 0-9 (default, the UCCI
           specification) or 1-10 (as Sjaak II does); UCI mode always writes 1-10
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

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
    "illegal-bestmove",
    "slow-quit",
    "slow-newgame",
}


def out(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main(argv: list[str]) -> int:
    mode = argv[0]
    if mode not in MODES:
        raise SystemExit(f"unknown mode {mode}")
    child = None
    leak_mb = 0
    leaked: list[bytearray] = []
    zero_based = True
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
        elif argv[i] == "--leak-mb":
            leak_mb = int(argv[i + 1])
            i += 2
        elif argv[i] == "--ranks":
            zero_based = {"0-9": True, "1-10": False}[argv[i + 1]]
            i += 2
        else:
            raise SystemExit(f"unknown argument {argv[i]}")
    del child  # left running on purpose: the client must kill it

    if mode == "crash-at-start":
        sys.stderr.write("fake engine: crashing at start\n")
        return 3
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

    for raw in sys.stdin:
        cmd = raw.strip()
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
            out("ucciok" if ucci else "uciok")
        elif word == "ucinewgame":
            if mode == "slow-newgame":
                time.sleep(1.0)
        elif word == "isready":
            if mode != "hang-isready":
                out("readyok")
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


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
