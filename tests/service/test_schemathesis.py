"""Schemathesis against our own OpenAPI schema: positive and negative examples for every
operation (bounded, deterministic), sent to a real server. No 5xx, responses conform to
the schema, invalid data is rejected with a 4xx, and the engines stay in sync.

`make test` sends 30 examples an operation; `make test-slow` 100 more
(:func:`test_openapi_at_length`, other draws), and prints what it sent and what came
back (docs/service.md quotes it)."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import (
    content_type_conformance,
    negative_data_rejection,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.config import SchemathesisConfig

from ladder.service.http.app import create_app
from ladder.service.operations.config import ServiceConfig

from .helpers import Server, check_move_reply, service_engine

#: Invalid data is rejected with one of these: schemathesis's defaults and 413, the
#: service's answer to a body over its limit (in the schema), which a long draw of
#: negative data (a list of long strings) reaches.
REJECTIONS = ["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428", "429"]
REJECTIONS += ["5xx"]  # as schemathesis's own list; not_a_server_error fails any 5xx anyway

# The schema is read from the app object (no engine is started for that).
schema = schemathesis.openapi.from_dict(
    create_app(ServiceConfig(engines=1, engine_path=service_engine())).openapi(),
    config=SchemathesisConfig.from_dict(
        {"checks": {"negative_data_rejection": {"expected-statuses": REJECTIONS}}}
    ),
)

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    negative_data_rejection,
]


@schema.parametrize()
@settings(max_examples=30, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
def test_openapi(case: schemathesis.Case, server: Server) -> None:
    body = case.body if isinstance(case.body, dict) else None
    if case.path == "/v1/move" and body is not None and body.get("level") in (5, 6, 7, 8):
        body["level"] = 1  # positive examples at high levels would only make this slow
    case.call_and_validate(base_url=server.url, checks=CHECKS, timeout=60)


#: What the long run sent and got: (operation, status) counts.
SENT: Counter[tuple[str, int]] = Counter()


@pytest.fixture(scope="module")
def report() -> Iterator[Counter[tuple[str, int]]]:
    """Prints the long run's requests by operation and status once the module ends."""
    started = time.monotonic()
    yield SENT
    if SENT:
        total = sum(SENT.values())
        served_errors = sum(n for (_, status), n in SENT.items() if status >= 500)
        print(
            f"\nschemathesis: {total} requests in {time.monotonic() - started:.0f} s, "
            f"{served_errors} 5xx"
        )
        for (operation, status), n in sorted(SENT.items()):
            print(f"  {operation} {status}: {n}")


@pytest.mark.slow
@schema.parametrize()
@settings(
    max_examples=100, derandomize=False, deadline=None, suppress_health_check=list(HealthCheck)
)
def test_openapi_at_length(
    case: schemathesis.Case, server: Server, report: Counter[tuple[str, int]]
) -> None:
    """As :func:`test_openapi`, with 100 examples an operation at random (hypothesis'
    seed printed on a failure), every answer counted."""
    body = case.body if isinstance(case.body, dict) else None
    if case.path == "/v1/move" and body is not None and body.get("level") in (6, 7, 8):
        body["level"] = 5  # level 8 searches for seconds: the run would be hours
    response = case.call_and_validate(base_url=server.url, checks=CHECKS, timeout=60)
    report[(f"{case.method} {case.path}", response.status_code)] += 1


def test_the_schema_examples_reach_the_engine(server: Server) -> None:
    """Every request example the schema gives is answered 200, and every move example is
    legal in every variant: the examples schemathesis combines reach an engine (a drop
    `A@e3` beside `xiangqi` was refused 422 before any search)."""
    document = schema.raw_schema
    components = document["components"]["schemas"]
    bodies = {}
    for path, operations in document["paths"].items():
        for operation in operations.values():
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            if body is not None:
                bodies[body["schema"]["$ref"].rsplit("/", 1)[1]] = path
    assert set(bodies.values()) == {"/v1/move", "/v1/position", "/v1/analysis"}
    with server.client() as client:
        for name, path in bodies.items():
            for example in components[name].get("examples", []):
                r = client.post(path, json=example)
                assert r.status_code == 200, (path, example, r.text)
            properties = components[name]["properties"]
            for variant in properties["variant"]["enum"]:
                for move in properties["moves"]["items"]["examples"]:
                    r = client.post("/v1/position", json={"variant": variant, "moves": [move]})
                    assert r.status_code == 200, (name, variant, move, r.text)


def test_still_in_sync_after_schemathesis(server: Server) -> None:
    with server.client() as client:
        r = client.post(
            "/v1/move",
            json={"variant": "crazyhouse-xiangqi", "moves": ["h3e3"], "level": 2, "seed": 9},
        )
        assert r.status_code == 200, r.text
        check_move_reply("crazyhouse-xiangqi", ["h3e3"], r.json())
