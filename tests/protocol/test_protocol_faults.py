"""The fault matrix: each fault ends in its documented error, a killed and reaped
process tree (the autouse leak check), and a healthy restart under ManagedEngine."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import signal
from collections.abc import Callable
from pathlib import Path

import psutil
import pytest

from protocol import (
    Backoff,
    Dialect,
    Engine,
    EngineFailure,
    EngineProtocolError,
    EngineStartError,
    EngineTerminatedError,
    EngineTimeoutError,
    Limit,
    ManagedEngine,
    Timeouts,
    UciEngine,
)
from protocol.errors import EngineFault
from protocol.retry import RetryPolicy
from tests.protocol.helpers import FakeCommand, fast_timeouts

pytestmark = pytest.mark.timeout(30)

FAST = fast_timeouts()
NO_WAIT = Backoff(base=0.01, cap=0.05)

# mode -> (error type, phase, what the client does to meet the fault)
MATRIX: dict[str, tuple[type[EngineFault], str, str]] = {
    "crash-at-start": (EngineTerminatedError, "handshake", "start"),
    "hang-handshake": (EngineTimeoutError, "handshake", "start"),
    "garbage": (EngineProtocolError, "handshake", "start"),
    "long-line": (EngineProtocolError, "handshake", "start"),
    "hang-isready": (EngineTimeoutError, "isready", "ping"),
    "crash-mid-search": (EngineTerminatedError, "search", "search"),
    "hang-search": (EngineTimeoutError, "search", "search"),
    "flood": (EngineProtocolError, "search", "search"),
    "bad-bestmove": (EngineProtocolError, "search", "search"),
    # control characters in a line that matters stay a fault (a banner is skipped)
    "control-option": (EngineProtocolError, "handshake", "start"),
    "control-info": (EngineProtocolError, "search", "search"),
    "control-bestmove": (EngineProtocolError, "search", "search"),
    "illegal-bestmove": (EngineProtocolError, "search", "search"),
    "ignore-stop": (EngineTimeoutError, "stop", "stop"),
    "slow-quit": (EngineTimeoutError, "quit", "quit"),
}


async def _meet(engine: Engine, action: str) -> None:
    if action == "ping":
        await engine.ping()
    elif action == "search":
        await engine.search(None, [], Limit(nodes=1000))
    elif action == "stop":
        searching = asyncio.Event()  # set by the search's first info line
        task = asyncio.create_task(
            engine.search(None, [], Limit(), on_info=lambda _: searching.set())
        )
        await searching.wait()
        await engine.stop()
        await task
    elif action == "quit":
        await engine.search(None, [], Limit(nodes=1000))
        await engine.quit()


@pytest.mark.parametrize("protocol", [Dialect.UCI, Dialect.UCCI], ids=["uci", "ucci"])
@pytest.mark.parametrize("mode", sorted(MATRIX))
async def test_fault_matrix(
    mode: str, protocol: Dialect, fake: FakeCommand, no_leaked_processes: set[int]
) -> None:
    error, phase, action = MATRIX[mode]
    pids: list[int] = []
    with pytest.raises(error) as caught:
        # --child: the engine leaves a `sleep` behind that must die with it
        engine = None
        try:
            # ranks given: no probe search in the UCCI handshake (the phases are tested)
            engine = await Engine.start(
                fake(mode, "--child"),
                protocol=protocol,
                timeouts=FAST,
                ranks="0-9" if protocol is Dialect.UCCI else None,
            )
        finally:
            if engine is not None:
                pids.append(engine.pid)
                no_leaked_processes.add(engine.pid)
        await _meet(engine, action)
    assert caught.value.phase == phase
    if engine is not None:
        assert engine.closed and not engine.process.alive()
        assert not psutil.pid_exists(engine.pid)
    if mode.startswith("control-"):
        assert "control characters" in str(caught.value)
    if mode == "crash-at-start":
        assert isinstance(caught.value, EngineTerminatedError)
        assert caught.value.returncode == 3
        assert "crashing at start" in caught.value.stderr


async def test_illegal_bestmove_rejected_by_validator(
    fake: FakeCommand, no_leaked_processes: set[int]
) -> None:
    engine = await Engine.start(fake("normal"), timeouts=FAST)
    no_leaked_processes.add(engine.pid)
    with pytest.raises(EngineProtocolError, match="illegal bestmove"):
        await engine.search(None, [], Limit(nodes=1), validate_move=lambda move: move != "a1a2")
    assert engine.closed


async def test_missing_executable(tmp_path: Path) -> None:
    with pytest.raises(EngineStartError):
        await Engine.start(tmp_path / "no-such-engine")


@pytest.mark.parametrize(
    "mode",
    [
        "crash-at-start",
        "hang-handshake",
        "garbage",
        "crash-mid-search",
        "hang-search",
        "bad-bestmove",
        "flood",
    ],
)
async def test_managed_engine_restarts_after_fault(
    mode: str, fake: FakeCommand, tmp_path: Path, no_leaked_processes: set[int]
) -> None:
    """The first process faults (--once): the managed engine records it and kills it,
    and the retry policy's next attempt runs on a restarted engine with its options
    re-applied."""
    managed = ManagedEngine(
        fake(mode, "--child", "--once", str(tmp_path / "faulted")),
        options={"Hash": 32},
        timeouts=FAST,
        backoff=NO_WAIT,
    )
    try:
        outcome, earlier = await RetryPolicy(attempts=3).run(
            lambda: managed.search("xiangqi", None, ["h3e3"], Limit(nodes=100))
        )
        assert outcome.result.move == "a1a2"
        incidents = earlier + outcome.incidents
        assert len(incidents) == 1
        incident = incidents[0]
        assert incident.kind in ("crash", "timeout", "protocol", "start-failed")
        assert managed.starts == 2
        assert managed.engine is not None
        assert managed.engine.option_values.get("hash") == "32"  # re-applied after the restart
        no_leaked_processes.add(outcome.pid)
        # and the next search is quiet
        again = await managed.search("xiangqi", None, [], Limit(nodes=100))
        assert not again.incidents and again.pid == outcome.pid
    finally:
        await managed.close()


async def test_managed_engine_gives_up_after_retries(
    fake: FakeCommand, no_leaked_processes: set[int]
) -> None:
    """A managed call is one attempt; the policy's last failure counts them."""
    managed = ManagedEngine(fake("crash-mid-search"), timeouts=FAST, backoff=NO_WAIT)
    try:
        with pytest.raises(EngineFailure) as once:
            await managed.search(None, None, [], Limit(nodes=100))
        assert [i.kind for i in once.value.incidents] == ["crash"]
        with pytest.raises(EngineFailure) as caught:
            await RetryPolicy().run(lambda: managed.search(None, None, [], Limit(nodes=100)))
        assert str(caught.value).startswith("engine failed 2 time(s): ")
        assert [i.kind for i in caught.value.incidents] == ["crash", "crash"]
        assert all(not psutil.pid_exists(i.pid) for i in caught.value.incidents if i.pid)
    finally:
        await managed.close()


async def test_managed_engine_detects_death_between_searches(
    fake: FakeCommand, no_leaked_processes: set[int]
) -> None:
    async with ManagedEngine(fake("normal"), timeouts=FAST, backoff=NO_WAIT) as managed:
        first = await managed.search(None, None, [], Limit(nodes=10))
        assert managed.engine is not None
        psutil.Process(first.pid).kill()
        assert await managed.engine.process.wait(10)  # its exit is seen (and reaped)
        second = await managed.search(None, None, [], Limit(nodes=10))
        assert [i.kind for i in second.incidents] == ["died-idle"]
        assert second.pid != first.pid
        no_leaked_processes.add(first.pid)


async def test_memory_guard_recycles_between_searches(
    fake: FakeCommand, no_leaked_processes: set[int]
) -> None:
    async with ManagedEngine(
        fake("normal", "--leak-mb", "64"), timeouts=FAST, max_rss=48 * 2**20
    ) as managed:
        first = await managed.search(None, None, [], Limit(nodes=10))
        assert not first.incidents  # the guard acts between searches, not during one
        second = await managed.search(None, None, [], Limit(nodes=10))
        assert [i.kind for i in second.incidents] == ["memory"]
        assert second.pid != first.pid
        no_leaked_processes.add(first.pid)


class KillBeforeWrite:
    """Stands in for an :class:`Engine`'s stdin writer: before the first write that
    contains ``trigger`` it SIGKILLs the engine and waits until the process is dead, then
    writes as ``flavour`` says, and so on for every later write:

    * ``asyncio``: through the real asyncio transport (which swallows the error);
    * ``pipe``: straight to the pipe's file descriptor (a real ``BrokenPipeError``, as a
      loop that writes at once, like uvloop's, gets it);
    * ``closed-handle``: the ``RuntimeError`` uvloop raises once its pipe handle is
      closed (the case seen in production).
    """

    def __init__(
        self, real: asyncio.StreamWriter, pid: int, flavour: str, trigger: bytes = b"go "
    ) -> None:
        self.real, self.pid, self.flavour, self.trigger = real, pid, flavour, trigger
        self.fired = False

    def _kill_and_wait(self) -> None:
        os.kill(self.pid, signal.SIGKILL)
        # Blocks until it has exited, without reaping it (asyncio's child watcher does;
        # if the watcher was first, there is no child left to wait for).
        with contextlib.suppress(ChildProcessError):
            os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOWAIT)

    def write(self, data: bytes) -> None:
        if not self.fired and self.trigger in data:
            self.fired = True
            self._kill_and_wait()
        if not self.fired or self.flavour == "asyncio":
            self.real.write(data)
        elif self.flavour == "pipe":
            pipe = self.real.transport.get_extra_info("pipe")
            if pipe is None:  # uvloop's transport shows no pipe: what a write to it gets
                raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))
            os.write(pipe.fileno(), data)
        else:
            raise RuntimeError(
                "unable to perform operation on <WriteUnixTransport "
                "closed=True reading=False>; the handler is closed"
            )


WRITE_FLAVOURS = ["asyncio", "pipe", "closed-handle"]


@pytest.mark.parametrize("flavour", WRITE_FLAVOURS)
async def test_write_to_killed_engine_is_terminated(
    flavour: str, fake: FakeCommand, no_leaked_processes: set[int]
) -> None:
    """An engine SIGKILLed just before the client writes `position`/`go`: whatever the
    transport does with that write, the search ends in EngineTerminatedError (phase
    search) with the process reaped, never a bare RuntimeError/BrokenPipeError."""
    engine = await Engine.start(fake("normal"), timeouts=FAST)
    no_leaked_processes.add(engine.pid)
    try:
        await engine.search(None, [], Limit(nodes=10))
        engine.process.stdin = KillBeforeWrite(engine.process.stdin, engine.pid, flavour)  # type: ignore[assignment]
        with pytest.raises(EngineTerminatedError) as caught:
            await engine.search(None, ["h3e3"], Limit(nodes=10))
        assert caught.value.phase == "search"
        assert engine.closed and not engine.process.alive()
        assert engine.error is caught.value
        with pytest.raises(EngineTerminatedError):  # closed for good
            await engine.ping()
    finally:
        await engine.close()


@pytest.mark.parametrize("flavour", WRITE_FLAVOURS)
async def test_write_to_killed_engine_restarts_under_manager(
    flavour: str, fake: FakeCommand, no_leaked_processes: set[int]
) -> None:
    """The same under ManagedEngine: a crash incident, a fresh process, the search
    answered."""
    async with ManagedEngine(fake("normal"), timeouts=FAST, backoff=NO_WAIT) as managed:
        first = await managed.search(None, None, [], Limit(nodes=10))
        no_leaked_processes.add(first.pid)
        engine = managed.engine
        assert engine is not None
        engine.process.stdin = KillBeforeWrite(engine.process.stdin, engine.pid, flavour)  # type: ignore[assignment]
        second, earlier = await RetryPolicy().run(
            lambda: managed.search(None, None, ["h3e3"], Limit(nodes=10))
        )
        assert [i.kind for i in earlier] == ["crash"] and not second.incidents
        assert earlier[0].pid == first.pid
        if flavour != "asyncio":  # asyncio drops the write: the EOF after it tells
            assert earlier[0].phase == "search"
        assert second.pid != first.pid and second.result.move == "a1a2"
        assert (
            not psutil.pid_exists(first.pid)
            or psutil.Process(first.pid).status() == psutil.STATUS_ZOMBIE
        )


def test_backoff_is_capped_and_jittered() -> None:
    import random

    backoff = Backoff(base=0.1, factor=2, cap=1.0, jitter=0.5)
    rng = random.Random(1)
    delays = [backoff.delay(n, rng) for n in range(1, 10)]
    assert backoff.delay(0) == 0
    assert all(0.05 <= d <= 1.0 for d in delays)
    assert 0.5 <= delays[-1] <= 1.0 and delays[0] <= 0.1


async def test_cancel_while_new_game_syncs_drains_the_sent_search(
    fake: FakeCommand, sent_to_engine: Callable[[str], asyncio.Event]
) -> None:
    """`ucinewgame`, `position` and `go` go out together: a search cancelled while the
    engine is still busy with the new game must still stop and drain the search it
    started, so the next search reads its own bestmove and not the stale one."""
    timeouts = Timeouts(startup=5, handshake=2, isready=3, stop=2, quit=1, search_margin=2)
    engine = await Engine.start(fake("slow-newgame"), timeouts=timeouts)
    try:
        go_sent = sent_to_engine("go ")
        first = asyncio.create_task(engine.search(None, [], Limit(nodes=1), new_game=True))
        await go_sent.wait()  # sent with the new game, which takes the fake engine 1 s
        first.cancel()
        with pytest.raises(asyncio.CancelledError):
            await first
        second = await engine.search(None, [], Limit(nodes=1))
        assert second.move == "a1a3"  # the 2nd go's answer; a1a2 belonged to the 1st
    finally:
        await engine.close()


async def test_a_perft_total_that_is_not_the_sum_is_a_fault(
    fake: FakeCommand, no_leaked_processes: set[int]
) -> None:
    engine = await UciEngine.start(fake("bad-perft"))
    no_leaked_processes.add(engine.pid)
    with pytest.raises(EngineProtocolError, match="not the sum"):
        await engine.perft(None, [], 1, timeout=5)
    assert engine.closed


@pytest.fixture
async def engine(fake: FakeCommand, no_leaked_processes: set[int]) -> UciEngine:
    """A UciEngine on the fake engine in its normal mode, its pid given to the leak check."""
    engine = await UciEngine.start(fake("normal"))
    no_leaked_processes.add(engine.pid)
    return engine


async def test_an_engine_without_perft_times_out_and_is_killed(engine: UciEngine) -> None:
    # (the fake engine answers `go perft` with a bestmove)
    with pytest.raises(EngineTimeoutError):
        await engine.perft(None, [], 1, timeout=1.0)
    assert engine.closed


async def test_a_phase_outlives_the_deadline_of_an_earlier_shorter_one(engine: UciEngine) -> None:
    # The guard's one watchdog timer, armed for a short phase that has ended, fires while
    # a longer one runs: that one goes on, and times out at its own deadline.
    guard = engine.guard
    async with guard.phase("isready", 0.05):
        armed = guard._watch
    assert armed is not None
    async with guard.phase("isready", 10.0):
        while guard._watch is armed:  # until the short deadline's timer has fired
            await asyncio.sleep(0.01)
    assert not engine.closed
    with pytest.raises(EngineTimeoutError, match=r"within 10s \(isready\)"):
        async with guard.phase("isready", 10.0) as phase:
            phase.shorten(0.05)  # as a stop or the engine's exit does
            await asyncio.Event().wait()
    assert engine.closed


async def test_a_kill_from_another_task_leaves_a_running_phase_its_deadline(
    engine: UciEngine,
) -> None:
    # The watchdog is a phase's only timer. The engine dies during a phase (its exit
    # shortens the phase's deadline to a grace), then another task kills it (the pool
    # closing it): the phase must still end at that grace, not wait for its own deadline
    # or, not reading the pipes, for ever.
    guard = engine.guard
    entered = asyncio.Event()

    async def phase() -> None:
        async with guard.phase("isready", 60.0):
            entered.set()
            await asyncio.Event().wait()

    task = asyncio.create_task(phase())
    await entered.wait()
    os.kill(engine.pid, signal.SIGKILL)
    assert await engine.process.wait(5)
    await guard.kill()
    with pytest.raises(EngineTerminatedError, match=r"during isready"):
        await asyncio.wait_for(task, 10)
