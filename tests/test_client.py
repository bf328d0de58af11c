"""The Python client pins the engine build and the levels version: it says what each
answer named (`served`), sends its pins with every request, and a pin of another build
or ladder is 503 `version_mismatch` (one that is no version at all 422 naming the
header), over HTTP against `ladder serve` and in-process alike."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict

import pytest

from ladder.client import Ladder, LadderSync, Served, ServiceError
from ladder.engine_binary import engine_build_key
from ladder.levels import LEVELS_FILE, levels_version
from ladder.service.operations.config import ServiceConfig

from .service.helpers import OUT_OF_BOOK, Server, service_engine, start_server

OTHER_BUILD = "engine-fast-patched-0000000000000000"


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    with start_server(engines=1) as srv:
        yield srv


def served_here() -> Served:
    return Served(engine_build_key(service_engine()), levels_version(LEVELS_FILE))


def test_over_http_a_pin_of_what_answered_plays_and_another_is_refused(server: Server) -> None:
    with LadderSync(server.url, retries=0) as ladder:
        assert ladder.served is None
        first = ladder.move(variant="xiangqi", moves=OUT_OF_BOOK, level=1, seed=3)
        served = ladder.served
        assert served is not None and served == served_here()
        ladder.pin(**asdict(served))
        assert (
            ladder.move(variant="xiangqi", moves=OUT_OF_BOOK, level=1, seed=3).move == first.move
        )  # pinned to what answered: played
        ladder.pin(OTHER_BUILD, None)
        with pytest.raises(ServiceError) as refused:
            ladder.move(variant="xiangqi", moves=OUT_OF_BOOK, level=1, seed=3)
        assert (refused.value.status, refused.value.code) == (503, "version_mismatch")
        assert OTHER_BUILD in refused.value.message and refused.value.retry_after
        ladder.pin(None, "not-a-version")
        with pytest.raises(ServiceError) as bad:
            ladder.move(variant="xiangqi", moves=OUT_OF_BOOK, level=1, seed=3)
        assert bad.value.status == 422 and "X-Ladder-Levels-Version" in bad.value.message


async def test_in_process_the_pins_are_judged_by_the_servers_rule() -> None:
    config = ServiceConfig(engines=1, engine_path=service_engine())
    async with Ladder(config=config, retries=0, levels_version="000000000000") as ladder:
        with pytest.raises(ServiceError) as refused:
            await ladder.move(variant="xiangqi", moves=OUT_OF_BOOK, level=1, seed=3)
        assert (refused.value.status, refused.value.code) == (503, "version_mismatch")
        assert ladder.served is None  # nothing answered
        ladder.pin(**asdict(served_here()))
        reply = await ladder.move(variant="xiangqi", moves=OUT_OF_BOOK, level=1, seed=3)
        assert reply.move and ladder.served == served_here()
        ladder.pin("engine bad", None)
        with pytest.raises(ServiceError) as bad:
            await ladder.move(variant="xiangqi", moves=OUT_OF_BOOK, level=1, seed=3)
        assert bad.value.status == 422 and "X-Ladder-Engine-Build" in bad.value.message
