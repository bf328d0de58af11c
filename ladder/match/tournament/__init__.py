"""Tournaments (``ladder tournament``): a gauntlet or a round-robin of matches.

* :mod:`~ladder.match.tournament.run` -- ``TournamentConfig`` (who meets whom) and
  ``play_tournament``: every pairing an ordinary match, the games interleaved.
* :mod:`~ladder.match.tournament.crosstable` -- the crosstable and the Bradley-Terry
  rating list.
"""
