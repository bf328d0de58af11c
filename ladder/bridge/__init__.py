"""The ladder as an engine: `ladder uci`, `ladder ucci` and `ladder xboard` speak UCI,
UCCI or XBoard/CECP on stdin/stdout, so that a GUI or a match tool can play the ladder.

Modules: :mod:`ladder.bridge.session` (the game, the level, the level's move: what every
dialect plays), :mod:`ladder.bridge.server` (the input loop and the search task every
dialect shares), :mod:`ladder.bridge.uci` (UCI), :mod:`ladder.bridge.ucci` (UCCI: UCI's
server with UCCI's differences), :mod:`ladder.bridge.xboard` (XBoard/CECP),
:mod:`ladder.bridge.clocks` (the GUI's clock as a bound on the level's search),
:mod:`ladder.bridge.cli` (the commands). See docs/protocol.md.
"""
