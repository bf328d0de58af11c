"""JSON bodies with a key given twice are refused (and those Python cannot read).

``json.loads`` (and so FastAPI) keeps the last of two equal keys: ``{"level": 1,
"level": 8}`` would be a level-8 request that a proxy, a log or a WAF that reads the
first one takes for a level-1 one. The service refuses such a body (400
``malformed_json`` naming the key) before anything else reads it.
"""

from __future__ import annotations

import json
import sys
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


#: What :func:`read` gives as the value of a body it could not read.
UNREAD: Any = object()


def read(body: bytes) -> tuple[Any, str | None]:
    """`body`, sent as JSON, read: ``(its value, None)``; or ``(UNREAD, why not)``, said
    as a person would fix it: where its syntax breaks (line and column), a byte that is
    not UTF-8, a key given twice, a number of more digits than Python converts, arrays
    or objects nested deeper than its stack (FastAPI would answer "JSON decode error" or
    "There was an error parsing the body"); ``(UNREAD, None)`` for any other
    ``ValueError`` (left to FastAPI to answer)."""
    if not body.strip():
        return UNREAD, "the body is empty (send the request as a JSON object)"
    try:  # json.loads, but a key given twice raises DuplicateKey
        return json.loads(body, object_pairs_hook=_no_duplicates), None
    except DuplicateKey as exc:
        return UNREAD, f"duplicate key {exc.key!r} (give each key once)"
    except RecursionError:
        return UNREAD, "arrays or objects nested too deeply"
    except json.JSONDecodeError as exc:
        return UNREAD, f"{exc.msg} at line {exc.lineno}, column {exc.colno}"
    except UnicodeDecodeError as exc:
        return UNREAD, f"it is not UTF-8 text (byte 0x{body[exc.start]:02x} at offset {exc.start})"
    except ValueError as exc:  # int(): over sys.get_int_max_str_digits() digits
        if "integer string conversion" in str(exc):
            return UNREAD, f"a number of over {sys.get_int_max_str_digits()} digits"
        return UNREAD, None
