"""The engines behind the service: the pool shared fairly between clients and lanes
(:mod:`~ladder.service.engines.pool`, :mod:`~ladder.service.engines.fair_queue`) and one
supervised engine slot (:mod:`~ladder.service.engines.engine_slot`)."""
