"""Helpers of the protocol tests: the types of the conftest's engine fixtures."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeAlias

#: The ``fake`` fixture: ``fake(mode, *args)``, the argv of the fault-injection engine.
FakeCommand: TypeAlias = Callable[..., list[str]]
#: The ``wire`` fixture: ``wire(">")``, the lines sent to engines since the last call;
#: ``wire("<")``, the lines received.
WireLog: TypeAlias = Callable[[str], list[str]]
