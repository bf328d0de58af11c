"""``ladder calibrate``: measure the ladder's strength, per variant, in logistic Elo with
``random`` = 0.

The pieces, in the order a run uses them:

* :mod:`ladder.calibration.plan`: who plays whom (the chain random < greedy < L1 < ... <
  L8, adjacent and skip-one pairings, and any extra players of the plan file), with
  which adjudication, as resumable matches of the results database;
* :mod:`ladder.calibration.schedule`: which games to play next: every pairing's first
  games, then more games where the gaps' intervals are widest;
* :mod:`ladder.calibration.fit`: the whole-pool Bradley-Terry fit, each level's
  :class:`ladder.levels.Rating`, and the tuning criteria;
* :mod:`ladder.calibration.fit_line`: the Elo-against-log-nodes line that rates a level
  without games yet;
* :mod:`ladder.calibration.record`: the games as a compact file committed with the
  repository, so that a later run resumes instead of replaying;
* :mod:`ladder.calibration.report`: the levels file, ``docs/ladder.md`` and its plots;
* :mod:`ladder.calibration.measurements`: the page's sections from the other scripts'
  records (variety, the weak levels' error profile, the human reference);
* :mod:`ladder.calibration.run`: the command itself.

Beside it, the measurements behind the weak levels, development tools that read the
checkout's ``data/`` and ``calibration/`` and that ``scripts/`` runs:

* :mod:`ladder.calibration.error_profile`: how a player errs (free pieces, one-move
  hangs, gross blunders, master moves; the beginner's measures on the position sets),
  the records :mod:`~ladder.calibration.measurements` shows;
* :mod:`ladder.calibration.position_sets`: the frozen position sets it measures on;
* :mod:`ladder.calibration.master_games`: the grandmaster games (the xiangqi book, the
  error profile's master positions, the human reference).
"""
