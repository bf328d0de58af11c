"""The Ray backend on a local Ray instance, and on a head started as docs/match.md says
(token authentication on, as Ray 2.60 turns it on) through `ladder match --ray-address`
(Ray is a test dependency: missing = failure)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest
import ray

from ladder.match.exit_codes import ExitCode
from ladder.match.output.store import ResultStore
from ladder.match.runner.match_run import run_match
from tests.match.helpers import match_config, start_interruptible


def test_match_on_local_ray(tmp_path: Path, engine_exe: Path) -> None:
    from ladder.match.runner.ray_backend import RayBackend

    config = match_config("level:1", "greedy", 4, "atomic-xiangqi", seed=2)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        backend = RayBackend("local", 2)
        assert backend.slots == 2
        stats, result = run_match(
            config, db=tmp_path / "r.sqlite", backend=backend, pgn=tmp_path / "r.pgn"
        )
    finally:
        ray.shutdown()
    assert result.played == 4 and stats.trinomial.games == 4
    with ResultStore(tmp_path / "r.sqlite") as store:
        records = list(store.records([config.match_id]))
    assert sorted(r.game_no for r in records) == [0, 1, 2, 3]
    # (the --pgn file's form: made with each game, on the Ray worker that played it)
    assert all(r.pgn.startswith("[Event") for r in records)
    # the games ran in Ray worker processes, not in the driver, two at a time (a task
    # plays its games in turn; the four were dealt to two tasks, one per idle CPU)
    workers = {r.worker.split(":")[1] for r in records}
    assert str(os.getpid()) not in workers and len(workers) == 2, workers


def test_a_sigint_stops_a_match_on_ray_while_the_driver_blocks_in_its_wait(
    tmp_path: Path, engine_exe: Path
) -> None:
    """The driver blocks in Ray's wait until a game ends (no slices: each wake-up cost
    its CPU): a SIGINT in the middle of searches that would take minutes still stops the
    run at once, exit 130 in one line."""
    slow = f"engine:{engine_exe},nodes=500000000"
    proc = start_interruptible(
        [sys.executable, "-m", "ladder.cli", "match", slow, slow, "--variant", "xiangqi",
         "--games", "2", "-j", "2", "--db", str(tmp_path / "r.sqlite"),
         "--ray-address", "local"],
    )  # fmt: skip
    try:
        driver = psutil.Process(proc.pid)
        deadline = time.monotonic() + 120
        while not _searching(driver):  # both games' engines are well into a search
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            assert time.monotonic() < deadline, "the engines never searched"
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)  # the games would take minutes
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == ExitCode.INTERRUPTED, err
    assert "Traceback" not in err, err
    assert [line for line in err.splitlines() if "interrupted" in line] == [
        "ladder match: interrupted; run the same command to resume"
    ], err


def _searching(driver: psutil.Process) -> bool:
    """Two engines in Ray's workers (not the driver's own, which checks the players
    before the first game) have searched for a while."""
    busy = 0
    for p in driver.children(recursive=True):
        with contextlib.suppress(psutil.Error):
            engine = p.name().startswith("fairy-stockfish") and p.ppid() != driver.pid
            if engine and p.cpu_times().user > 0.5:
                busy += 1
    return busy >= 2


# ---------------------------------------------------------------------------------------
# A Ray head as docs/match.md starts one, with token authentication on


@dataclass
class Head:
    """A running `ray start --head` and the HOME that holds its token."""

    address: str
    home: Path


def _ray_env(home: Path, **more: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_AUTH")}
    return {**env, "HOME": str(home), **more}


@pytest.fixture(scope="module")
def ray_head() -> Iterator[Head]:
    # short paths: Ray's session sockets live under the temp dir (108-byte limit)
    root = Path(tempfile.mkdtemp(prefix="rayh", dir="/tmp"))
    home = root / "home"
    home.mkdir()
    ray_cli = str(Path(sys.executable).with_name("ray"))
    env = _ray_env(home)
    # a token in ~/.ray/auth_token: Ray 2.60's head then turns token authentication on
    subprocess.run([ray_cli, "get-auth-token", "--generate"], env=env, check=True,
                   capture_output=True, timeout=60)  # fmt: skip
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    head = subprocess.Popen(
        [ray_cli, "start", "--head", "--block", "--node-ip-address", "127.0.0.1",
         "--port", str(port), "--num-cpus", "2", "--include-dashboard", "false",
         "--disable-usage-stats", "--temp-dir", str(root / "t")],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,
    )  # fmt: skip
    try:
        assert head.stdout is not None
        said = []
        for line in head.stdout:  # until the head says it runs (or exits)
            said.append(line)
            if "Ray runtime started" in line:
                break
        assert any("Token authentication is enabled" in line for line in said), said
        yield Head(f"127.0.0.1:{port}", home)
    finally:
        head.terminate()  # --block: it stops the processes it started
        try:
            head.wait(60)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(head.pid, signal.SIGKILL)
            shutil.rmtree(root, ignore_errors=True)


def _match_on(
    head: Head, tmp_path: Path, home: Path, **env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ladder.cli", "match", "random", "greedy", "--variant",
         "xiangqi", "--games", "2", "--max-plies", "40", "--db", str(tmp_path / "r.sqlite"),
         "--ray-address", head.address],
        env=_ray_env(home, **env), capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_a_head_with_token_authentication_is_used_with_this_machine_s_token(
    ray_head: Head, tmp_path: Path
) -> None:
    # RAY_AUTH_MODE unset, as after `pip install ray`: it was a 75-line traceback, exit 1
    done = _match_on(ray_head, tmp_path, ray_head.home)
    assert done.returncode == ExitCode.DONE, done.stderr[-3000:]
    with ResultStore(tmp_path / "r.sqlite") as store:
        assert len(list(store.records())) == 2


@pytest.mark.slow  # Ray's client tries for 20 s before it gives up
@pytest.mark.parametrize(
    ("has_token", "env", "says"),
    [
        (False, {}, "wants its token and this machine has none: copy the head's"),
        (True, {"RAY_AUTH_MODE": "disabled"}, "RAY_AUTH_MODE is 'disabled' here: set"),
        (True, {"RAY_AUTH_TOKEN": "0" * 64}, "refused the token of RAY_AUTH_TOKEN"),
    ],
)
def test_what_the_token_lacks_is_said_in_one_line(
    ray_head: Head, tmp_path: Path, has_token: bool, env: dict[str, str], says: str
) -> None:
    home = ray_head.home if has_token else tmp_path
    done = _match_on(ray_head, tmp_path, home, **env)
    assert done.returncode == ExitCode.USAGE, done.stderr[-3000:]
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"ladder match: the Ray cluster at {ray_head.address}"), line
    assert says in line, line
