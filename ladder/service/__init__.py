"""The move service: "the engine's move at level N" over HTTP, in-process, and the CLI.

One module per concern: :mod:`~ladder.service.models` (request/response bodies),
:mod:`~ladder.service.positions` (the rules checker in front of every engine),
:mod:`~ladder.service.pool` (engines shared fairly between clients),
:mod:`~ladder.service.worker` (one supervised engine, one attempt per search),
:mod:`~ladder.service.mover` (:class:`MoveService`, the whole service in-process, and
its retries), :mod:`~ladder.service.status` (the HTTP status of each failure),
:mod:`~ladder.service.app` (FastAPI), :mod:`~ladder.service.access` (API keys, rate
limit, hosts, CORS), :mod:`~ladder.service.observe` (one log line and the metrics per
request), :mod:`~ladder.service.metrics` (every Prometheus metric),
:mod:`~ladder.service.logs` (JSON or text logging), :mod:`~ladder.service.http_protocol`
(the HTTP limits uvicorn does not enforce), :mod:`~ladder.service.server` (``ladder
serve``), :mod:`~ladder.service.launch` (``ladder serve`` as a child process),
:mod:`~ladder.service.config` and :mod:`~ladder.service.errors`. The level search and
the variety rule, shared with the match runner, are :mod:`ladder.level_move`.
See docs/service.md.
"""

import logging

# A library's loggers stay silent until the program configures logging (`ladder serve`
# does); without this, Python's last-resort handler would print the service's incident
# lines next to a command's own one-line error.
logging.getLogger("ladder").addHandler(logging.NullHandler())
