"""A cooperative stop for long computations.

The engine has no clock of its own to watch: a caller that must answer by some time (a
server call with a deadline) runs the computation ``within(deadline)``; loops whose length
grows with the input (legal actions of a huge hand, a long replay, a computer player's
playouts) call ``checkpoint()``, which raises ``Interrupted`` once that time has passed.
Without a deadline ``checkpoint`` does nothing. ``within(deadline, stop)`` also takes a
``Stop``: a flag another thread sets when the computation's result is no longer wanted (the
caller of a server call went away); the next checkpoint raises ``Interrupted`` too. The
deadline and the stop live in context variables: each thread and each task has its own.
``sooner(time)`` narrows the deadline for a part of a computation (a search that must end
by then), keeping the outer one when it comes first. ``spending(seconds)`` bounds a part of a
computation by the CPU time its thread spends rather than by the wall clock (a computer
player's search: a loaded machine slows it without changing where it ends). ``stop_all(time)``
sets one deadline for every computation of the process (a server that must exit).
"""

from __future__ import annotations

import time
from contextvars import ContextVar, Token

_deadline: ContextVar[float | None] = ContextVar("samba_engine_deadline", default=None)
_stop: ContextVar[Stop | None] = ContextVar("samba_engine_stop", default=None)
_spend_by: ContextVar[float | None] = ContextVar("samba_engine_spend_by", default=None)
_everyone: list[float | None] = [None]


class Interrupted(Exception):
    """The computation passed its deadline (``time.monotonic()`` value), or its ``Stop``
    was set, and was abandoned."""


class Stop:
    """Set (``set()``, from any thread) when a computation's result is no longer wanted:
    its next ``checkpoint`` raises ``Interrupted``."""

    def __init__(self) -> None:
        self.stopped = False

    def set(self, *_: object) -> None:
        """Stop (extra arguments ignored: a transport's callback passes its call)."""
        self.stopped = True


def checkpoint() -> None:
    mine = _deadline.get()
    cutoff = _everyone[0]
    stop = _stop.get()
    if stop is not None and stop.stopped:
        raise Interrupted()
    spend_by = _spend_by.get()
    if spend_by is not None and time.thread_time() >= spend_by:
        raise Interrupted()
    if mine is None and cutoff is None:
        return
    now = time.monotonic()
    if (mine is not None and now >= mine) or (cutoff is not None and now >= cutoff):
        raise Interrupted()


def current_deadline() -> float | None:
    """The deadline the running computation is held to (None: none)."""
    return _deadline.get()


class within:  # noqa: N801 - used as a function: ``with within(deadline):``
    """Run the body with ``deadline`` (``time.monotonic()`` value; None: no deadline),
    ``stop`` (None: nothing but the deadline stops it) and at most ``cpu`` seconds of its
    thread's CPU time (``time.thread_time``; None: no such bound), as ``spending`` would.

    A class rather than a ``contextmanager`` generator: every server call enters one, and
    a plain context manager costs a fraction of a generator's (compiled, a native class).
    """

    def __init__(
        self, deadline: float | None, stop: Stop | None = None, cpu: float | None = None
    ) -> None:
        self.deadline = deadline
        self.stop = stop
        self.cpu = cpu
        self.token: Token[float | None] | None = None
        self.stop_token: Token[Stop | None] | None = None
        self.spend_token: Token[float | None] | None = None

    def __enter__(self) -> None:
        self.token = _deadline.set(self.deadline)
        self.stop_token = _stop.set(self.stop)
        if self.cpu is not None:
            self.spend_token = _spend_by.set(time.thread_time() + self.cpu)

    def __exit__(self, *exc: object) -> None:
        if self.token is not None:
            _deadline.reset(self.token)
            self.token = None
        if self.stop_token is not None:
            _stop.reset(self.stop_token)
            self.stop_token = None
        if self.spend_token is not None:
            _spend_by.reset(self.spend_token)
            self.spend_token = None


class sooner:  # noqa: N801 - used as a function: ``with sooner(deadline):``
    """Run the body with the earlier of ``deadline`` and the current deadline; the stop
    stays. A caller that catches ``Interrupted`` from the body calls ``checkpoint()``
    after it to tell its own deadline (passed too: raises again) from the outer one."""

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self.token: Token[float | None] | None = None

    def __enter__(self) -> None:
        outer = _deadline.get()
        self.token = _deadline.set(self.deadline if outer is None else min(outer, self.deadline))

    def __exit__(self, *exc: object) -> None:
        if self.token is not None:
            _deadline.reset(self.token)
            self.token = None


class spending:  # noqa: N801 - used as a function: ``with spending(seconds):``
    """Run the body until its thread has spent ``seconds`` more of CPU time (``time.thread_time``),
    or the outer limit comes first; the deadline and the stop stay. Checked at the same
    checkpoints as the deadline; a caller that catches ``Interrupted`` from the body calls
    ``checkpoint()`` after it, as with ``sooner``."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.token: Token[float | None] | None = None

    def __enter__(self) -> None:
        outer = _spend_by.get()
        mine = time.thread_time() + self.seconds
        self.token = _spend_by.set(mine if outer is None else min(outer, mine))

    def __exit__(self, *exc: object) -> None:
        if self.token is not None:
            _spend_by.reset(self.token)
            self.token = None


def stop_all(cutoff: float | None) -> None:
    """Every computation of the process, now and later, stops at ``cutoff`` (None: lift)."""
    _everyone[0] = cutoff
