"""Structured logs of ``ladder serve``: JSON lines (python-json-logger) or text.

Every line names its logger and, for the service's own events, an ``event``:
``request`` (logger ``ladder.access``, one per answered request: method, path, status,
latency, queue wait, variant, level, engine, attempts, client: the key's id or the
client address, never the key; ``request_id``: the client's ``X-Request-ID`` or one
made up, on this line and on every line written while the request is served),
``engine_incident`` / ``engine_started`` / ``engine_restarted`` (logger
``ladder.engine``, with the engine's stderr tail), ``engine_checked`` (the start-up
check's engine, before the pool's), ``engine_unpatched`` (not our build: a warning),
``clock_hurried`` (a clocked move made without a search: every engine busy past its
time), ``keys_loaded`` and the
start-up and shutdown lines. uvicorn's own lines go through the same handler; its access log is
replaced by ``ladder.access``.
"""

from __future__ import annotations

import contextvars
import logging
import sys
from datetime import UTC, datetime
from typing import Any, Literal

from pythonjsonlogger.core import RESERVED_ATTRS
from pythonjsonlogger.json import JsonEncoder, JsonFormatter

LogFormat = Literal["json", "text"]

#: Attributes of every LogRecord: what is not one of them was passed in ``extra``.
_STANDARD = frozenset(RESERVED_ATTRS) | {"taskName", "color_message"}


def default_format() -> LogFormat:
    """JSON when stderr is not a terminal (a service manager, a container), else text."""
    return "text" if sys.stderr.isatty() else "json"


def one_line(text: str) -> str:
    """``text`` with its control characters (a newline among them) written as escapes
    (``\\n``, ``\\x1b``): what a client sends (a URL's path, a header) can then neither
    start a log line of its own nor drive the terminal."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)


def utc_time(record: logging.LogRecord) -> str:
    """The record's time in RFC 3339, UTC, to the millisecond
    (``2026-12-05T21:57:35.606+00:00``): with its zone, so lines of machines set to
    different zones sort and compare."""
    return datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds")


class JsonLineFormatter(JsonFormatter):
    """python-json-logger's JSON lines, the time as :func:`utc_time` says: ``time``,
    ``severity``, ``logger``, ``message``, then the record's ``extra`` fields.

    A plain record (no exception, no stack, a text message: every ``request`` line) is
    written here in one pass, the same JSON the library writes: its generic field
    merging cost more than the rest of the line (a request line a move)."""

    def __init__(self) -> None:
        super().__init__(
            "%(asctime)s %(levelname)s %(name)s %(message)s",
            # `severity`: a request line has a `level` of its own (the ladder's)
            rename_fields={"asctime": "time", "levelname": "severity", "name": "logger"},
            timestamp=False,
            # uvicorn's ANSI-coloured copy of its message
            reserved_attrs=[*RESERVED_ATTRS, "color_message"],
        )
        self._plain_skip = frozenset(self._skip_fields)
        # json.dumps(cls=...) as the library calls it builds this encoder every line
        self._encode = JsonEncoder(ensure_ascii=self.json_ensure_ascii).encode

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        return utc_time(record)

    def format(self, record: logging.LogRecord) -> str:
        if record.exc_info or record.exc_text or record.stack_info or isinstance(record.msg, dict):
            return super().format(record)
        record.message = record.getMessage()
        skip = self._plain_skip
        log_data = {
            "time": utc_time(record),
            "severity": record.levelname,
            "logger": record.name,
            "message": record.message,
        }
        for key, value in record.__dict__.items():
            if key not in skip and not key.startswith("_"):
                log_data[key] = value
        return self.prefix + self._encode(log_data)


class TextFormatter(logging.Formatter):
    """``time level logger: message key=value ...`` (the ``extra`` fields appended), a
    record on one line (:func:`one_line`), but for a traceback and the engine's stderr
    tail, whose lines are indented."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        return utc_time(record)

    def formatMessage(self, record: logging.LogRecord) -> str:
        record.message = one_line(record.message)
        return super().formatMessage(record)

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        extras = [
            f"{key}={one_line(str(value))}"
            for key, value in record.__dict__.items()
            if key not in _STANDARD and value is not None and key != "stderr_tail"
        ]
        tail = getattr(record, "stderr_tail", None)
        if extras:
            line += " " + " ".join(extras)
        if tail:
            lines = str(tail).rstrip().split("\n")
            line += "".join("\n  stderr: " + one_line(text) for text in lines)
        return line


#: The id of the HTTP request this task is serving (ladder.service.http.observe sets it).
REQUEST_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "ladder_request_id", default=None
)


class RequestIdField(logging.Filter):
    """Adds ``request_id`` to every line written while a request is served (its own
    line, and any engine incident during it)."""

    def filter(self, record: logging.LogRecord) -> bool:
        request_id = REQUEST_ID.get()
        if request_id is not None and not hasattr(record, "request_id"):
            record.request_id = request_id
        return True


class WorkerField(logging.Filter):
    """Adds ``worker`` (the server process's number) to every line of that process."""

    def __init__(self, worker: int) -> None:
        super().__init__()
        self.worker = worker

    def filter(self, record: logging.LogRecord) -> bool:
        record.worker = self.worker
        return True


def lean_records() -> None:
    """Leave out of every log record what no line of the service shows: the calling
    function's file and line (a walk up the stack), the thread's and the process's name
    and id (the Logging HOWTO's "Optimization"). A server process's own number is
    :class:`WorkerField`'s."""
    logging._srcfile = None
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False


def logging_config(
    fmt: LogFormat, level: str = "info", worker: int | None = None
) -> dict[str, Any]:
    """A :func:`logging.config.dictConfig` for the whole process, uvicorn included
    (pass it as uvicorn's ``log_config``); `worker`: this process's number under
    ``ladder serve --workers N``, added to every line."""
    formatter = {"()": JsonLineFormatter if fmt == "json" else TextFormatter}
    upper = level.upper()
    handler: dict[str, Any] = {
        "class": "logging.StreamHandler",
        "formatter": "default",
        "stream": "ext://sys.stderr",
    }
    filters: dict[str, Any] = {"request_id": {"()": RequestIdField}}
    handler["filters"] = ["request_id"]
    if worker is not None:
        filters["worker"] = {"()": WorkerField, "worker": worker}
        handler["filters"].append("worker")
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"default": formatter},
        "filters": filters,
        "handlers": {"stderr": handler},
        "root": {"handlers": ["stderr"], "level": upper},
        "loggers": {
            "uvicorn": {"handlers": [], "level": upper, "propagate": True},
            "uvicorn.error": {"handlers": [], "level": upper, "propagate": True},
            # replaced by ladder.access (one structured line per request)
            "uvicorn.access": {"handlers": [], "level": "WARNING", "propagate": False},
        },
    }
