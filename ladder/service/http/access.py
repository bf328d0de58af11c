"""Who may call the API, how often, from which origin and under which host name.

* :class:`KeyRing`: API keys from a file (one per line, an optional label after it,
  ``#`` comments), re-read on demand (``ladder serve`` does it on SIGHUP). A key is only
  kept as its SHA-256 digest; what is logged and queued is its id: the label, or
  ``key-`` and the first 8 hex digits of the digest.
* :class:`RateLimit`: requests per minute per client, a moving window (the ``limits``
  library, in memory).
* :class:`Access` (on ``/v1/*``): 401 without a known key when
  keys are configured, and 429 once one client address has sent too many requests
  without one (a key cannot be guessed); 429 with ``Retry-After`` over the rate
  limit; names the request's client (key id, or client address without keys) for fair
  queueing and the logs.
* :func:`host_refusal`: 400 for a ``Host`` outside the allowed list.
* :class:`JsonCors`: Starlette's CORS middleware, refusing preflights in the JSON
  envelope instead of plain text.

The service's one middleware (:class:`ladder.service.http.middleware.ServiceGate`)
applies them.
"""

from __future__ import annotations

import hashlib
import logging
import math
import re
import time
from pathlib import Path
from typing import Any

from limits import RateLimitItemPerMinute
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter
from starlette.middleware.cors import CORSMiddleware
from starlette.responses import Response
from starlette.types import Scope

from ladder.service.domain.errors import ErrorCode, ServiceError
from ladder.service.http.handlers import error_response

log = logging.getLogger(__name__)

#: RFC 6750 ``b64token``: what a bearer token may contain.
_TOKEN = re.compile(r"[A-Za-z0-9\-._~+/]+=*")
#: Shortest key accepted (characters).
MIN_KEY_LENGTH = 16


class KeyFileError(ValueError):
    """The key file cannot be used (the message names the file and line, never a key)."""


def key_id(key: str) -> str:
    """The id of an unlabelled key: ``key-`` + 8 hex digits of its SHA-256."""
    return "key-" + hashlib.sha256(key.encode()).hexdigest()[:8]


def _digest(key: str) -> bytes:
    return hashlib.sha256(key.encode()).digest()


def read_keys(path: Path) -> dict[bytes, str]:
    """{SHA-256 digest of the key: its id} from a key file; :class:`KeyFileError`."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise KeyFileError(
            f"API key file {path} does not exist (to serve without keys, name no key file "
            "and give --no-auth)"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise KeyFileError(f"cannot read API key file {path}: {exc}") from None
    keys: dict[bytes, str] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        fields = raw.split("#", 1)[0].split()
        if not fields:
            continue
        if len(fields) > 2:
            raise KeyFileError(f"{path}, line {number}: expected a key and at most a label")
        key = fields[0]
        if not _TOKEN.fullmatch(key):
            raise KeyFileError(
                f"{path}, line {number}: a key may contain only letters, digits and -._~+/="
            )
        if len(key) < MIN_KEY_LENGTH:
            raise KeyFileError(
                f"{path}, line {number}: key too short (at least {MIN_KEY_LENGTH} characters)"
            )
        keys[_digest(key)] = fields[1] if len(fields) == 2 else key_id(key)
    if not keys:
        raise KeyFileError(f"{path}: no API keys in the file")
    return keys


class KeyRing:
    """The accepted API keys (as digests), re-readable from their file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._keys = read_keys(path)

    def __len__(self) -> int:
        return len(self._keys)

    def identify(self, key: str) -> str | None:
        """The id of `key`, or None if it is not accepted."""
        return self._keys.get(_digest(key))

    def reload(self) -> bool:
        """Re-read the file; on an error keep the keys in force (and log why)."""
        try:
            keys = read_keys(self.path)
        except KeyFileError as exc:
            log.error(
                "API keys not reloaded, the previous %d stay in force: %s",
                len(self._keys),
                exc,
                extra={"event": "keys_reload_failed"},
            )
            return False
        self._keys = keys
        log.info(
            "API keys reloaded: %d keys",
            len(keys),
            extra={"event": "keys_loaded", "keys": len(keys)},
        )
        return True


class RateLimit:
    """At most `per_minute` requests per client in any 60-second window."""

    def __init__(self, per_minute: int) -> None:
        self.item = RateLimitItemPerMinute(per_minute)
        self._limiter = MovingWindowRateLimiter(MemoryStorage())

    def retry_after(self, client: str) -> int | None:
        """Count one request of `client`: None if allowed, else seconds to wait."""
        if self._limiter.hit(self.item, client):
            return None
        reset = self._limiter.get_window_stats(self.item, client).reset_time
        return max(1, math.ceil(reset - time.time()))


def _header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope["headers"]:
        if key == name:
            return bytes(value)
    return None


def _refusal(err: ServiceError, **headers: str) -> Response:
    response = error_response(err)
    response.headers.update(headers)
    return response


class Access:
    """The access rules of ``/v1/*``: keys, rate limit, and the client's name
    (``scope["state"]["client"]``, and the request trace's ``client``). Called by the
    service's one middleware (:class:`ladder.service.http.middleware.ServiceGate`)."""

    def __init__(
        self,
        keys: KeyRing | None,
        rate_limit: RateLimit | None,
        on_unauthorized: Any = None,
        on_rate_limited: Any = None,
        bad_key_limit: RateLimit | None = None,
    ) -> None:
        self.keys, self.rate_limit = keys, rate_limit
        self.bad_key_limit = bad_key_limit
        self.on_unauthorized, self.on_rate_limited = on_unauthorized, on_rate_limited

    def refusal(self, scope: Scope) -> Response | None:
        """The answer refusing the request (401, 429), or None when it may go on (its
        client named in the scope's state and trace)."""
        if self.keys is not None:
            client = self._key_of(scope)
            if client is None:
                if self.on_unauthorized is not None:
                    self.on_unauthorized()
                address = scope.get("client")
                wait = (
                    self.bad_key_limit.retry_after(str(address[0]) if address else "unknown")
                    if self.bad_key_limit is not None
                    else None
                )
                if wait is not None:
                    assert self.bad_key_limit is not None
                    log.warning(
                        "requests without a valid API key from %s throttled",
                        address[0] if address else "unknown",
                        extra={"event": "bad_key_throttled", "retry_after_s": wait},
                    )
                    return self._rate_limited(
                        f"over {self.bad_key_limit.item.amount} requests per minute without a "
                        f"valid API key from this address; try again in {wait} s",
                        wait,
                    )
                err = ServiceError(
                    401,
                    ErrorCode.UNAUTHORIZED,
                    "this service needs an API key: send 'Authorization: Bearer KEY'",
                )
                return _refusal(err, **{"WWW-Authenticate": "Bearer"})
        else:
            address = scope.get("client")
            client = str(address[0]) if address else "unknown"
        state = scope.setdefault("state", {})
        state["client"] = client
        trace = state.get("trace")
        if trace is not None:
            trace.client = client
        if self.rate_limit is not None:
            wait = self.rate_limit.retry_after(client)
            if wait is not None:
                return self._rate_limited(
                    f"over {self.rate_limit.item.amount} requests per minute; "
                    f"try again in {wait} s",
                    wait,
                )
        return None

    def _rate_limited(self, message: str, wait: int) -> Response:
        """429 ``rate_limited`` with ``Retry-After: wait`` (and counted)."""
        if self.on_rate_limited is not None:
            self.on_rate_limited()
        return _refusal(ServiceError(429, ErrorCode.RATE_LIMITED, message, retry_after=wait))

    def _key_of(self, scope: Scope) -> str | None:
        assert self.keys is not None
        value = _header(scope, b"authorization")
        if value is None:
            return None
        scheme, _, token = value.decode("latin-1").partition(" ")
        if scheme.lower() != "bearer":
            return None
        return self.keys.identify(token.strip())


def host_allowed(host: str, allowed: tuple[str, ...]) -> bool:
    """Whether `host` (without its port) matches one of `allowed` (``*.x`` covers the
    subdomains of ``x``, ``*`` anything)."""
    for pattern in allowed:
        if pattern == "*" or host == pattern:
            return True
        if pattern.startswith("*.") and host.endswith(pattern[1:]):
            return True
    return False


def host_refusal(scope: Scope, allowed: tuple[str, ...]) -> Response | None:
    """400 ``invalid_host`` unless the request's ``Host`` is one of `allowed` (lower
    case), else None."""
    raw = (_header(scope, b"host") or b"").decode("latin-1").lower()
    host = raw.rsplit(":", 1)[0] if not raw.endswith("]") else raw
    if host_allowed(host.strip("[]"), allowed):
        return None
    return _refusal(ServiceError(400, ErrorCode.INVALID_HOST, f"host {raw!r} is not served here"))


class JsonCors(CORSMiddleware):
    """CORS for the site's front end; a refused preflight in the JSON envelope."""

    def preflight_response(self, request_headers: Any) -> Response:
        response = super().preflight_response(request_headers)
        if response.status_code != 400:
            return response
        err = ServiceError(
            400, ErrorCode.CORS_REJECTED, bytes(response.body).decode(errors="replace")
        )
        refusal = error_response(err)
        for name, value in response.headers.items():
            if name.lower() not in ("content-length", "content-type"):
                refusal.headers[name] = value
        return refusal
