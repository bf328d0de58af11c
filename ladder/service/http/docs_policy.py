"""The API docs pages (/docs: Swagger UI, /redoc: ReDoc) reach nothing outside the
service.

Their scripts and styles are served by the service itself (fastapi-offline), but ReDoc's
bundle still draws its footer logo from ``https://cdn.redoc.ly``: a browser reading the
docs behind a site's firewall would call out, and tell the CDN that it did. So:

* the bundle is served with that address replaced by an empty inline image (the only
  address it loads anything from; its links to redocly.com stay links);
* the pages are answered with a Content-Security-Policy that allows only the service's
  own origin (plus ``data:`` images, the inline start-up scripts of both pages and
  ReDoc's ``blob:`` search worker), so nothing a later bundle adds can call out either.

The service's one middleware (:class:`ladder.service.http.middleware.ServiceGate`)
serves the bundle and adds the policy.
"""

from __future__ import annotations

import functools
from pathlib import Path

import fastapi_offline

#: The pages the policy applies to.
DOCS_PATHS = frozenset({"/docs", "/docs/oauth2-redirect", "/redoc"})

#: Everything from the service's own origin only.
POLICY = (
    "default-src 'self'; "
    "script-src 'self' 'unsafe-inline'; "
    "style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; "
    "font-src 'self' data:; "
    "connect-src 'self'; "
    "worker-src 'self' blob:; "
    "frame-ancestors 'self'; "
    "base-uri 'self'; "
    "form-action 'self'"
)


#: Where fastapi-offline serves ReDoc's bundle (its default static URL).
REDOC_JS = "/static-offline-docs/redoc.standalone.js"
#: What ReDoc's bundle loads from outside, and what it loads instead.
REDOC_LOGO = b"https://cdn.redoc.ly/redoc/logo-mini.svg"
NO_IMAGE = b"data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'/%3E"


@functools.cache
def redoc_bundle() -> bytes:
    """fastapi-offline's ReDoc bundle without its one outside address."""
    path = Path(fastapi_offline.__file__).parent / "static" / "redoc.standalone.js"
    return path.read_bytes().replace(REDOC_LOGO, NO_IMAGE)


#: The policy as the header the docs pages' answers carry.
POLICY_HEADER = (b"content-security-policy", POLICY.encode())
