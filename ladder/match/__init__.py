"""Engine matches, tournaments and studies (``ladder match``, ``ladder tournament``,
``ladder study``), laid out by concern as fastchess lays out its matchmaking code.

* :mod:`~ladder.match.cli` -- the command lines (and cutechess-cli's, translated).
* :mod:`~ladder.match.config` -- ``MatchConfig``: one head-to-head match, and its id.
* :mod:`~ladder.match.openings` -- opening books and the game schedule.
* :mod:`~ladder.match.players` -- player specs, engines, levels and baselines.
* :mod:`~ladder.match.game` -- one game: its task, the game loop, adjudication, clocks.
* :mod:`~ladder.match.runner` -- running matches: scheduling, resuming, the local and
  Ray backends, the game processes.
* :mod:`~ladder.match.tournament` -- gauntlets and round-robins, crosstables, ratings.
* :mod:`~ladder.match.statistics` -- W/D/L and pentanomial counts, Elo, SPRT,
  Bradley-Terry.
* :mod:`~ladder.match.output` -- the results database, PGN, JSON, summaries, studies.
* :mod:`~ladder.match.exit_codes` -- the exit codes of all three commands.

Imports point one way between modules (no cycles): the statistics depend on nothing
else here; a player on its spec and the clocks; the game loop on the players; output
on game records and the statistics; the runner and tournaments on all of these; the
command lines on everything.
"""
