"""Who plays a match game: a ladder level, any UCI/UCCI/XBoard engine, or a seeded baseline.

* :mod:`~ladder.match.players.specs` -- :class:`PlayerSpec`, a player as the command line
  gives it (``level:3``, ``engine:PATH,protocol=ucci``, ``greedy``), checked before a
  match starts.
* :mod:`~ladder.match.players.cutechess_form` -- the same from cutechess-cli's engine form
  (``-engine cmd=PATH proto=ucci option.Hash=16``).
* :mod:`~ladder.match.players.level_identity` -- what of a level's settings goes into a
  match's id.
* :mod:`~ladder.match.players.player` -- what a player is to the game loop (the
  ``Player`` protocol, ``MoveInfo``) and the errors that score a game as its loss.
* :mod:`~ladder.match.players.engines` -- ``EnginePlayer`` (any engine, through
  :class:`protocol.ManagedEngine`) and ``LevelPlayer`` (the service's own level move).
* :mod:`~ladder.match.players.baselines` -- ``RandomPlayer`` and ``GreedyPlayer``.
* :mod:`~ladder.match.players.start` -- ``make_player`` from a spec, and ``probe``,
  which checks before a match that every engine can play.
"""
