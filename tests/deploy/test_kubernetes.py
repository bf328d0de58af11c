"""deploy/kubernetes/: the manifests validated offline against the Kubernetes schemas
(kubernetes-validate, strict: an unknown field fails), and the Deployment's container
run as written (its command, the Dockerfile's CMD; its environment; its key file where
the Secret is mounted): the probes' paths answer on the container's port, and a stop
with a request in flight ends within the grace period less the preStop."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml  # type: ignore[import-untyped]

from ladder.service.operations.drain import DRAIN_DELAY_S, DRAIN_TIMEOUT_S
from tests.service.helpers import OUT_OF_BOOK, service_engine

from .dockerfile import ROOT, exec_form, parse

MANIFESTS = sorted((ROOT / "deploy" / "kubernetes").glob("*.yaml"))
BIN = Path(sys.executable).parent
#: Time for the engines to quit and the process to exit after the drain (seconds).
ENGINES_QUIT_S = 5.0


def pod_spec() -> dict[str, Any]:
    deployment = yaml.safe_load((ROOT / "deploy" / "kubernetes" / "deployment.yaml").read_text())
    assert deployment["kind"] == "Deployment"
    spec: dict[str, Any] = deployment["spec"]["template"]["spec"]
    return spec


def test_the_manifests_are_valid_kubernetes() -> None:
    assert {m.name for m in MANIFESTS} >= {
        "deployment.yaml",
        "service.yaml",
        "pdb.yaml",
        "hpa.yaml",
    }
    done = subprocess.run(
        [str(BIN / "kubernetes-validate"), "--strict", *map(str, MANIFESTS)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("passed") + done.stderr.count("passed") == len(MANIFESTS)


def test_the_container_command_is_the_dockerfiles() -> None:
    (container,) = pod_spec()["containers"]
    (cmd,) = parse()[-1].all("CMD")
    assert container["command"] == exec_form(cmd.args)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_the_probes_answer_and_the_drain_fits_the_grace_period(tmp_path: Path) -> None:
    spec = pod_spec()
    (container,) = spec["containers"]
    (port,) = container["ports"]
    command = list(container["command"])
    # the container's port, moved to a free one on this machine
    at = command.index("--port")
    assert command[at + 1] == str(port["containerPort"])
    listen = free_port()
    command[at + 1] = str(listen)
    # the key file where the Secret is mounted, and the manifest's variables
    (mount,) = container["volumeMounts"]
    keys = tmp_path / "keys.txt"
    keys.write_text("kubernetes-test-key-0123456789\n")
    env = {
        **os.environ,
        **{e["name"]: e["value"] for e in container["env"]},
        "LADDER_API_KEYS": str(keys),
        "LADDER_ENGINE": str(service_engine()),
        "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
    }
    assert mount["mountPath"] == dict(parse()[-1].assignments())["LADDER_API_KEYS"]
    proc = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()  # printed once it serves
        assert re.fullmatch(rf"http://0\.0\.0\.0:{listen}", url), url
        base = f"http://127.0.0.1:{listen}"
        for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
            get = container[probe]["httpGet"]
            assert get["port"] in (port["name"], port["containerPort"]), probe
            assert httpx.get(base + get["path"], timeout=10).status_code == 200, probe
        # a level-8 move in flight when the pod is told to stop
        answer: list[httpx.Response] = []
        body = {"variant": "xiangqi", "moves": OUT_OF_BOOK, "level": 8, "seed": 1}
        headers = {"authorization": "Bearer kubernetes-test-key-0123456789"}

        def move() -> None:
            answer.append(httpx.post(base + "/v1/move", json=body, headers=headers, timeout=60))

        mover = threading.Thread(target=move)
        mover.start()
        time.sleep(0.3)  # the request reaches the server (a stop before it is no test)
        stopped = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        assert httpx.get(base + container["readinessProbe"]["httpGet"]["path"]).status_code == 503
        code = proc.wait(timeout=60)
        took = time.monotonic() - stopped
        mover.join(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert code == 0
    assert answer and answer[0].status_code in (200, 503), answer
    # the whole stop fits in what Kubernetes gives after the preStop hook
    pre_stop = container["lifecycle"]["preStop"]["exec"]["command"]
    assert pre_stop[0] == "sleep"
    budget = spec["terminationGracePeriodSeconds"] - float(pre_stop[1])
    assert took < budget, (took, budget)
    # and so does the longest drain the container's settings allow (a request that runs
    # past the drain timeout is answered 503 then; the engines quit in a few seconds)
    variables = {e["name"] for e in container["env"]}
    assert not variables & {"LADDER_DRAIN_DELAY", "LADDER_DRAIN_TIMEOUT"}  # the defaults
    assert budget >= DRAIN_DELAY_S + DRAIN_TIMEOUT_S + ENGINES_QUIT_S


@pytest.mark.parametrize("name", ["hpa.yaml"])
def test_the_autoscaler_scales_on_a_metric_the_service_exports(name: str) -> None:
    from ladder.service.operations.metrics import Metrics

    hpa = yaml.safe_load((ROOT / "deploy" / "kubernetes" / name).read_text())
    names = {m["pods"]["metric"]["name"] for m in hpa["spec"]["metrics"] if m["type"] == "Pods"}
    exported = {d.name for d in vars(Metrics).values() if hasattr(d, "kind")}
    assert names and names <= exported, (names, exported)
