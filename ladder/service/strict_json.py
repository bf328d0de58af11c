"""JSON bodies with a key given twice are refused.

``json.loads`` (and so FastAPI) keeps the last of two equal keys: ``{"level": 1,
"level": 8}`` would be a level-8 request that a proxy, a log or a WAF that reads the
first one takes for a level-1 one. The service refuses such a body (400
``malformed_json`` naming the key) before anything else reads it.
"""

from __future__ import annotations

import json
from typing import Any


class DuplicateKey(ValueError):
    """A JSON object has the same key twice."""

    def __init__(self, key: str) -> None:
        super().__init__(f"duplicate key {key!r}")
        self.key = key


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise DuplicateKey(key)
        out[key] = value
    return out


def loads(body: bytes | str) -> Any:
    """``json.loads`` that raises :class:`DuplicateKey` for a key given twice in any
    object (and ``json.JSONDecodeError`` / ``ValueError`` as it does)."""
    return json.loads(body, object_pairs_hook=_no_duplicates)


def duplicate_key(body: bytes) -> str | None:
    """The first key given twice in `body`, if it is JSON and has one."""
    try:
        loads(body)
    except DuplicateKey as exc:
        return exc.key
    except (ValueError, RecursionError):  # not JSON: the route says what is wrong
        return None
    return None
