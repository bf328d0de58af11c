"""Helpers of the match tests: the `ladder` command run as a user runs it, a match's
configuration and one game's task."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import psutil

from ladder.levels import LEVELS_FILE, elo_range, load_levels
from ladder.match.config import MatchConfig
from ladder.match.game.adjudication import Adjudication
from ladder.match.game.play import GameTask
from ladder.match.openings import Opening, load_openings
from ladder.match.players.specs import PlayerSpec


def run_ladder(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -m ladder.cli ARGS``, its output captured as text (``env``: its whole
    environment, else this process's)."""
    return subprocess.run(
        [sys.executable, "-m", "ladder.cli", *args],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=cwd,
        env=env,
    )


def start_interruptible(cmd: list[str], **kwargs: Any) -> subprocess.Popen[str]:
    """``cmd`` started as a supervisor starts it (SIGINT at its default, see
    :func:`default_sigint`), its standard error captured as text, its output dropped."""
    return subprocess.Popen(
        cmd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_sigint,
        **kwargs,
    )


def default_sigint() -> None:
    """In the child before it runs: SIGINT at its default, as a supervisor starts a
    process. (A shell without job control starts background commands with SIGINT
    ignored, and a command keeps an ignored SIGINT ignored, as `ladder match` does: a
    suite started that way must not hand that on to the runs it interrupts.)"""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def match_workers(driver: psutil.Process) -> list[psutil.Process]:
    """A running match's game processes: the children of the fork server, the driver's
    child that forks them (its command line names it; a forked worker keeps it)."""
    return [
        worker
        for server in driver.children()
        if "forkserver" in " ".join(server.cmdline())
        for worker in server.children()
    ]


def match_config(
    a: str, b: str, games: int, variant: str = "xiangqi", seed: int = 5, **kw: Any
) -> MatchConfig:
    """A match of players ``a`` and ``b`` (specs as on the command line) on the
    variant's own openings, games capped at 150 plies."""
    return MatchConfig(
        variant=variant,
        player_a=PlayerSpec.parse(a),
        player_b=PlayerSpec.parse(b),
        openings=load_openings(variant),
        games=games,
        seed=seed,
        adjudication=Adjudication(max_plies=150),
        **kw,
    )


def first_game(
    variant: str,
    opening: Opening,
    red: PlayerSpec,
    black: PlayerSpec,
    *,
    match_id: str,
    seed: int = 1,
    adjudication: Adjudication | None = None,
) -> GameTask:
    """The task of a match's first game: ``red`` (player A) against ``black``, making
    its PGN as for a ``--pgn`` file."""
    return GameTask(
        match_id=match_id,
        game_no=0,
        pair_no=0,
        opening_no=0,
        variant=variant,
        opening=opening,
        red=red,
        black=black,
        red_slot="A",
        seed=seed,
        adjudication=adjudication or Adjudication(),
        pgn=True,
    )


def elo_beyond_atomic() -> tuple[str, str]:
    """An ``elo:N`` spec the shipped ladder rates in another variant but not in atomic,
    and the refusal it gets there (``elo:N: atomic-xiangqi: elo must be between …``)."""
    levels = load_levels(LEVELS_FILE)
    top = max(span[1] for span in map(elo_range, levels.values()) if span)
    low, high = elo_range(levels["atomic-xiangqi"]) or (0, 0)
    assert top > high + 1, "the test needs a variant rated above atomic"
    spec = f"elo:{top:.0f}"
    return spec, f"{spec}: atomic-xiangqi: elo must be between {low:.0f} and {high:.0f}"
