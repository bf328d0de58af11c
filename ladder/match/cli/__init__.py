"""The command lines of ``ladder match``, ``ladder tournament`` and ``ladder study``.

* :mod:`~ladder.match.cli.commands` -- the subcommands (registered by ladder/cli.py):
  their options, and each one's run from parsed arguments to an exit code
  (:class:`ladder.match.exit_codes.ExitCode`).
* :mod:`~ladder.match.cli.cutechess` -- cutechess-cli (and fastchess) command lines,
  rewritten into this project's options before they are parsed.
"""
