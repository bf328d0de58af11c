"""Running games as Ray tasks across a cluster (optional: ``pip install ray``).

Each game is one task (``num_cpus=1``) running :func:`ladder.match.runner.game_process.run_task`;
Ray reuses its worker processes, so engines stay started between games as in the local
pool. The driver collects the records and writes the database, as with the local pool.
Every node needs this project installed (same Python environment) and the engine at the
path the player specs name (``--engine``'s, else the node's own lookup: ``$LADDER_ENGINE``,
then ``ladder engine path``'s).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from ladder.match.game.play import GameRecord, GameTask
from ladder.match.runner.game_process import run_task

__all__ = ["RayBackend"]


class RayBackend:
    """Games as Ray tasks. ``address``: a cluster address, ``auto``, or ``local`` (start
    a Ray instance here, with ``slots`` CPUs)."""

    def __init__(self, address: str, slots: int | None = None) -> None:
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
                ray.init(address=address, runtime_env=env, log_to_driver=False)
        cpus = int(ray.cluster_resources().get("CPU", 1))  # type: ignore[no-untyped-call]
        self.slots = min(slots, cpus) if slots else cpus
        self._remote = ray.remote(num_cpus=1, max_retries=1)(run_task)

    def submit(self, task: GameTask) -> Any:
        return self._remote.remote(task)

    def wait(
        self, handles: Sequence[Any], timeout: float | None
    ) -> list[tuple[Any, GameRecord | BaseException]]:
        ready, _ = self._ray.wait(list(handles), num_returns=1, timeout=timeout)
        out: list[tuple[Any, GameRecord | BaseException]] = []
        for ref in ready:
            try:
                out.append((ref, self._ray.get(ref)))
            except Exception as exc:
                out.append((ref, exc))
        return out

    def close(self, cancel: bool = False) -> None:
        if self._owns:
            self._ray.shutdown()
