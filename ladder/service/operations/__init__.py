"""Running the service: ``ladder serve``'s settings and their sources, start-up, one or N
server processes, the drain, metrics, logs, the service's configuration, and ``ladder
serve`` as a child process for scripts and tests (:mod:`~ladder.service.operations.launch`)."""
