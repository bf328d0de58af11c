"""cutechess-cli (and fastchess) command lines, run as they are by ``ladder match``.

A tester pastes a cutechess-cli line, changes the engine commands, and it runs with the
same meaning: :func:`translate` rewrites cutechess's one-dash options into this
project's, before the command line is parsed. ``-engine`` and ``-each`` are this
project's own options already (``ladder.match.players.cutechess_form`` reads their keys,
``tc=inf`` included); the rest:

=====================================================  =====================================
cutechess-cli                                          ladder
=====================================================  =====================================
``-variant V``                                         ``--variant V``
``-games G -rounds R``                                 ``--games G*R`` (each 1 by default)
``-repeat [N]``                                        ``--repeat N`` (2: each opening twice,
                                                       colours swapped; without it each game
                                                       has its own opening, colours alternate)
``-concurrency N``                                     ``-j N``
``-pgnout FILE [min] [fi]``, ``file=F min=true``      ``--pgn FILE [--pgn-min]``
``-openings file=F format=epd|pgn order=random|        ``--openings F --openings-format …
sequential plies=N [policy=default|round] [start=1]`` --openings-order … --openings-plies N``
``-sprt elo0= elo1= alpha= beta=``                     ``--sprt E0 E1 --alpha A --beta B``
``-draw movenumber=N movecount=M score=S``             ``--draw-after 2N --draw-streak start
                                                       --draw-moves M --draw-score S``
``-resign movecount=M score=S``                        ``--resign-moves M --resign-score S``
``-maxmoves N``                                        ``--max-plies 2N``
``-recover``                                           ``--recover``
``-srand N``                                           ``--seed N``
``-event NAME``                                        ``--name NAME``
``-epdout FILE``                                       ``--epd FILE``
``-tournament gauntlet|round-robin``                   ``--format …`` (``ladder tournament``)
=====================================================  =====================================

``-debug`` is ``ladder --log-level debug`` (:func:`top_level`): the wire log, every line
to and from each engine, on standard error. Options that change nothing here
(``-wait``, ``-ratinginterval``, ``-outcomeinterval``) are accepted and dropped; any
other one-dash option is refused by name, never guessed.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

__all__ = ["CutechessError", "top_level", "translate"]


class CutechessError(ValueError):
    """A cutechess-style option this project cannot run with the same meaning."""


#: Options taking one value, and the ladder option they become.
_VALUE = {
    "-variant": "--variant",
    "-concurrency": "--concurrency",
    "-srand": "--seed",
    "-event": "--name",
    "-epdout": "--epd",
}
#: Options accepted and dropped (they change nothing about the games; ``-debug`` is
#: :func:`top_level`'s).
_DROPPED = {"-wait", "-debug", "-ratinginterval", "-outcomeinterval"}


def top_level(argv: list[str]) -> list[str]:
    """The ``ladder`` options (before the command) that a command's cutechess options
    ``argv`` ask for: ``-debug`` writes the wire log on standard error, which is
    ``--log-level debug``."""
    return ["--log-level", "debug"] if "-debug" in argv else []


#: Options whose values are ``key=value`` tokens.
_KEYED = ("-openings", "-sprt", "-draw", "-resign")
_KNOWN = {
    *_VALUE, *_DROPPED, *_KEYED, "-games", "-rounds", "-repeat", "-recover", "-maxmoves",
    "-pgnout", "-tournament",
}  # fmt: skip
#: Options that ``ladder`` reads itself (``-engine``, ``-each``, ``-j``).
_OWN = ("-engine", "-each", "-j")


def _keys(tokens: list[str], option: str, allowed: set[str]) -> dict[str, str]:
    out = {}
    for token in tokens:
        key, sep, value = token.partition("=")
        if not sep or key not in allowed:
            expected = ", ".join(f"{k}=" for k in sorted(allowed))
            raise CutechessError(f"{option}: {token!r} is not one of {expected}")
        out[key] = value
    return out


def _is_option(token: str) -> bool:
    """An option's name (``-games``, ``--db``), not a value (``-``, ``-10``)."""
    return token.startswith("-") and len(token) > 1 and not token[1:2].isdigit()


def _number(text: str, option: str, cast: Callable[[str], float] = int) -> str:
    try:
        cast(text)
    except ValueError:
        raise CutechessError(f"{option}: {text!r} is not a number") from None
    return text


def translate(argv: list[str], command: str = "match") -> list[str]:
    """``argv`` (a ``ladder match`` or ``ladder tournament`` command line after the
    command's name) with cutechess's options rewritten as this project's
    (:class:`CutechessError` for one that cannot be)."""
    out: list[str] = []
    #: ``-games``, ``-rounds`` and ``-repeat`` as given: they make ``--games`` and
    #: ``--repeat`` together, at the end.
    counts: dict[str, int] = {}
    i = 0

    def values() -> list[str]:
        nonlocal i
        taken = []
        while i < len(argv) and not _is_option(argv[i]):
            taken.append(argv[i])
            i += 1
        return taken

    while i < len(argv):
        token = argv[i]
        i += 1
        if not _is_option(token) or token.startswith("--") or token in _OWN:
            out.append(token)
            if token in ("-engine", "-each"):
                out.extend(values())
            continue
        if token not in _KNOWN:
            raise CutechessError(f"the cutechess option {token} is not supported")
        args = values()
        taken = _values_taken(token, args)
        if len(args) < taken or (taken == 1 and not args):
            raise CutechessError(f"{token} needs a value")
        if token in ("-games", "-rounds", "-repeat"):
            counts[token] = int(_number(args[0], token)) if taken else 2  # (-repeat alone: 2)
            if counts[token] < 1:  # not read as 1 (nor -games -1 -rounds -1 as one game)
                raise CutechessError(f"{token} must be at least 1, got {counts[token]}")
        else:
            out += _rewrite(token, args[:taken], command)
        out += args[taken:]  # the rest are positional players
    return out + _games_and_repeat(
        counts.get("-games"), counts.get("-rounds"), counts.get("-repeat")
    )


def _values_taken(token: str, args: list[str]) -> int:
    """How many of the values after option ``token`` are the option's."""
    if token in _KEYED or (token == "-pgnout" and args and "=" in args[0]):
        return next((n for n, a in enumerate(args) if "=" not in a), len(args))
    if token == "-pgnout" and args and "=" not in args[0]:  # FILE [min] [fi]
        marks = itertools.takewhile(lambda a: a in ("min", "fi"), args[1:3])
        return 1 + len(list(marks))
    if token == "-repeat":
        return int(bool(args) and args[0].isdigit())
    return {"-recover": 0, "-debug": 0}.get(token, 1)


def _rewrite(token: str, args: list[str], command: str) -> list[str]:
    """This project's options for cutechess's option ``token`` with its values ``args``
    (all but ``-games``, ``-rounds`` and ``-repeat``)."""
    if token in _VALUE:
        return [_VALUE[token], args[0]]
    if token in _DROPPED:
        return []
    if token == "-recover":
        return ["--recover"]
    if token == "-maxmoves":
        return ["--max-plies", str(2 * int(_number(args[0], token)))]
    if token == "-tournament":
        if len(args) != 1 or args[0] not in ("gauntlet", "round-robin", "roundrobin"):
            raise CutechessError("-tournament takes gauntlet or round-robin")
        if command != "tournament":
            return []
        return ["--format", "round-robin" if args[0] == "roundrobin" else args[0]]
    if token == "-openings":
        return _openings(args, command)
    keyed = {
        "-pgnout": _pgnout,
        "-sprt": _sprt,
        "-draw": _draw,
        "-resign": _resign,
    }
    return keyed[token](args)


def _games_and_repeat(games: int | None, rounds: int | None, repeat: int | None) -> list[str]:
    out = []
    if games is not None or rounds is not None:
        out += ["--games", str((games or 1) * (rounds or 1))]
    if repeat is not None:
        out += ["--repeat", str(repeat)]
    elif games is not None or rounds is not None:
        out += ["--repeat", "1"]  # cutechess without -repeat: a new opening every game
    return out


def _sprt(args: list[str]) -> list[str]:
    keys = _keys(args, "-sprt", {"elo0", "elo1", "alpha", "beta", "model"})
    if keys.get("model", "logistic") != "logistic":
        raise CutechessError("-sprt: only model=logistic (the GSPRT on logistic Elo)")
    if not {"elo0", "elo1"} <= keys.keys():
        raise CutechessError("-sprt needs elo0= and elo1=")
    out = ["--sprt", _number(keys["elo0"], "-sprt", float)]
    out.append(_number(keys["elo1"], "-sprt", float))
    return out + _passed_on(keys, "-sprt", {"alpha": "--alpha", "beta": "--beta"}, float)


def _draw(args: list[str]) -> list[str]:
    keys = _keys(args, "-draw", {"movenumber", "movecount", "score"})
    out = []
    if "movenumber" in keys:
        after = 2 * int(_number(keys["movenumber"], "-draw"))
        out += ["--draw-after", str(after), "--draw-streak", "start"]
    return out + _passed_on(keys, "-draw", {"movecount": "--draw-moves", "score": "--draw-score"})


def _resign(args: list[str]) -> list[str]:
    keys = _keys(args, "-resign", {"movecount", "score", "twosided"})
    if keys.get("twosided", "false") != "false":
        raise CutechessError("-resign: twosided=true is not supported")
    return _passed_on(keys, "-resign", {"movecount": "--resign-moves", "score": "--resign-score"})


def _passed_on(
    keys: dict[str, str],
    option: str,
    ours: dict[str, str],
    cast: Callable[[str], float] = int,
) -> list[str]:
    """The keys of ``option`` given among ``ours`` (its key -> our option), in that order,
    each a number passed on as written."""
    out = []
    for key, our_option in ours.items():
        if key in keys:
            out += [our_option, _number(keys[key], option, cast)]
    return out


def _pgnout(args: list[str]) -> list[str]:
    if not args:
        raise CutechessError("-pgnout needs a file")
    if "=" in args[0]:  # fastchess: file=F [min=true] [notation=san]
        keys = _keys(args, "-pgnout", {"file", "min", "notation", "nodes", "seldepth", "nps"})
        if "file" not in keys:
            raise CutechessError("-pgnout needs file=")
        out = ["--pgn", keys["file"]]
        return out + (["--pgn-min"] if keys.get("min", "false") == "true" else [])
    extra = set(args[1:]) - {"min", "fi"}
    if extra:
        raise CutechessError(f"-pgnout: {sorted(extra)} (expected FILE [min])")
    return ["--pgn", args[0]] + (["--pgn-min"] if "min" in args[1:] else [])


def _openings(args: list[str], command: str) -> list[str]:
    keys = _keys(args, "-openings", {"file", "format", "order", "plies", "policy", "start"})
    if "file" not in keys:
        raise CutechessError("-openings needs file=")
    if keys.get("start", "1") != "1":
        raise CutechessError("-openings: start= other than 1 is not supported")
    policy = keys.get("policy", "default")
    if policy == "round" and command == "tournament":
        # cutechess's round policy gives every pairing of a round the same opening; each
        # of our pairings is a match with its own seeded opening order.
        raise CutechessError(
            "-openings policy=round is not supported by ladder tournament (each pairing "
            "draws its own openings); leave policy out"
        )
    if policy not in ("default", "round"):  # a match's round is one encounter: the same
        raise CutechessError(f"-openings: policy={policy} is not supported")
    out = ["--openings", keys["file"]]
    if "format" in keys:
        out += ["--openings-format", keys["format"]]
    if "order" in keys:
        out += ["--openings-order", keys["order"]]
    if "plies" in keys:
        out += ["--openings-plies", _number(keys["plies"], "-openings")]
    return out
