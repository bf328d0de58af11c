"""The JSON log lines: the request line's own pass writes what python-json-logger writes."""

from __future__ import annotations

import json
import logging
import sys
from typing import Any

from pythonjsonlogger.json import JsonFormatter

from ladder.service.operations.logs import JsonLineFormatter


def _record(exc_info: Any = None) -> logging.LogRecord:
    logger = logging.getLogger("ladder.access")
    extra = {
        "event": "request",
        "status": 200,
        "latency_ms": 1.234,
        "elo": None,
        "client": "127.0.0.1",
        "path": "/v1/m\u00f6ve",
        "request_id": "abc",
    }
    args = ("POST", "/v1/move", 200)
    return logger.makeRecord(
        "ladder.access",
        logging.INFO,
        "x.py",
        1,
        "%s %s %d",
        args,
        exc_info,
        extra=extra,
    )


def test_a_plain_record_is_the_library_s_json() -> None:
    formatter = JsonLineFormatter()
    record = _record()
    ours = formatter.format(record)
    theirs = JsonFormatter.format(formatter, _record())
    # the same keys, values and order; only the millisecond of `time` may differ
    ours_d, theirs_d = json.loads(ours), json.loads(theirs)
    assert list(ours_d) == list(theirs_d)
    assert list(ours_d)[:5] == ["time", "severity", "logger", "message", "event"]
    assert {k: v for k, v in ours_d.items() if k != "time"} == {
        k: v for k, v in theirs_d.items() if k != "time"
    }
    assert ours.replace(ours_d["time"], "") == theirs.replace(theirs_d["time"], "")


def test_a_record_with_an_exception_goes_the_library_s_way() -> None:
    try:
        raise ValueError("boom")
    except ValueError:
        record = _record(sys.exc_info())
    line = json.loads(JsonLineFormatter().format(record))
    assert "ValueError: boom" in line["exc_info"] and line["event"] == "request"
