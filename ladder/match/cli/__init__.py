"""The command lines of ``ladder match``, ``ladder tournament`` and ``ladder study``.

* :mod:`~ladder.match.cli.match_command`, :mod:`~ladder.match.cli.tournament_command`,
  :mod:`~ladder.match.cli.study_command` -- the subcommands (registered by
  ladder/cli.py): each one's options, and its run from parsed arguments to an exit code
  (:class:`ladder.match.exit_codes.ExitCode`).
* :mod:`~ladder.match.cli.options` -- the options ``match`` and ``tournament`` share
  (players, run, opening book, PGN, adjudication), and what they are read back as.
* :mod:`~ladder.match.cli.run` -- how a match or tournament command ends: usage errors,
  interrupts, engine restarts, failed runs, each with its exit code.
* :mod:`~ladder.match.cli.cutechess` -- cutechess-cli (and fastchess) command lines,
  rewritten into this project's options before they are parsed.
"""
