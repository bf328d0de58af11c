"""The move service: "the engine's move at level N" over HTTP, in-process, and the CLI.

Laid out by concern, from the request inwards (docs/architecture.md follows a move
through them):

* :mod:`ladder.service.http`: the HTTP app (the assembly, the routes, the middlewares,
  the answer to each failure, the schema, access control, the /play page);
* :mod:`ladder.service.domain`: the service without HTTP (:class:`MoveService`, a move's
  answer, the rules checker in front of every engine, the analysis job, the domain
  errors and the one table from them to the API's errors, the request and response
  bodies);
* :mod:`ladder.service.engines`: the engines behind it (the pool shared fairly between
  clients and lanes, its queue, one supervised engine slot);
* :mod:`ladder.service.operations`: running it (``ladder serve``'s settings, start-up,
  one or N server processes, the drain, metrics, logs, the service's configuration);
* :mod:`ladder.service.cli`: the ``move``, ``serve`` and ``levels`` commands.

The level move itself, shared with matches and the bridge, is :mod:`ladder.level_engine`.
See docs/service.md.
"""
