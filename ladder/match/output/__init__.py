"""What matches write and read back: the results database, PGN, JSON, summaries, studies.

* :mod:`~ladder.match.output.store` -- the results database (SQLite): every finished
  game, keyed by match id and game number; what resuming reads.
* :mod:`~ladder.match.output.pgn` -- PGN text: written in WXF or ICCS, read back in any
  notation xiangqi tools write; :mod:`~ladder.match.output.pgn_file` -- a run's
  ``--pgn`` file, kept in step with the database.
* :mod:`~ladder.match.output.outputs` -- the ``Output`` interface of a run's outputs;
  :mod:`~ladder.match.output.registry` -- the list of them (PGN file, JSON, progress,
  SPRT stop: :mod:`~ladder.match.output.progress`, :mod:`~ladder.match.output.sprt_stop`).
* :mod:`~ladder.match.output.json_document` -- the ``--json`` document.
* :mod:`~ladder.match.output.summary` -- a match's running figures (W/D/L, pentanomial,
  Elo, LOS, SPRT) and their one-line and full texts.
* :mod:`~ladder.match.output.study` -- ``ladder study``: annotated games and a
  per-match summary.
"""
