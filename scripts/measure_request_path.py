#!/usr/bin/env python3
"""One request's path through the service: the distinct ``ladder/`` and ``protocol/``
functions and modules a ``POST /v1/move`` enters, and how often the path switches module.

``ladder serve`` runs in this process's main thread (its real command line, one engine,
a free port on 127.0.0.1) with a profiler (``sys.setprofile``) that records only while a
request is being measured. A client thread sends two identical requests at ``--level``
(default 2) and measures the second: the first warms the caches, the engine and the
imports, as a server that has served once has them. Then the server is stopped as an
operator stops it (SIGTERM).

Counted: every Python function entered (a ``call`` event) whose code lives in the
checkout's ``ladder/`` or ``protocol/``; its module; and a module switch whenever the
module of one such call differs from the previous such call's. Third-party code
(uvicorn, Starlette, FastAPI, pydantic) is not counted, whatever it costs.

    .venv/bin/python scripts/measure_request_path.py [--level 2] [--variant xiangqi]
        [--levels-file FILE] [--json] [--list] [--tree PATH]

It also splits the functions by area (the HTTP layer, the service, the level engine, the
weak levels' own choice, the rules checker, the protocol client), so a change is seen
where it lands. ``--tree`` measures another checkout (a ``git worktree`` of an older
commit) with this script: its packages are imported and counted instead.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
COUNTED = (str(ROOT / "ladder") + os.sep, str(ROOT / "protocol") + os.sep)

#: Where a counted module belongs: the first area with a prefix it starts with; any other
#: module of ``ladder/`` is the level engine's. The flat names are an older tree's
#: (before issue 36 put the service and the level modules in subpackages).
AREAS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "HTTP",
        (
            "ladder.service.http",
            "ladder.service.app",
            "ladder.service.middleware",
            "ladder.service.http_protocol",
            "ladder.service.routes",
            "ladder.service.observe",
            "ladder.service.strict_json",
            "ladder.service.access",
            "ladder.service.version_pin",
            "ladder.service.handlers",
        ),
    ),
    ("service", ("ladder.service",)),
    (
        "weak levels' choice",
        (
            "ladder.level_engine.beginner",
            "ladder.level_engine.second_look",
            "ladder.level_engine.choice_rules",
            "ladder.material",
            "ladder.beginner",
            "ladder.second_look",
            "ladder.choice_rules",
        ),
    ),
    ("rules checker", ("ladder.rules",)),
    ("protocol", ("protocol",)),
    ("level engine", ("ladder",)),
)


def area_of(module: str) -> str:
    """The area of ``module`` (see :data:`AREAS`)."""
    return next(name for name, prefixes in AREAS if module.startswith(prefixes))


@dataclass
class Path_:
    """What the profiler saw while recording."""

    functions: set[tuple[str, str]] = field(default_factory=set)
    calls: int = 0
    switches: int = 0
    last_module: str | None = None

    def modules(self) -> set[str]:
        return {module for module, _ in self.functions}

    def by_area(self) -> dict[str, tuple[int, int]]:
        """Functions and modules entered, area by area (in :data:`AREAS`' order)."""
        out: dict[str, tuple[int, int]] = {}
        for name, _ in AREAS:
            entered = [(m, f) for m, f in self.functions if area_of(m) == name]
            out[name] = (len(entered), len({m for m, _ in entered}))
        return out


def module_of(filename: str) -> str | None:
    """``ladder.service.domain.mover`` for a file of the checkout's packages, else None."""
    if not filename.startswith(COUNTED):
        return None
    rel = Path(filename).relative_to(Path(COUNTED[0]).parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def recorder(path: Path_, recording: threading.Event) -> Callable[[FrameType, str, Any], None]:
    modules: dict[str, str | None] = {}

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event != "call" or not recording.is_set():
            return
        code = frame.f_code
        module = modules.get(code.co_filename, "?")
        if module == "?":
            module = modules[code.co_filename] = module_of(code.co_filename)
        if module is None:
            return
        path.functions.add((module, code.co_qualname))
        path.calls += 1
        if path.last_module is not None and module != path.last_module:
            path.switches += 1
        path.last_module = module

    return profile


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def post(port: int, body: dict[str, object], timeout: float = 60.0) -> dict[str, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(
            "POST", "/v1/move", json.dumps(body), headers={"content-type": "application/json"}
        )
        response = conn.getresponse()
        data = response.read()
        if response.status != 200:
            raise RuntimeError(f"POST /v1/move answered {response.status}: {data[:200]!r}")
        answer: dict[str, Any] = json.loads(data)
        return answer
    finally:
        conn.close()


def wait_ready(port: int, deadline: float) -> None:
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/readyz")
            if conn.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.1)  # polling a port that is not open yet: nothing to wait on
    raise RuntimeError("ladder serve did not become ready within 120 s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--level", type=int, default=2)
    parser.add_argument("--variant", default="xiangqi")
    parser.add_argument(
        "--levels-file",
        type=Path,
        metavar="FILE",
        default=None,
        help="serve this levels file (default: the shipped one), e.g. the file as an "
        "issue found it, to count the same levels' path",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--list", action="store_true", help="list the functions entered")
    parser.add_argument(
        "--tree", type=Path, default=None, help="another checkout to measure (default: this one)"
    )
    args = parser.parse_args(argv)
    if args.tree is not None:  # its packages, imported and counted in place of ours
        global COUNTED
        tree = args.tree.resolve()
        COUNTED = (str(tree / "ladder") + os.sep, str(tree / "protocol") + os.sep)
        sys.path.insert(0, str(tree))

    from ladder.cli import main as ladder_main

    port = free_port()
    body = {"variant": args.variant, "moves": ["h3e3", "h8e8"], "level": args.level, "seed": 7}
    path = Path_()
    recording = threading.Event()
    failure: list[BaseException] = []

    def client() -> None:
        try:
            wait_ready(port, time.monotonic() + 120)
            post(port, body)  # warm: caches, the engine, lazy imports
            recording.set()
            post(port, body)
            recording.clear()
        except BaseException as exc:  # reported after the server stopped
            failure.append(exc)
        finally:
            os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=client, daemon=True).start()
    sys.setprofile(recorder(path, recording))
    try:
        code = ladder_main(
            [
                *("serve", "--host", "127.0.0.1", "--port", str(port), "--engines", "1"),
                *("--drain-delay", "0", "--log-level", "warning"),
                *(("--levels", str(args.levels_file)) if args.levels_file else ()),
            ]
        )
    finally:
        sys.setprofile(None)
    if failure:
        raise failure[0]
    if code not in (0, None):
        print(f"ladder serve exited {code}", file=sys.stderr)
        return 1
    figures = {
        "level": args.level,
        "variant": args.variant,
        "functions": len(path.functions),
        "modules": len(path.modules()),
        "module_switches": path.switches,
        "calls": path.calls,
        "by_area": {
            name: {"functions": f, "modules": m} for name, (f, m) in path.by_area().items()
        },
    }
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(
            f"POST /v1/move at level {args.level} ({args.variant}), the second of two: "
            f"{figures['functions']} functions in {figures['modules']} modules of ladder/ and "
            f"protocol/, {figures['module_switches']} module switches ({path.calls} calls)"
        )
        for name, (functions, modules) in path.by_area().items():
            print(f"  {name:<20} {functions:>4} functions in {modules:>2} modules")
    if args.list:
        for module, name in sorted(path.functions):
            print(f"  {module}:{name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
