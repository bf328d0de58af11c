"""One match game: what it is and how it is played.

* :mod:`~ladder.match.game.play` -- the ``GameTask`` that describes a game, the game
  loop (``play_game``) and the ``GameRecord`` it yields.
* :mod:`~ladder.match.game.adjudication` -- draw and resign adjudication from the
  engines' scores.
* :mod:`~ladder.match.game.clocks` -- time controls and the players' clocks.
"""
