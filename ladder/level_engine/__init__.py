"""A move at a level, and everything it needs, in one package.

- :mod:`~ladder.level_engine.level_move`: the level move (seed, book, position, search,
  the choice) and the engine a level plays on;
- :mod:`~ladder.level_engine.engine_lines`: what a search said (lines, scores, bestmove);
- :mod:`~ladder.level_engine.choice_rules`: the level's choice among the lines, one rule
  each; :mod:`~ladder.level_engine.second_look` and :mod:`~ladder.level_engine.beginner`:
  what the weak levels' rule sees;
- :mod:`~ladder.level_engine.book`: the opening books every level plays first;
- :mod:`~ladder.level_engine.clock`: a move's time on a clock;
  :mod:`~ladder.level_engine.expected_time`: a level's expected time a move.
"""
