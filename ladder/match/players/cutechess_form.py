"""cutechess-cli's form of an engine player, one ``key=value`` per argument (``-engine`` on
the command line): ``cmd=PATH args="-x 1" dir=DIR name=N proto=uci|ucci|xboard
option.Hash=64 nodes=N depth=N st=SECONDS tc=40/60+0.6 timemargin=MS``, plus the ladder's
own ``variants=``, ``uci_variant=``, ``newgame=``.

It is the same :class:`~ladder.match.players.specs.PlayerSpec` as the ladder's ``engine:``
form: its text (its identity) is that form, keys in a fixed order.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from ladder.match.players.specs import ENGINE_KEYS, PlayerSpec, PlayerSpecError, build_engine

__all__ = ["parse_engine_arguments"]


#: cutechess key -> the ladder form's key.
_CUTECHESS_KEYS = {"cmd": "cmd", "proto": "protocol", "protocol": "protocol"}


def parse_engine_arguments(tokens: Sequence[str]) -> PlayerSpec:
    """An engine from cutechess-style ``key=value`` arguments (``-engine cmd=fsf
    proto=uci option.Hash=16 tc=40/60+0.6 name=FSF``).

    The spec's text (its identity) is the same engine in the ladder's form, keys in a
    fixed order; its default name is the command's file name.
    """
    if not tokens:
        raise PlayerSpecError("-engine needs key=value arguments (at least cmd=PATH)")
    keys: dict[str, str] = {}
    options: dict[str, str] = {}
    for token in tokens:
        key, eq, value = token.partition("=")
        if not eq or not key:
            raise PlayerSpecError(f"-engine: expected key=value, got {token!r}")
        if key.startswith("option."):
            if not key[7:]:
                raise PlayerSpecError(f"-engine: option name missing in {token!r}")
            options[key[7:]] = value
            continue
        name = _CUTECHESS_KEYS.get(key.lower(), key.lower())
        if name != "cmd" and name not in ENGINE_KEYS:
            raise PlayerSpecError(
                f"-engine: unknown key {key!r} (engine options are written option.NAME=VALUE)"
            )
        keys[name] = value
    path = keys.pop("cmd", "")
    if not path:
        raise PlayerSpecError("-engine needs cmd=PATH")
    ordered = [f"{k}={_quote(v)}" for k, v in sorted(keys.items())]
    ordered += [f"{k}={_quote(v)}" for k, v in sorted(options.items())]
    text = ",".join([f"engine:{_quote(path)}", *ordered])
    return build_engine(text, path, {**keys, **options}, default_name=os.path.basename(path))


def _quote(value: str) -> str:
    if any(ch in value for ch in ',"\\') or value.split() != [value]:
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return value
