"""The service without HTTP: moves (:mod:`~ladder.service.domain.mover`,
:mod:`~ladder.service.domain.move_answer`), positions, analysis, the domain errors and
the one table from them to the API's errors, and the request and response bodies."""
