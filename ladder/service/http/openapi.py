"""The API's OpenAPI schema: FastAPI's, with the bearer scheme declared (required on
``/v1/*`` when the service has keys) and integer bounds written as integers."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from ladder.service.operations.config import MAX_SEED


def openapi_schema(app: FastAPI, *, secured: bool) -> dict[str, Any]:
    """FastAPI's schema, with the bearer scheme declared (and required on ``/v1/*`` when
    the service has keys) and integer bounds written as integers: FastAPI's schema
    models hold them as floats (the seed's maximum, 2^63-1, became 9.223372036854776e18,
    which is out of range)."""
    if app.openapi_schema is not None:
        return app.openapi_schema

    schema = get_openapi(
        title=app.title,
        version=app.version,
        summary=app.summary,
        routes=app.routes,
    )
    _integer_bounds(schema)
    schema.setdefault("components", {})["securitySchemes"] = {
        "bearer": {
            "type": "http",
            "scheme": "bearer",
            "description": "An API key from the server's key file (`ladder serve "
            "--api-keys FILE`); required on /v1/* when the server has keys.",
        }
    }
    if secured:
        for path, operations in schema["paths"].items():
            if path.startswith("/v1/"):
                for operation in operations.values():
                    operation["security"] = [{"bearer": []}]
    app.openapi_schema = schema
    return schema


def _integer_bounds(node: Any) -> None:
    """Write the bounds of integer schemas as integers (exact for the seed's)."""
    if isinstance(node, dict):
        if node.get("type") == "integer":
            for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
                value = node.get(key)
                if isinstance(value, float):
                    node[key] = MAX_SEED if value == float(MAX_SEED) else int(value)
        for child in node.values():
            _integer_bounds(child)
    elif isinstance(node, list):
        for child in node:
            _integer_bounds(child)


__all__ = ["openapi_schema"]
