"""`ladder serve --workers N` as a subprocess: N server processes on one port, the
engines split between them (never more than --engines), /metrics counting every
worker's requests, SIGHUP reaching every worker, a killed worker started again, and
SIGTERM stopping everything (no engine, no worker, no metrics folder left)."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import psutil
import pytest
from prometheus_client.parser import text_string_to_metric_families

from ladder.service.operations.server_processes import MULTIPROC_ENV, engine_shares
from tests.service.helpers import Server, check_move_reply, start_server, wait_until
from tests.service.operations.test_settings import ladder_serve, one_line_error

KEY_A = "workers-a-0123456789abcdef"
KEY_B = "workers-b-fedcba9876543210"
ENGINES = 3


def move(seed: int) -> dict[str, object]:
    return {"variant": "xiangqi", "moves": ["h3e3"], "level": 1, "seed": seed}


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def processes(server: Server) -> list[psutil.Process]:
    try:
        return psutil.Process(server.server_pid()).children(recursive=True)
    except psutil.NoSuchProcess:
        return []


def worker_pids(server: Server) -> list[int]:
    """The worker processes (multiprocessing's spawned interpreters)."""
    out = []
    for proc in processes(server):
        try:
            if any("spawn_main" in arg for arg in proc.cmdline()):
                out.append(proc.pid)
        except psutil.Error:
            pass
    return out


def engines_of(pid: int) -> list[int]:
    """The engine processes `pid` runs (by executable name)."""
    out = []
    try:
        kids = psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []
    for proc in kids:
        try:
            if "stockfish" in proc.name() and proc.status() != psutil.STATUS_ZOMBIE:
                out.append(proc.pid)
        except psutil.Error:
            pass
    return out


def all_engines(server: Server) -> list[int]:
    server.engine_pids()  # remembered for the leak check at stop()
    return engines_of(server.server_pid())


def metric(text: str, name: str, **labels: str) -> list[float]:
    """Every sample of `name` whose labels include `labels`."""
    return [
        sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == name and labels.items() <= sample.labels.items()
    ]


def test_engine_shares() -> None:
    assert engine_shares(3, 2) == [2, 1]
    assert engine_shares(16, 16) == [1] * 16
    assert sum(engine_shares(17, 4)) == 17
    with pytest.raises(ValueError, match="3 workers need at least 3 engines"):
        engine_shares(2, 3)


def test_more_workers_than_engines_is_refused() -> None:
    line = one_line_error(ladder_serve("--port", "0", "--engines", "2", "--workers", "3"))
    assert "--workers 3 needs at least as many engines (--engines is 2)" in line


@pytest.fixture(scope="module")
def workers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Path]]:
    keys = tmp_path_factory.mktemp("keys") / "keys"
    keys.write_text(f"{KEY_A} site-a\n")
    server = start_server("--workers", "2", "--api-keys", str(keys), engines=ENGINES)
    try:
        yield server, keys
    finally:
        server.stop()


def test_requests_served_with_the_engines_split(workers: tuple[Server, Path]) -> None:
    server, _ = workers
    pids = worker_pids(server)
    assert len(pids) == 2
    assert sorted(len(engines_of(pid)) for pid in pids) == [1, 2]  # 3 engines: 2 + 1
    assert len(all_engines(server)) == ENGINES
    requests = 24

    def ask(seed: int) -> dict[str, object]:
        # a connection of its own each time, so that either worker may take it
        with server.client() as client:
            reply = client.post("/v1/move", json=move(seed), headers=bearer(KEY_A))
        assert reply.status_code == 200, reply.text
        return dict(reply.json())

    with ThreadPoolExecutor(4) as pool:
        for reply in pool.map(ask, range(requests)):
            check_move_reply("xiangqi", ["h3e3"], reply)
    assert len(all_engines(server)) <= ENGINES
    # /metrics, from whichever worker answers it, counts the requests of both
    for _ in range(3):
        with server.client() as client:
            text = client.get("/metrics").text
        assert metric(text, "ladder_http_requests_total", route="/v1/move", status="200") == [
            float(requests)
        ]
        assert metric(text, "ladder_engines") == [float(ENGINES)]
        cpu = metric(text, "ladder_process_cpu_seconds")
        assert len(cpu) == 2  # one series per worker process
    assert '"worker": 0' in "\n".join(server.log_lines)
    assert '"worker": 1' in "\n".join(server.log_lines)


def wait_for_reload(server: Server, start: int) -> None:
    """Wait for both workers' `keys_loaded` lines from log line `start` on."""
    for worker in (0, 1):

        def reloaded(line: str, worker: int = worker) -> bool:
            return '"keys_loaded"' in line and f'"worker": {worker}' in line

        server.wait_for_log(reloaded, start=start)


def test_sighup_reloads_the_keys_of_every_worker(workers: tuple[Server, Path]) -> None:
    server, keys = workers
    start = len(server.log_lines)
    keys.write_text(f"{KEY_B} site-b\n")
    server.signal(signal.SIGHUP)
    wait_for_reload(server, start)
    for seed in range(8):  # fresh connections: whichever worker takes them
        with server.client() as client:
            assert (
                client.post("/v1/move", json=move(seed), headers=bearer(KEY_A)).status_code == 401
            )
            assert (
                client.post("/v1/move", json=move(seed), headers=bearer(KEY_B)).status_code == 200
            )
    keys.write_text(f"{KEY_A} site-a\n")
    start = len(server.log_lines)
    server.signal(signal.SIGHUP)
    wait_for_reload(server, start)


def test_a_killed_worker_is_started_again(workers: tuple[Server, Path]) -> None:
    server, _ = workers
    victim = worker_pids(server)[0]
    its_engines = engines_of(victim)
    all_engines(server)
    start = len(server.log_lines)
    psutil.Process(victim).kill()
    exited = server.wait_for_log(lambda line: '"worker_exited"' in line, start=start)
    assert f'"pid": {victim}' in exited and '"exit_code": -9' in exited
    server.wait_for_log(lambda line: '"worker_restarted"' in line, start=start)
    # its engines saw their pipe close and went; the new worker has its own
    wait_until(lambda: not Server._alive(set(its_engines)))
    wait_until(lambda: len(all_engines(server)) == ENGINES)
    assert victim not in worker_pids(server) and len(worker_pids(server)) == 2
    with server.client() as client:
        for seed in range(4):
            reply = client.post("/v1/move", json=move(seed), headers=bearer(KEY_A))
            assert reply.status_code == 200
        text = client.get("/metrics").text
    assert metric(text, "ladder_engines") == [float(ENGINES)]  # the dead one's gauge gone
    assert len(metric(text, "ladder_process_cpu_seconds")) == 2
    # the death and the restart in the metrics, not only in the logs
    assert metric(text, "ladder_workers") == [2.0]
    assert metric(text, "ladder_worker_restarts_total", death="signal") == [1.0]
    assert metric(text, "ladder_worker_restarts_total", death="exit") == [0.0]


def test_sigterm_stops_every_process() -> None:
    server = start_server("--workers", "2", engines=2)
    try:
        pids = worker_pids(server)
        engines = all_engines(server)
        assert len(pids) == 2 and len(engines) == 2
        folder = Path(psutil.Process(pids[0]).environ()[MULTIPROC_ENV])
        assert folder.is_dir()
        with server.client() as client:
            assert client.post("/v1/move", json=move(1)).status_code == 200
        server.signal(signal.SIGTERM)  # the supervisor alone, not its process group
        assert server.proc is not None
        assert server.proc.wait(timeout=120) == 0
        wait_until(lambda: not Server._alive({*pids, *engines}))
        assert not folder.exists()
        server.wait_for_log(lambda line: '"workers_stopped"' in line)
    finally:
        server.stop()


def test_one_worker_has_no_supervisor(server: Server) -> None:
    """--workers 1 (the default) serves in the one process, as before."""
    assert worker_pids(server) == []
    assert set(all_engines(server)) == set(server.engine_pids())
    assert httpx.get(server.url + "/healthz", timeout=30).json()["engines"] == 2
    text = httpx.get(server.url + "/metrics", timeout=30).text
    assert metric(text, "ladder_workers") == [1.0]
    assert metric(text, "ladder_worker_restarts_total") == [0.0, 0.0]


def test_a_worker_that_cannot_start_stops_the_service(tmp_path: Path, engine_exe: Path) -> None:
    """Fault injection: an engine (a real process) that starts once, for the check
    before serving, then refuses to start in the workers."""
    wrapper, started = tmp_path / "engine.sh", tmp_path / "started-once"
    wrapper.write_text(
        f"#!/bin/sh\nif [ -e {started} ]; then\n"
        "  echo 'wrapper: refusing to start' >&2\n  exit 3\nfi\n"
        f"touch {started}\nexec {engine_exe}\n"
    )
    wrapper.chmod(0o755)
    done = ladder_serve(
        "--port", "0", "--engines", "2", "--workers", "2", env={"LADDER_ENGINE": str(wrapper)}
    )
    assert done.returncode == 2 and done.stdout == ""  # never printed a URL
    lines = done.stderr.strip().splitlines()
    assert lines[-1] == "ladder serve: the service did not start (see the log above)"
    assert any('"worker_start_failed"' in line for line in lines)
    # (the engine's failure itself is logged by uvicorn's lifespan, as with one worker)
    assert any('"start-failed"' in line for line in lines)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_reload_while_the_engines_start_is_ignored(tmp_path: Path, workers: str) -> None:
    """SIGHUP before the server's own handler is in place (its engines still starting:
    systemd accepts `reload` from the first moment) used to end the service, a clean
    exit that `Restart=on-failure` does not restart; now it is ignored, and it serves."""
    keys = tmp_path / "keys.txt"
    keys.write_text("k" * 32 + "\n")
    server = Server(["--engines", "2", "--workers", workers, "--api-keys", str(keys)])
    with ThreadPoolExecutor(1) as pool:
        started = pool.submit(server.start)  # returns once the URL is printed
        try:
            wait_until(lambda: server.proc is not None)
            assert server.proc is not None
            leader = psutil.Process(server.proc.pid)

            def engine_starting() -> bool:
                kids = leader.children(recursive=True)
                return any("stockfish" in p.name() for p in kids if p.is_running())

            wait_until(engine_starting)
            server.signal(signal.SIGHUP)
            started.result(timeout=120)  # it served: not ended by the signal
            assert server.health()["ready"]
        finally:
            server.stop()
