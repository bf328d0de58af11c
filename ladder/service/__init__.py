"""The move service: "the engine's move at level N" over HTTP, in-process, and the CLI.

One module per concern, from the request inwards (docs/architecture.md follows a move
through them):

* ``ladder serve``: :mod:`~ladder.service.settings` (every option once, one typed model),
  :mod:`~ladder.service.startup` (the checks, the socket, one or N server processes),
  :mod:`~ladder.service.server` (one server process under uvicorn),
  :mod:`~ladder.service.server_processes` (N of them behind one port),
  :mod:`~ladder.service.http_protocol` (the HTTP limits uvicorn does not enforce),
  :mod:`~ladder.service.logs` (JSON or text logging), :mod:`~ladder.service.launch`
  (``ladder serve`` as a child process), :mod:`~ladder.service.cli` (the commands).
* The HTTP app: :mod:`~ladder.service.app` (the assembly), :mod:`~ladder.service.routes`
  (the endpoints), :mod:`~ladder.service.middleware` (body limit, HEAD, the move fast
  path), :mod:`~ladder.service.access` (API keys, rate limit, hosts, CORS),
  :mod:`~ladder.service.observe` (one log line and the metrics per request),
  :mod:`~ladder.service.handlers` (the answer to each failure),
  :mod:`~ladder.service.openapi` (the schema), :mod:`~ladder.service.models` (request
  and response bodies), :mod:`~ladder.service.play_page` (the /play page).
* Below HTTP: :mod:`~ladder.service.mover` (:class:`MoveService`, the whole service
  in-process, and its retries), :mod:`~ladder.service.move_answer` (a move's answer),
  :mod:`~ladder.service.positions` (the rules checker in
  front of every engine), :mod:`~ladder.service.pool` (engines shared fairly between
  clients), :mod:`~ladder.service.engine_slot` (one supervised engine, one attempt per
  move), :mod:`~ladder.service.metrics` (every Prometheus metric),
  :mod:`~ladder.service.config` (the service's settings).
* Failures: :mod:`~ladder.service.errors` (the domain errors and the API's error) and
  :mod:`~ladder.service.status` (the one table from the first to the second).

The level move itself, shared with matches and the bridge, is :mod:`ladder.level_engine.level_move`.
See docs/service.md.
"""
