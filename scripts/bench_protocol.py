#!/usr/bin/env python3
"""What does the protocol client add to a search? Client vs a minimal raw-pipe loop.

For each N in (1, 1000, 100000) the same command sequence, in one write,

    ucinewgame / position startpos moves h3e3 b10c8 / go nodes N

with ``FinalInfoOnly`` on if the engine has it (as the client sets it: our patched FSF
then prints one ``info`` line, the last, before ``bestmove``)
is run through :class:`protocol.Engine` (asyncio, merging the info lines, validating
the bestmove) and through a minimal blocking loop on a raw pipe (write the bytes, read
lines until ``bestmove``), against two processes of the same engine executable in the
same run, interleaved (client, raw, client, raw, …) so that machine load hits both
alike. Prints the medians and the difference; the target is ≤ 1 ms added per search.

    .venv/bin/python scripts/bench_protocol.py [--engine PATH] [--protocol uci|ucci]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import time
from pathlib import Path

from protocol import Dialect, Engine, Limit, UciEngine

ROOT = Path(__file__).resolve().parent.parent

VARIANTS_INI = ROOT / "variants.ini"
MOVES = ["h3e3", "b10c8"]
REPEATS = {1: 300, 1000: 100, 100_000: 12}


def default_engine() -> Path:
    cache = ROOT / ".cache"
    for candidate in (cache / "fairy-stockfish", cache / "fairy-stockfish-unpatched"):
        if candidate.exists():
            return candidate.resolve()
    raise SystemExit("no engine: run `make engine`")


class RawEngine:
    """The baseline: blocking writes and readline on the engine's pipes, nothing else."""

    def __init__(self, exe: Path, protocol: Dialect = Dialect.UCI, hash_mb: int = 16) -> None:
        # Buffered reads (readline on an unbuffered pipe reads byte by byte), writes
        # flushed at once.
        self.proc = subprocess.Popen([str(exe)], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin = self.proc.stdin
        self.stdout = self.proc.stdout
        hello = protocol.value
        ucci = protocol is Dialect.UCCI
        self.send(f"{hello}\n")
        final_info = "FinalInfoOnly" in self.read_until(f"{hello}ok", keep="option ")
        setopt = "setoption {} {}\n" if ucci else "setoption name {} value {}\n"
        self.send(
            (setopt.format("FinalInfoOnly", "true") if final_info else "")
            + setopt.format("Threads", 1)
            + setopt.format("hashsize" if ucci else "Hash", hash_mb)
            + setopt.format("VariantPath", VARIANTS_INI)
            + setopt.format("UCI_Variant", "mistboard-xiangqi")
            + "isready\n"
        )
        self.read_until("readyok")

    def send(self, text: str) -> None:
        self.stdin.write(text.encode())
        self.stdin.flush()

    def read_until(self, prefix: str, keep: str | None = None) -> str:
        """Lines up to the one starting with ``prefix``: that line, after the lines that
        start with ``keep`` (if given)."""
        kept = []
        while True:
            line = self.stdout.readline()
            if not line:
                raise RuntimeError("raw engine died")
            if keep is not None and line.startswith(keep.encode()):
                kept.append(line.decode())
            if line.startswith(prefix.encode()):
                return "".join(kept) + line.decode()

    def search(self, position: str, nodes: int) -> tuple[float, str]:
        """A new game and ``go nodes``: (seconds, bestmove)."""
        start = time.perf_counter()
        self.send(f"ucinewgame\n{position}\ngo nodes {nodes}\n")
        best = self.read_until("bestmove").split()[1]
        return time.perf_counter() - start, best

    def close(self) -> None:
        self.send("quit\n")
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--engine", type=Path, default=None)
    parser.add_argument("--protocol", choices=["uci", "ucci"], default="uci")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply repeat counts")
    args = parser.parse_args()
    exe = args.engine or default_engine()
    protocol = Dialect(args.protocol)

    engine = await Engine.start(
        exe, protocol=protocol, ranks="0-9" if args.protocol == "ucci" else None
    )
    assert isinstance(engine, UciEngine)  # UcciEngine is one too
    raw = RawEngine(exe, protocol)
    try:
        await engine.configure({"Threads": 1, "Hash": 16})
        await engine.load_variants(VARIANTS_INI)
        await engine.set_variant("mistboard-xiangqi")
        position = engine.position_command(None, MOVES)  # same bytes for both
        print(f"engine: {exe} ({engine.id.get('name')}), protocol {protocol.value}")
        print(f"command: ucinewgame / {position} / go nodes N\n")
        print(
            f"{'N':>8} {'runs':>5} {'client ms':>10} {'raw ms':>10} {'added ms':>9} "
            f"{'ratio':>6} {'nodes':>7}"
        )
        for nodes, repeats in REPEATS.items():
            repeats = max(3, int(repeats * args.scale))
            client_times: list[float] = []
            raw_times: list[float] = []
            added: list[float] = []
            searched = 0
            for _ in range(repeats):
                start = time.perf_counter()
                result = await engine.search(None, MOVES, Limit(nodes=nodes), new_game=True)
                client = time.perf_counter() - start
                baseline, _ = raw.search(position, nodes)
                client_times.append(client)
                raw_times.append(baseline)
                added.append(client - baseline)
                searched = result.info.get("nodes", 0)
            c = statistics.median(client_times) * 1000
            r = statistics.median(raw_times) * 1000
            d = statistics.median(added) * 1000
            print(
                f"{nodes:>8} {repeats:>5} {c:>10.3f} {r:>10.3f} {d:>+9.3f} {c / r:>6.3f} "
                f"{searched:>7}"
            )
        print("\nadded = median of per-pair differences (client - raw); target <= 1 ms")
    finally:
        await engine.close()
        raw.close()


if __name__ == "__main__":
    asyncio.run(main())
