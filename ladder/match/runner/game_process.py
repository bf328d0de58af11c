"""The worker side: play a :class:`~ladder.match.game.play.GameTask` in this process.

:func:`run_task` is what the local process pool and Ray both run. Each worker process
keeps an event loop and its started players (engine processes) between games, keyed by
spec and match slot, so an engine is started once per worker and not once per game; at
most :data:`MAX_PLAYERS` are kept (least recently used closed first).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
from collections import OrderedDict
from multiprocessing import util

from ladder.log_config import configure_logging
from ladder.match.game.play import GameRecord, GameTask, play_game
from ladder.match.players.player import Player
from ladder.match.players.specs import PlayerSpec
from ladder.match.players.start import make_player
from protocol import event_loop

__all__ = ["MAX_PLAYERS", "run_task", "run_tasks", "shutdown"]

#: Started players kept per worker process (calibration meets many specs).
MAX_PLAYERS = 6

_loop: asyncio.AbstractEventLoop | None = None
_players: OrderedDict[tuple[PlayerSpec, str], Player] = OrderedDict()


def _event_loop() -> asyncio.AbstractEventLoop:
    global _loop
    if _loop is None or _loop.is_closed():
        configure_logging()  # the level `ladder --log-level` gave the driver, if any
        _loop = event_loop.new_event_loop()
        atexit.register(shutdown)
        # A pool worker forked by multiprocessing's fork server leaves by os._exit,
        # which runs no atexit hook, only multiprocessing's own finalizers.
        util.Finalize(None, shutdown, exitpriority=0)
    return _loop


async def _player(spec: PlayerSpec, slot: str) -> Player:
    key = (spec, slot)
    player = _players.get(key)
    if player is not None:
        _players.move_to_end(key)
        return player
    while len(_players) >= MAX_PLAYERS:
        _, old = _players.popitem(last=False)
        with contextlib.suppress(Exception):
            await old.close()
    player = make_player(spec)
    await player.start()
    _players[key] = player
    return player


async def _run(task: GameTask) -> GameRecord:
    black_slot = "B" if task.red_slot == "A" else "A"
    red = await _player(task.red, task.red_slot)
    black = await _player(task.black, black_slot)
    return await play_game(task, red, black)


def run_task(task: GameTask) -> GameRecord:
    """Play one game in this process (blocking) and return its record, PGN included."""
    return _event_loop().run_until_complete(_run(task))


def run_tasks(tasks: list[GameTask]) -> list[GameRecord | Exception]:
    """Play games one after the other (a Ray task's batch): each game's record, or the
    exception its game raised."""
    out: list[GameRecord | Exception] = []
    for task in tasks:
        try:
            out.append(run_task(task))
        except Exception as exc:
            out.append(exc)
    return out


def shutdown() -> None:
    """Close every player of this process (engines quit)."""
    loop = _loop
    if loop is None or loop.is_closed():
        return

    async def close_all() -> None:
        while _players:
            _, player = _players.popitem()
            with contextlib.suppress(Exception):
                await player.close()

    with contextlib.suppress(Exception):
        loop.run_until_complete(close_all())
    loop.close()
