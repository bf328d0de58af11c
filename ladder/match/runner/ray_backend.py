"""Running games as Ray tasks across a cluster (optional: ``pip install ray``).

Each task (``num_cpus=1``) plays :data:`GAMES_PER_TASK` games one after the other
(:func:`ladder.match.runner.game_process.run_tasks`); Ray reuses its worker processes,
so engines stay started between games as in the local pool. The driver collects the
records and writes the database, as with the local pool. It blocks in Ray's wait until
a task ends (a SIGINT cuts it short: :attr:`RayBackend.interruptible`).
Every node needs this project installed (same Python environment) and the engine at the
path the player specs name (``--engine``'s, else the node's own lookup: ``$LADDER_ENGINE``,
then ``ladder engine path``'s).

A cluster started with token authentication (Ray 2.60's ``ray start --head`` turns it
on when this machine has a token, ``~/.ray/auth_token``) refuses a driver that does not
send its token, and Ray's driver sends one only under ``RAY_AUTH_MODE=token``: when
that is not set and a token is here (``RAY_AUTH_TOKEN``, ``RAY_AUTH_TOKEN_PATH``,
``~/.ray/auth_token``, Ray's own order), the driver runs with it set, as the head did.
A cluster that cannot be reached or refuses the token is a :class:`ClusterError` in one
line saying what is missing.
"""

from __future__ import annotations

import logging
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ladder.match.game.play import GameRecord, GameTask
from ladder.match.runner.errors import ClusterError
from ladder.match.runner.game_process import run_tasks

__all__ = ["RayBackend", "token_here"]

log = logging.getLogger(__name__)

#: Games a Ray task plays: Ray's own work per task (about 1 ms of the driver's CPU a
#: task, in its thread and Ray's: the submission, the result, their bookkeeping) is
#: shared by them (scripts/bench_match.py --ray, quiet machine: 2.26 ms of the driver's
#: CPU a game at 2, 1.73 at 4, the same games a second). An SPRT decided mid-batch has
#: the batch's other games played and counted, as games in flight are.
GAMES_PER_TASK = 4

#: Ray's switch and token sources (https://docs.ray.io/en/latest/ray-security/token-auth.html).
AUTH_MODE = "RAY_AUTH_MODE"
TOKEN_SOURCES = ("RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH")
DEFAULT_TOKEN = Path.home() / ".ray" / "auth_token"


def token_here() -> str | None:
    """Where this machine's Ray token is (None: nowhere Ray looks)."""
    for name in TOKEN_SOURCES:
        if os.environ.get(name):
            return name
    return str(DEFAULT_TOKEN) if DEFAULT_TOKEN.is_file() else None


def _connect(ray: Any, address: str, env: dict[str, Any], source: str | None) -> None:
    """``ray.init`` on a cluster (see the module). Ray's own lines on standard error
    while it connects (its GCS client retries for 20 s, a warning a second) are said
    after a connection, and only logged (DEBUG) when it fails: the failure is one line."""
    with tempfile.TemporaryFile() as said:
        sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(said.fileno(), 2)
        try:
            ray.init(address=address, runtime_env=env, log_to_driver=False)
            failure: Exception | None = None
        except Exception as exc:
            failure = exc
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
        said.seek(0)
        text = said.read().decode("utf-8", "replace")
    if failure is not None:
        log.debug("Ray while connecting to %s:\n%s", address, text)
        raise ClusterError(_refusal(address, failure, source)) from failure
    sys.stderr.write(text)


def _refusal(address: str, exc: BaseException, source: str | None) -> str:
    """One line: why the cluster at ``address`` could not be used."""
    from ray.exceptions import AuthenticationError

    chain: list[BaseException] = []
    cause: BaseException | None = exc
    while cause is not None and cause not in chain:
        chain.append(cause)
        cause = cause.__cause__ or cause.__context__
    # Ray's ConnectionError carries the GCS client's error as text only
    if any(isinstance(e, AuthenticationError) or "InvalidAuthToken" in str(e) for e in chain):
        mode = os.environ.get(AUTH_MODE, "")
        if source is None:
            return (
                f"the Ray cluster at {address} wants its token and this machine has none: "
                f"copy the head's (`ray get-auth-token` there) to {DEFAULT_TOKEN}, or set "
                "RAY_AUTH_TOKEN"
            )
        if mode.lower() != "token":
            return (
                f"the Ray cluster at {address} wants its token, and {AUTH_MODE} is "
                f"{mode!r} here: set {AUTH_MODE}=token"
            )
        return (
            f"the Ray cluster at {address} refused the token of {source}: use the head's "
            "(`ray get-auth-token` there)"
        )
    first = str(exc).strip().splitlines()
    return f"cannot use the Ray cluster at {address}: {first[0] if first else type(exc).__name__}"


class RayBackend:
    """Games as Ray tasks. ``address``: a cluster address, ``auto``, or ``local`` (start
    a Ray instance here, with ``slots`` CPUs)."""

    #: ``ray.wait`` runs Python's signal handlers while it blocks and raises what they
    #: raise, so the driver blocks in it: each call costs the driver about 0.1 ms in its
    #: own thread and as much in Ray's, which in slices of 0.1 s was a millisecond a
    #: second (scripts/bench_match.py --ray).
    interruptible = True

    def __init__(self, address: str, slots: int | None = None) -> None:
        token = token_here() if address != "local" else None
        if AUTH_MODE not in os.environ and token is not None:
            os.environ[AUTH_MODE] = "token"  # before Ray reads its configuration
        try:
            import ray
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise RuntimeError(
                "the Ray backend needs `pip install ray` (the `ray` extra of this project)"
            ) from exc
        self._ray = ray
        self._owns = not ray.is_initialized()
        if self._owns:
            prefixes = ("LADDER_", "MISTBOARD_")  # MISTBOARD_ENGINE: LADDER_ENGINE's old name
            env = {"env_vars": {k: v for k, v in os.environ.items() if k.startswith(prefixes)}}
            if address == "local":
                ray.init(
                    num_cpus=slots or os.cpu_count(),
                    include_dashboard=False,
                    runtime_env=env,
                    log_to_driver=False,
                )
            else:
                _connect(ray, address, env, token)
        cpus = int(ray.cluster_resources().get("CPU", 1))  # type: ignore[no-untyped-call]
        self.slots = min(slots, cpus) if slots else cpus
        self.batch = GAMES_PER_TASK
        self._remote = ray.remote(num_cpus=1, max_retries=1)(run_tasks)
        self._filling: list[list[tuple[object, GameTask]]] = []  # tasks not started yet
        self._games: dict[Any, list[object]] = {}  # a started task's games (handles)

    def submit(self, task: GameTask) -> object:
        # The games are dealt to one filling task per idle slot, so that fewer games
        # than the slots can hold (a short match, the schedule's end) still run side by
        # side; a task starts when it is full, or at the next wait.
        handle = object()
        idle = max(1, self.slots - len(self._games))
        if len(self._filling) < idle:
            self._filling.append([])
        fill = min(range(len(self._filling)), key=lambda i: len(self._filling[i]))
        self._filling[fill].append((handle, task))
        if len(self._filling[fill]) == self.batch:
            self._start(self._filling.pop(fill))
        return handle

    def _start(self, games: list[tuple[object, GameTask]]) -> None:
        handles, tasks = zip(*games, strict=True)
        self._games[self._remote.remote(list(tasks))] = list(handles)

    def wait(
        self, handles: Sequence[Any], timeout: float | None
    ) -> list[tuple[Any, GameRecord | BaseException]]:
        while self._filling:  # no more games come before this wait ends
            self._start(self._filling.pop())
        wanted = set(handles)
        refs = [ref for ref, games in self._games.items() if wanted.intersection(games)]
        ready, _ = self._ray.wait(refs, num_returns=1, timeout=timeout)
        out: list[tuple[Any, GameRecord | BaseException]] = []
        for ref in ready:
            games = self._games.pop(ref)
            try:
                outcomes: list[GameRecord | BaseException] = self._ray.get(ref)
            except Exception as exc:
                outcomes = [exc] * len(games)
            out.extend(zip(games, outcomes, strict=True))
        return out

    def close(self, cancel: bool = False) -> None:
        if self._owns:
            self._ray.shutdown()
