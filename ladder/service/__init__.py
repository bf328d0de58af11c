"""The move service: "the engine's move at level N" over HTTP, in-process, and the CLI.

One module per concern: :mod:`~ladder.service.models` (request/response bodies),
:mod:`~ladder.service.positions` (the rules checker in front of every engine),
:mod:`~ladder.service.pool` (engines behind a bounded queue), :mod:`~ladder.service.worker`
(one supervised engine), :mod:`~ladder.service.mover` (:class:`MoveService`, the whole
service in-process), :mod:`~ladder.service.app` (FastAPI), :mod:`~ladder.service.metrics`
(Prometheus), :mod:`~ladder.service.config` and :mod:`~ladder.service.errors`. The level
search and the variety rule, shared with the match runner, are :mod:`ladder.level_move`.
See docs/service.md.
"""

import logging

# A library's loggers stay silent until the program configures logging (`ladder serve`
# does); without this, Python's last-resort handler would print the service's incident
# lines next to a command's own one-line error.
logging.getLogger("ladder").addHandler(logging.NullHandler())
