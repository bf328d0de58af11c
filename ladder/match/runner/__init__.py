"""Running matches: schedule, resume, run the games on a backend, stop on SPRT.

* :mod:`~ladder.match.runner.run_loop` -- the one run loop of matches and tournaments
  (``run_games``), ``RunOptions``: resume, play, count, hand each game to the outputs.
* :mod:`~ladder.match.runner.match_run` -- ``ladder match``: a ``MatchConfig``'s games
  scheduled (``match_tasks``), and the match as the run loop plays it (``MatchPlan``,
  ``play_match``).
* :mod:`~ladder.match.runner.execute` -- ``execute``: game tasks through a backend, each
  record stored as it arrives, early stops and the engine-failure limit.
* :mod:`~ladder.match.runner.backends` -- where games run: the local process pool (and
  the ``Backend`` protocol); :mod:`~ladder.match.runner.ray_backend` -- Ray.
* :mod:`~ladder.match.runner.game_process` -- the game-process side: ``run_task`` plays
  a ``GameTask``, keeping started players between games.
"""
