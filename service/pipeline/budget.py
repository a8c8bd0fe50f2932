"""The decoding budget: bytes of large requests being decoded and answered at once
(``Runtime.invoke`` admits every request against it), and of heavy calls waiting for a
slot (``service.pipeline.slots``: ``take``, refused at once when there is no room).
docs/service.md#memory-budget."""

from __future__ import annotations

import threading

from ..base.errors import ApiError, api_error

#: Bytes of large requests (over ADMIT_FROM) being decoded and answered at once. Decoding
#: a megabyte of JSON into messages and problems takes about ten times that in memory: 40
#: concurrent megabyte requests of bad card codes took a worker to 579 MB.
DECODE_BUDGET_BYTES = 4 * 1024 * 1024
#: Requests up to this size are not counted against the budget.
ADMIT_FROM = 64 * 1024
#: Seconds a large request waits for room in the budget before RESOURCE_EXHAUSTED.
ADMIT_WAIT_SECONDS = 2.0
#: The retry hint of a call refused for the budget: room comes back as calls are
#: answered (a heavy call in the hundreds of milliseconds, a refused large one sooner).
RETRY_SECONDS = 1.0


def over_budget(size: int) -> ApiError:
    err = api_error(
        "RESOURCE_EXHAUSTED",
        "MEMORY_BUDGET",
        "the server is decoding as many large requests as its memory budget allows; this "
        "one ({size} bytes) waited {seconds} s for room: retry shortly",
        size=size,
        seconds=f"{ADMIT_WAIT_SECONDS:g}",
    )
    err.http = 429
    err.retry_after = RETRY_SECONDS
    return err


def line_full(size: int | None) -> ApiError:
    """A heavy call refused at once: the calls already waiting for a slot hold the budget
    (``size``: its request's bytes; None: refused before it was read)."""
    if size is None:
        err = api_error(
            "RESOURCE_EXHAUSTED",
            "MEMORY_BUDGET",
            "the server holds as many requests waiting for a heavy-call slot as its memory "
            "budget allows; this one was refused before it was read: retry in {seconds} s",
            seconds=f"{RETRY_SECONDS:g}",
        )
    else:
        err = api_error(
            "RESOURCE_EXHAUSTED",
            "MEMORY_BUDGET",
            "the server holds as many requests waiting for a heavy-call slot as its memory "
            "budget allows; this one ({size} bytes) was refused at once: retry in {seconds} s",
            size=size,
            seconds=f"{RETRY_SECONDS:g}",
        )
    err.http = 429
    err.retry_after = RETRY_SECONDS
    return err


class ByteBudget:
    """Bytes of large requests in work at once: a request waits for room, then is refused
    (thread-safe; large requests run on worker threads, never on an event loop)."""

    def __init__(self, budget: int = DECODE_BUDGET_BYTES) -> None:
        self.budget = budget
        self.used = 0
        self._room = threading.Condition()

    def admit(self, size: int, wait: float = ADMIT_WAIT_SECONDS) -> int:
        """The bytes counted for this request (release them after), or raise MEMORY_BUDGET.
        A request larger than the whole budget is admitted alone."""
        if size <= ADMIT_FROM:
            return 0
        counted = min(size, self.budget)
        with self._room:
            if not self._room.wait_for(lambda: self.used + counted <= self.budget, wait):
                raise over_budget(size)
            self.used += counted
        return counted

    def take(self, counted: int) -> bool:
        """Count ``counted`` bytes now if they fit, without waiting (a caller on an event
        loop, which must not block): whether they were counted."""
        with self._room:
            if self.used + counted > self.budget:
                return False
            self.used += counted
        return True

    def release(self, counted: int) -> None:
        if counted:
            with self._room:
                self.used -= counted
                self._room.notify_all()
