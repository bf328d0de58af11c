"""Run the move service for the tests: `python -m tests.service.server_main '<json config>'`.

Binds 127.0.0.1 on an ephemeral port, prints ``PORT <n>`` on stdout, then serves until
SIGTERM/SIGINT (uvicorn's graceful shutdown closes the engine pool).
"""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path

import uvicorn

from ladder.service.app import create_app
from ladder.service.config import ServiceConfig


def main() -> None:
    raw = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}
    if "engine_path" in raw:
        raw["engine_path"] = Path(raw["engine_path"])
    config = ServiceConfig(**raw)
    app = create_app(config)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    server = uvicorn.Server(
        uvicorn.Config(app, log_level="warning", loop="asyncio", timeout_graceful_shutdown=5)
    )
    server.run(sockets=[sock])


if __name__ == "__main__":
    main()
