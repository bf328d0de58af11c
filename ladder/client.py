"""Python client of the move service: over HTTP, or in-process without a server.

    async with Ladder(base_url="http://127.0.0.1:8000") as ladder:
        reply = await ladder.move(variant="xiangqi", moves=["h3e3"], level=3)
        print(reply.move, reply.score, reply.fen)

    async with Ladder(engines=1) as ladder:          # in-process: its own engine pool
        ...

    with LadderSync(base_url="http://127.0.0.1:8000") as ladder:   # blocking
        ladder.move(variant="xiangqi", moves=[], level=1, seed=7)

Every failure raises :class:`ladder.service.domain.errors.ServiceError` (status, code, message,
field, ply, retry_after), the same in both modes: an answer's error as the server gave
it; no answer at all as ``unreachable`` (503: connection refused or lost), ``timeout``
(504) or ``bad_url`` (400). A 503 answer (busy, deadline, shutting down) is retried up
to ``retries`` times, after the ``Retry-After`` it gives (at most ``max_retry_wait`` s).

**Pinning.** A move is reproducible within one engine build and one levels file
(docs/service.md, "Reproducibility"). :attr:`Ladder.served` is what the last answer
named; ``Ladder(engine_build=..., levels_version=...)`` (or setting those attributes,
e.g. from ``served``) pins either: an instance of another build or ladder answers 503
``version_mismatch`` (retried as any 503: behind a balancer another instance may
match), a pin that is no version at all 422. In-process, the pins are judged against
the service's own build and ladder, by the server's rule
(:func:`ladder.service.http.version_pin.judge_pin`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, Concatenate, ParamSpec, TypeVar

import httpx
from pydantic import BaseModel, ValidationError

from ladder.engine_binary import engine_build_key
from ladder.service.domain.errors import ErrorCode, ServiceError
from ladder.service.domain.models import (
    Clock,
    Health,
    LevelsResponse,
    MoveRequest,
    MoveResponse,
    PositionRequest,
    PositionResponse,
    VariantsResponse,
)
from ladder.service.domain.mover import MoveService
from ladder.service.domain.status import FAILURES, as_list, as_service_error, request_model
from ladder.service.http.version_pin import ENGINE_BUILD_HEADER, LEVELS_VERSION_HEADER, judge_pin
from ladder.service.operations.config import ServiceConfig

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")
P = ParamSpec("P")

__all__ = ["Clock", "Ladder", "LadderSync", "Served", "ServiceError", "wait_until_healthy"]


@dataclass(frozen=True)
class Served:
    """The engine build and the levels version an answer named."""

    engine_build: str
    levels_version: str


class Ladder:
    """Async client. Give `base_url` to talk to a server, or nothing (optionally
    `engines=K` or a started `service`) to run the service in-process."""

    def __init__(
        self,
        base_url: str | None = None,
        *,
        timeout: float = 300.0,
        engines: int | None = None,
        service: MoveService | None = None,
        config: ServiceConfig | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        api_key: str | None = None,
        retries: int = 2,
        max_retry_wait: float = 10.0,
        engine_build: str | None = None,
        levels_version: str | None = None,
    ) -> None:
        self.base_url = base_url
        self._timeout = timeout
        self._http: httpx.AsyncClient | None = None
        self._service = service
        self._owns_service = False
        if base_url is None and service is None:
            cfg = config or (ServiceConfig(engines=engines) if engines else ServiceConfig())
            self._service = MoveService(cfg)
            self._owns_service = True
        self._transport = transport
        self._headers = {"content-type": "application/json"}
        if api_key:
            self._headers["authorization"] = f"Bearer {api_key}"
        self.retries = retries
        self.max_retry_wait = max_retry_wait
        #: The pins sent with every request (None: any).
        self.engine_build = engine_build
        self.levels_version = levels_version
        #: What the last answer named (None before one).
        self.served: Served | None = None

    def pin(self, engine_build: str | None, levels_version: str | None) -> None:
        """Pin the engine build and the levels version from now on (None: any), e.g.
        ``ladder.pin(**asdict(ladder.served))`` after a game's first move."""
        self.engine_build, self.levels_version = engine_build, levels_version

    def _pins(self) -> list[tuple[str, str]]:
        return [
            (header, value)
            for header, value in (
                (ENGINE_BUILD_HEADER, self.engine_build),
                (LEVELS_VERSION_HEADER, self.levels_version),
            )
            if value is not None
        ]

    async def __aenter__(self) -> Ladder:
        if self.base_url is not None:
            try:
                self._http = httpx.AsyncClient(
                    base_url=self.base_url,
                    timeout=self._timeout,
                    transport=self._transport,
                    headers=self._headers,
                )
            except (httpx.InvalidURL, TypeError, ValueError) as exc:
                raise _bad_url(self.base_url, exc) from None
        elif self._owns_service:
            assert self._service is not None
            await self._service.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the HTTP connection pool, or stop the in-process engines."""
        if self._http is not None:
            await self._http.aclose()
            self._http = None
        if self._owns_service and self._service is not None:
            await self._service.close()

    async def _call(
        self, method: str, path: str, model: type[M], body: BaseModel | None = None
    ) -> M:
        assert self._http is not None, "use `async with Ladder(...)`"
        content = body.model_dump_json(exclude_none=True) if body is not None else None
        return await self._retrying(lambda: self._request(method, path, model, content))

    async def _retrying(self, attempt: Callable[[], Coroutine[Any, Any, T]]) -> T:
        """``attempt()``, made again after a 503 up to ``retries`` times, each after
        its ``Retry-After`` (at most ``max_retry_wait`` s): over HTTP and in-process alike."""
        for tried in range(self.retries + 1):
            try:
                return await attempt()
            except ServiceError as err:
                if err.status != 503 or tried == self.retries:
                    raise
                await asyncio.sleep(min(self.max_retry_wait, err.retry_after or 1))
        raise AssertionError("unreachable")  # the loop returns or raises

    async def _request(self, method: str, path: str, model: type[M], content: str | None) -> M:
        assert self._http is not None
        try:
            # httpx's timeout is per read: a server trickling bytes would never trip it
            async with asyncio.timeout(self._timeout):
                resp = await self._http.request(
                    method, path, content=content, headers=dict(self._pins())
                )
        except (httpx.TimeoutException, TimeoutError) as exc:
            raise ServiceError(
                504,
                ErrorCode.TIMEOUT,
                f"no answer from {self.base_url} within {self._timeout:g} s ({type(exc).__name__})",
            ) from None
        except (httpx.UnsupportedProtocol, httpx.InvalidURL) as exc:
            raise _bad_url(self.base_url, exc) from None
        except httpx.TransportError as exc:
            raise ServiceError(
                503,
                ErrorCode.UNREACHABLE,
                f"cannot reach {self.base_url}: {exc or type(exc).__name__}",
            ) from None
        build = resp.headers.get(ENGINE_BUILD_HEADER)
        version = resp.headers.get(LEVELS_VERSION_HEADER)
        if build is not None and version is not None:
            self.served = Served(build, version)
        if resp.status_code >= 400:
            try:
                data = resp.json()
            except ValueError:
                data = resp.text
            err = ServiceError.from_dict(resp.status_code, data)
            if err.retry_after is None and "retry-after" in resp.headers:
                with contextlib.suppress(ValueError):
                    err.retry_after = int(resp.headers["retry-after"])
            raise err
        try:
            return model.model_validate_json(resp.content)
        except ValidationError as exc:
            raise ServiceError(
                502,
                ErrorCode.HTTP_ERROR,
                f"{self.base_url}{path} answered something else "
                f"than the ladder API: {exc.error_count()} problem(s)",
            ) from None

    async def _local(self, call: Callable[[MoveService], Coroutine[Any, Any, T]]) -> T:
        """An in-process call (``call(service)``), the service's failures as the API's
        errors, retried as an HTTP call is."""
        service = self._service
        assert service is not None

        served = Served(engine_build_key(service.config.engine_path), service.levels_version)
        values = {
            ENGINE_BUILD_HEADER: served.engine_build,
            LEVELS_VERSION_HEADER: served.levels_version,
        }

        async def attempt() -> T:
            for header, pinned in self._pins():
                error = judge_pin(header, pinned, values[header], service.config.retry_after_s)
                if error is not None:
                    raise error
            self.served = served
            try:
                return await call(service)
            except FAILURES as exc:
                raise as_service_error(exc, service.config.retry_after_s) from None

        return await self._retrying(attempt)

    async def move(
        self,
        *,
        variant: str,
        level: int | None = None,
        moves: Sequence[str] = (),
        fen: str | None = None,
        seed: int | None = None,
        elo: float | None = None,
        clock: Clock | None = None,
        notations: Sequence[str] = (),
    ) -> MoveResponse:
        """The computer's move at `level` (or at `elo`, any rating on the measured curve)
        after `moves` (from `fen`, or the start); with `clock` (the mover's, in a timed
        game) the search also stops at a safe share of it; with `notations` (`wxf`,
        `chinese`, `chinese-traditional`) the move written in them too."""
        req = request_model(
            MoveRequest,
            variant=variant,
            fen=fen,
            moves=as_list(moves),
            level=level,
            elo=elo,
            seed=seed,
            clock=clock,
            notations=list(notations),
        )
        if self._service is not None:
            return await self._local(lambda service: service.move(req))
        return await self._call("POST", "/v1/move", MoveResponse, req)

    async def position(
        self,
        *,
        variant: str,
        moves: Sequence[str] = (),
        fen: str | None = None,
        notations: Sequence[str] = (),
    ) -> PositionResponse:
        """The rules checker's view of a position: FEN, legal moves, check, outcome (and
        `moves` in `notations`, if any)."""
        req = request_model(
            PositionRequest,
            variant=variant,
            fen=fen,
            moves=as_list(moves),
            notations=list(notations),
        )
        if self._service is not None:
            return await self._local(lambda service: service.position(req))
        return await self._call("POST", "/v1/position", PositionResponse, req)

    async def levels(self) -> LevelsResponse:
        """Every level of every variant."""
        if self._service is not None:
            return self._service.level_table()
        return await self._call("GET", "/v1/levels", LevelsResponse)

    async def variants(self) -> VariantsResponse:
        """The rule sets served."""
        if self._service is not None:
            return self._service.variants()
        return await self._call("GET", "/v1/variants", VariantsResponse)

    async def health(self) -> Health:
        """Liveness and load."""
        if self._service is not None:
            return self._service.health()
        return await self._call("GET", "/healthz", Health)


def _bad_url(url: str | None, exc: Exception) -> ServiceError:
    return ServiceError(
        400,
        ErrorCode.BAD_URL,
        f"bad service URL {url!r}: {exc} (expected e.g. http://127.0.0.1:8000)",
    )


def _blocking(
    method: Callable[Concatenate[Ladder, P], Coroutine[Any, Any, T]],
) -> Callable[Concatenate[LadderSync, P], T]:
    """:class:`Ladder`'s ``method`` as a :class:`LadderSync` method: the same arguments,
    its answer waited for."""

    @functools.wraps(method)
    def blocking(self: LadderSync, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return self._run(method(self._ladder, *args, **kwargs))

    blocking.__qualname__ = f"LadderSync.{method.__name__}"
    return blocking


class LadderSync:
    """Blocking wrapper of :class:`Ladder` (same arguments, same methods, no `await`).

    Runs its own event loop; do not use it from inside a running loop."""

    def __init__(self, base_url: str | None = None, **kwargs: Any) -> None:
        self._runner = asyncio.Runner()
        self._ladder = Ladder(base_url, **kwargs)

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        return self._runner.run(coro)

    def __enter__(self) -> LadderSync:
        self._run(self._ladder.__aenter__())
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the client (and stop in-process engines)."""
        try:
            self._run(self._ladder.aclose())
        finally:
            self._runner.close()

    # The methods are Ladder's, run to their end: the same arguments by construction.
    move = _blocking(Ladder.move)
    position = _blocking(Ladder.position)
    levels = _blocking(Ladder.levels)
    variants = _blocking(Ladder.variants)
    health = _blocking(Ladder.health)

    @property
    def served(self) -> Served | None:
        """What the last answer named (:attr:`Ladder.served`)."""
        return self._ladder.served

    def pin(self, engine_build: str | None, levels_version: str | None) -> None:
        """:meth:`Ladder.pin`."""
        self._ladder.pin(engine_build, levels_version)


def wait_until_healthy(
    base_url: str, timeout: float, alive: Callable[[], bool] = lambda: True
) -> bool:
    """Wait until the server at ``base_url`` answers ``GET /healthz`` with 200 (True), for
    at most ``timeout`` seconds or until ``alive()`` (e.g. "the server process still
    runs") turns false (False). For scripts and tests that start a server."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if httpx.get(base_url + "/healthz", timeout=2).status_code == 200:
                return True
        except httpx.TransportError:
            pass  # not listening yet
        if not alive() or time.monotonic() > deadline:
            return False
        time.sleep(0.1)
