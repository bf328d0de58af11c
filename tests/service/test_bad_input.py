"""Bad input: every malformed or impossible request is a 4xx naming the field, nothing
reaches an engine that the rules checker did not accept, and the engines stay in sync."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings, strategies

from .helpers import Server, check_move_reply

START = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"

#: (body, expected status, expected field or None, expected ply or None)
CASES: list[tuple[Any, int, str | None, int | None]] = [
    ({"variant": "chess", "level": 3}, 422, "variant", None),
    ({"variant": "xiangqi", "level": 0}, 422, "level", None),
    ({"variant": "xiangqi", "level": 9}, 422, "level", None),
    ({"variant": "xiangqi", "level": "x"}, 422, "level", None),
    ({"variant": "xiangqi", "level": "3"}, 422, "level", None),
    ({"variant": "xiangqi", "level": 3.5}, 422, "level", None),
    ({"variant": "xiangqi", "level": True}, 422, "level", None),
    ({"variant": "xiangqi"}, 422, "level", None),
    ({"level": 3}, 422, "variant", None),
    ({"variant": "xiangqi", "level": 3, "seed": -1}, 422, "seed", None),
    ({"variant": "xiangqi", "level": 3, "seed": 2**64}, 422, "seed", None),
    ({"variant": "xiangqi", "level": 3, "levle": 3}, 422, "levle", None),
    ({"variant": "xiangqi", "level": 3, "moves": "h3e3"}, 422, "moves", None),
    ({"variant": "xiangqi", "level": 3, "moves": [1]}, 422, "moves[0]", 1),
    ({"variant": "xiangqi", "level": 3, "fen": "garbage"}, 422, "fen", None),
    ({"variant": "xiangqi", "level": 3, "fen": ""}, 422, "fen", None),
    ({"variant": "xiangqi", "level": 3, "fen": "startpos\nquit"}, 422, "fen", None),
    ({"variant": "xiangqi", "level": 3, "fen": START + "\ngo infinite"}, 422, "fen", None),
    ({"variant": "xiangqi", "level": 3, "fen": "9/9/9/9/9/9/9/9/9/9 w - - 0 1"}, 422, "fen", None),
    ({"variant": "xiangqi", "level": 3, "fen": "x" * 300}, 422, "fen", None),
    ({"variant": "xiangqi", "level": 3, "moves": ["h3e3\ngo"]}, 422, "moves[0]", 1),
    ({"variant": "xiangqi", "level": 3, "moves": ["h3e3", "quit"]}, 422, "moves[1]", 2),
    ({"variant": "xiangqi", "level": 3, "moves": ["h3e3 h10g8"]}, 422, "moves[0]", 1),
    ({"variant": "xiangqi", "level": 3, "moves": ["e1e3"]}, 422, "moves[0]", 1),
    ({"variant": "xiangqi", "level": 3, "moves": ["h3e3", "h10g8", "h3e3"]}, 422, "moves[2]", 3),
    (
        {"variant": "xiangqi", "level": 3, "moves": ["h3e3", "h10g8", "e3e7", "a10a9", "e7e11"]},
        422,
        "moves[4]",
        5,
    ),
    ({"variant": "xiangqi", "level": 3, "moves": ["A@e3"]}, 422, "moves[0]", 1),
    ({"variant": "crazyhouse-xiangqi", "level": 3, "moves": ["A@e7"]}, 422, "moves[0]", 1),
    ({"variant": "xiangqi", "level": 3, "moves": ["h3e3"] * 1001}, 422, "moves", None),
    ([], 422, "body", None),
    ("just a string", 422, "body", None),
    (None, 422, "body", None),
]


def _post(client: httpx.Client, path: str, body: Any) -> httpx.Response:
    return client.post(path, content=json.dumps(body), headers={"content-type": "application/json"})


def _valid_move_still_works(client: httpx.Client) -> None:
    moves = ["h3e3", "h10g8"]
    r = client.post("/v1/move", json={"variant": "xiangqi", "moves": moves, "level": 1, "seed": 3})
    assert r.status_code == 200, r.text
    check_move_reply("xiangqi", moves, r.json())


def test_an_unknown_variant_is_named_as_such(server: Server) -> None:
    """The documented code, not the generic one (the model's own check came first)."""
    with server.client() as client:
        for path, body in (("/v1/move", {"level": 3}), ("/v1/position", {})):
            r = _post(client, path, {"variant": "chess", **body})
            assert r.status_code == 422, r.text
            error = r.json()["error"]
            assert (error["code"], error["field"]) == ("unknown_variant", "variant"), error
            assert "xiangqi" in error["message"]  # what it could have been


@pytest.mark.parametrize(("body", "status", "field", "ply"), CASES)
def test_bad_move_request(
    server: Server, body: Any, status: int, field: str | None, ply: int | None
) -> None:
    with server.client() as client:
        r = _post(client, "/v1/move", body)
        assert r.status_code == status, r.text
        err = r.json()["error"]
        assert err["message"] and err["code"]
        if field is not None:
            assert err.get("field") == field, err
            assert field.split("[")[0] in err["message"]
        if ply is not None:
            assert err.get("ply") == ply, err


def test_raw_garbage(server: Server) -> None:
    with server.client() as client:
        for raw, status in [
            (b"{", 400),
            (b"not json", 400),
            (b'{"variant": "xiangqi",', 400),
            (b"\xff\xfe", 400),
        ]:
            r = client.post("/v1/move", content=raw, headers={"content-type": "application/json"})
            assert r.status_code == status, (raw, r.text)
            assert r.json()["error"]["code"] == "malformed_json"
        # Huge bodies: declared, and streamed without a length.
        big = b'{"variant": "xiangqi", "level": 1, "moves": [' + b'"h3e3",' * 20000 + b'"h3e3"]}'
        r = client.post("/v1/move", content=big, headers={"content-type": "application/json"})
        assert r.status_code == 413 and r.json()["error"]["code"] == "body_too_large"

        def chunks() -> Any:
            for _ in range(100):
                yield b" " * 1024

        r = client.post("/v1/move", content=chunks(), headers={"content-type": "application/json"})
        assert r.status_code == 413
        r = client.get("/v1/move")
        assert r.status_code == 405
        # JSON sent as a form (`curl -d` without a content type) or as text: said so
        body = json.dumps({"variant": "xiangqi", "level": 1}).encode()
        for content_type in ("application/x-www-form-urlencoded", "text/plain", None):
            headers = {"content-type": content_type} if content_type else {}
            r = client.post("/v1/move", content=body, headers=headers)
            assert r.status_code == 400, (content_type, r.text)
            error = r.json()["error"]
            assert error["code"] == "malformed_json" and error["field"] == "body"
            assert "Content-Type: application/json" in error["message"], error
        r = _post(client, "/v1/move", [1, 2])  # JSON, but not an object: the model says so
        assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_request"
        _valid_move_still_works(client)


def test_bad_position_request(server: Server) -> None:
    with server.client() as client:
        r = _post(client, "/v1/position", {"variant": "xiangqi", "moves": ["h3e3", "h3e3"]})
        assert r.status_code == 422
        assert r.json()["error"]["ply"] == 2
        r = _post(client, "/v1/position", {"variant": "xiangqi", "fen": "rnbakabnr w"})
        assert r.status_code == 422 and r.json()["error"]["field"] == "fen"
        r = _post(client, "/v1/position", {"variant": "xiangqi", "level": 3})
        assert r.status_code == 422 and r.json()["error"]["field"] == "level"


_json_scalars = (
    strategies.none()
    | strategies.booleans()
    | strategies.integers()
    | strategies.floats(allow_nan=False)
    | strategies.text(max_size=30)
)
_move_text = strategies.text(alphabet="abcdefghijk0123456789@ABNRCPKh\n \t;", max_size=9)
_bodies = (
    strategies.fixed_dictionaries(
        {},
        optional={
            "variant": strategies.sampled_from(
                ["xiangqi", "atomic-xiangqi", "crazyhouse-xiangqi", "chess", ""]
            )
            | _json_scalars,
            "level": strategies.integers(-2, 10) | _json_scalars,
            "seed": strategies.integers(-5, 2**64) | _json_scalars,
            "fen": strategies.sampled_from(
                [
                    START,
                    START.replace("w", "b"),
                    "startpos",
                    START + "\nquit",
                    "9/9/9/9/9/9/9/9/9/9 w - - 0 1",
                ]
            )
            | strategies.text(max_size=80),
            "moves": strategies.lists(
                strategies.sampled_from(["h3e3", "h10g8", "b1c3", "A@e3", "e1e2"]) | _move_text,
                max_size=8,
            )
            | _json_scalars,
        },
    )
    | strategies.lists(_json_scalars, max_size=3)
    | _json_scalars
)


@settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(body=_bodies)
def test_fuzz_never_5xx(server: Server, body: Any) -> None:
    """Random bodies: a 200 with a legal move, or a 4xx with a message; never a 5xx."""
    with server.client() as client:
        for path in ("/v1/move", "/v1/position"):
            if path == "/v1/move" and isinstance(body, dict) and body.get("level") in (5, 6, 7, 8):
                body = {**body, "level": 1}  # keep the fuzzing quick
            r = _post(client, path, body)
            assert r.status_code < 500, (body, r.text)
            if r.status_code == 200 and path == "/v1/move":
                check_move_reply(
                    body["variant"], body.get("moves", []), r.json(), fen=body.get("fen")
                )
            elif r.status_code >= 400:
                assert r.json()["error"]["message"]


def test_engines_in_sync_after_fuzzing(server: Server) -> None:
    with server.client() as client:
        for _ in range(3):
            _valid_move_still_works(client)
        health = client.get("/healthz").json()
        assert health["engines_alive"] == 2
