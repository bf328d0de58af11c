"""The one retry policy (protocol/retry.py) on a real process: the fault-injection
engine (tests/protocol/fake_engine.py) under a ManagedEngine, whose calls are one
attempt each."""

from __future__ import annotations

import pytest

from protocol import Backoff, EngineFailure, Limit, ManagedEngine
from protocol.retry import ATTEMPTS, RetryDeadlineExceeded, RetryPolicy
from tests.protocol.helpers import FakeCommand, fast_timeouts

NO_WAIT = Backoff(base=0.01, cap=0.05)


def test_a_policy_tries_at_least_once_within_a_positive_deadline() -> None:
    with pytest.raises(ValueError, match="attempts must be at least 1, not 0"):
        RetryPolicy(attempts=0)
    with pytest.raises(ValueError, match="the deadline must be positive"):
        RetryPolicy(deadline=0)
    assert RetryPolicy().attempts == ATTEMPTS == 2


@pytest.mark.parametrize("attempts", [1, 3])
async def test_each_attempt_runs_on_a_fresh_engine_and_the_failure_counts_them(
    attempts: int, fake: FakeCommand, no_leaked_processes: set[int]
) -> None:
    async with ManagedEngine(
        fake("crash-mid-search"), timeouts=fast_timeouts(), backoff=NO_WAIT
    ) as managed:
        with pytest.raises(EngineFailure) as caught:
            await RetryPolicy(attempts).run(
                lambda: managed.search(None, None, [], Limit(nodes=100))
            )
        assert str(caught.value).startswith(f"engine failed {attempts} time(s): ")
        incidents = caught.value.incidents
        assert [i.kind for i in incidents] == ["crash"] * attempts
        assert len({i.pid for i in incidents}) == attempts  # a new process each time
        assert managed.starts == attempts


async def test_the_deadline_bounds_every_attempt_together(
    fake: FakeCommand, no_leaked_processes: set[int]
) -> None:
    """An engine that never answers: its own search timeout would end each attempt
    later than the policy's deadline, which ends them all."""
    timeouts = fast_timeouts(search_margin=30.0)
    async with ManagedEngine(fake("hang-search"), timeouts=timeouts, backoff=NO_WAIT) as managed:
        with pytest.raises(RetryDeadlineExceeded) as caught:
            await RetryPolicy(attempts=5, deadline=0.5).run(
                lambda: managed.search(None, None, [], Limit(nodes=100))
            )
        assert str(caught.value) == "no engine answer within 0.5 s"
        assert caught.value.failures == []
