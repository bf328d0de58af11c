"""Which engine build and ladder answer, and a request's pin of either, so that an
upgrade never mixes results.

A move and an analysis are reproducible only within one engine build and one levels
file. Every HTTP answer names both, in ``X-Ladder-Engine-Build`` and
``X-Ladder-Levels-Version`` (uvicorn's default headers: the protocol's own answers
too); a request may send either header back to pin it. An instance of another build
or ladder answers 503 ``version_mismatch`` with ``Retry-After``, which the balancers of
``deploy/`` pass to another instance (during a rolling upgrade: one of the old build
until none is left, then the client must start again). A pin that is not a build key
or a levels version at all is a 422 naming it. An analysis resumed (``from_ply`` over
1) must pin the build its ``start`` line named (:func:`require_pin`): it is refused
rather than continued on another build.
"""

from __future__ import annotations

import re

from starlette.types import Scope

from ladder.service.domain.errors import ErrorCode, InvalidRequest, ServiceError

#: The headers that name (in an answer) or pin (in a request) what answers.
ENGINE_BUILD_HEADER = "X-Ladder-Engine-Build"
LEVELS_VERSION_HEADER = "X-Ladder-Levels-Version"
#: What each may hold: a build key (scripts/build_engine.py's folder name, or `unknown`
#: for an engine not from that cache) and a levels version (12 hex digits).
_FORMATS = {
    ENGINE_BUILD_HEADER.lower().encode(): re.compile(r"engine-[a-z0-9-]{1,80}|unknown"),
    LEVELS_VERSION_HEADER.lower().encode(): re.compile(r"[0-9a-f]{12}"),
}


def answer_headers(engine_build: str, levels_version: str) -> list[tuple[str, str]]:
    """The headers every answer carries."""
    return [(ENGINE_BUILD_HEADER, engine_build), (LEVELS_VERSION_HEADER, levels_version)]


class VersionPin:
    """Refuse a request pinned to an engine build or levels version not served here
    (applied by :class:`ladder.service.http.middleware.ServiceGate`)."""

    def __init__(self, engine_build: str, levels_version: str, retry_after: int) -> None:
        self.retry_after = retry_after
        self.served = {
            ENGINE_BUILD_HEADER.lower().encode(): (ENGINE_BUILD_HEADER, engine_build),
            LEVELS_VERSION_HEADER.lower().encode(): (LEVELS_VERSION_HEADER, levels_version),
        }

    def refusal(self, scope: Scope) -> ServiceError | None:
        """The error refusing the request's pin (the first header that pins something
        else), or None."""
        for name, value in scope["headers"]:
            header = self.served.get(name)
            if header is None:
                continue
            error = judge_pin(
                header[0], bytes(value).decode("latin-1"), header[1], self.retry_after
            )
            if error is not None:
                return error
        return None


def judge_pin(header: str, pinned: str, served: str, retry_after: int) -> ServiceError | None:
    """A request's pin `pinned` of `header` where `served` is served: None if they are
    the same; 422 if it is no build key or levels version at all; else 503
    ``version_mismatch`` (another instance may serve it). The server's middleware and
    the in-process client (:class:`ladder.client.Ladder`) both judge by this."""
    if pinned == served:
        return None
    if not _FORMATS[header.lower().encode()].fullmatch(pinned):
        return ServiceError(
            422,
            ErrorCode.INVALID_REQUEST,
            f"{header}: {pinned[:100]!r} is not an engine build key or levels version",
            field=header,
        )
    return ServiceError(
        503,
        ErrorCode.VERSION_MISMATCH,
        f"{header}: this instance serves {served}, not {pinned}; another may",
        retry_after=retry_after,
    )


def require_pin(from_ply: int, pinned: str | None) -> None:
    """A resumed analysis names the engine build of its start (else it could be
    continued on another build, mixed)."""
    if from_ply > 1 and pinned is None:
        raise InvalidRequest(
            ErrorCode.INVALID_REQUEST,
            f"from_ply: a resumed analysis must send {ENGINE_BUILD_HEADER} with the engine "
            "of its start line, so that it is never continued on another build",
            field="from_ply",
        )


__all__ = [
    "ENGINE_BUILD_HEADER",
    "LEVELS_VERSION_HEADER",
    "VersionPin",
    "answer_headers",
    "judge_pin",
    "require_pin",
]
