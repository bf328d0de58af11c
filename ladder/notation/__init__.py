"""Moves and games written for people: WXF (``C2=5``, :mod:`.wxf`), Chinese notation
(``炮二平五``, :mod:`.chinese`), the notations the product offers by name
(:mod:`.by_name`) and a PGN game's text (:mod:`.pgn_text`).

The coordinate moves the rules checker and the engines read (``h3e3``) are
:mod:`ladder.rules.notation`'s; an engine dialect's own spelling is
:mod:`protocol.notation`'s."""
