"""Debian's nginx and haproxy started with deploy/'s configurations, unprivileged ports
on 127.0.0.1, every file they write (pid, logs, temp) in a temporary folder.

The shipped files are used as they are but for what a site changes anyway: the
instances' addresses (``127.0.0.1:8001`` and ``:8002``) and the port listened on.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
NGINX_CONF = ROOT / "deploy" / "nginx" / "ladder.conf"
HAPROXY_DIR = ROOT / "deploy" / "haproxy"
NGINX = Path("/usr/sbin/nginx")
HAPROXY = Path("/usr/sbin/haproxy")
#: The instances the shipped files list (what a site replaces with its own).
SHIPPED_INSTANCES = ("127.0.0.1:8001", "127.0.0.1:8002")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _instances(text: str, instances: list[str]) -> str:
    for shipped, actual in zip(SHIPPED_INSTANCES, instances, strict=True):
        assert shipped in text
        text = text.replace(shipped, actual)
    return text


class Balancer:
    """A running nginx or haproxy in front of `instances` (``host:port`` each)."""

    def __init__(self, kind: str, instances: list[str], folder: Path) -> None:
        self.kind, self.folder = kind, folder
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = folder / f"{kind}.out"
        command = self._nginx(instances) if kind == "nginx" else self._haproxy(instances)
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
        self._wait_ready()

    def _nginx(self, instances: list[str]) -> list[str]:
        if not NGINX.exists():
            pytest.fail("no nginx: run `make balancers` (scripts/install_balancers.sh)")
        site = _instances(NGINX_CONF.read_text(), instances)
        assert "listen 80;" in site
        site = site.replace("listen 80;", f"listen 127.0.0.1:{self.port};")
        (self.folder / "ladder.conf").write_text(site)
        f = self.folder
        user = "user root;\n" if os.geteuid() == 0 else ""  # workers reach the temp folder
        (f / "nginx.conf").write_text(
            f"{user}daemon off;\nworker_processes 1;\npid {f}/nginx.pid;\n"
            f"error_log {f}/error.log;\nevents {{ worker_connections 512; }}\n"
            f"http {{\n  access_log {f}/access.log;\n"
            f"  client_body_temp_path {f}/body;\n  proxy_temp_path {f}/proxy;\n"
            f"  fastcgi_temp_path {f}/fastcgi;\n  uwsgi_temp_path {f}/uwsgi;\n"
            f"  scgi_temp_path {f}/scgi;\n  include {f}/ladder.conf;\n}}\n"
        )
        return [str(NGINX), "-p", str(f), "-c", str(f / "nginx.conf")]

    def _haproxy(self, instances: list[str]) -> list[str]:
        if not HAPROXY.exists():
            pytest.fail("no haproxy: run `make balancers` (scripts/install_balancers.sh)")
        shutil.copytree(HAPROXY_DIR, self.folder / "haproxy")
        cfg = self.folder / "haproxy" / "haproxy.cfg"
        text = _instances(cfg.read_text(), instances)
        assert "bind :80" in text
        cfg.write_text(text.replace("bind :80", f"bind 127.0.0.1:{self.port}"))
        return [str(HAPROXY), "-db", "-f", str(cfg)]

    def _wait_ready(self, timeout: float = 30) -> None:
        """Until the balancer passes a request on to an instance."""
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                pytest.fail(f"{self.kind} exited: {self.log.read_text()[-2000:]}")
            try:
                if httpx.get(self.url + "/healthz", timeout=5).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"{self.kind} never served: {self.log.read_text()[-2000:]}")
            time.sleep(0.05)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


__all__ = ["Balancer", "free_port"]
