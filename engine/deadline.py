"""A cooperative stop for long computations.

The engine has no clock of its own to watch: a caller that must answer by some time (a
server call with a deadline) runs the computation ``within(deadline)``; loops whose length
grows with the input (legal actions of a huge hand, a long replay) call ``checkpoint()``,
which raises ``Interrupted`` once that time has passed. Without a deadline ``checkpoint``
does nothing. The deadline lives in a context variable: each thread and each task has its
own. ``stop_all(time)`` sets one deadline for every computation of the process (a server
that must exit).
"""

from __future__ import annotations

import time
from contextvars import ContextVar, Token

_deadline: ContextVar[float | None] = ContextVar("samba_engine_deadline", default=None)
_everyone: list[float | None] = [None]


class Interrupted(Exception):
    """The computation passed its deadline (``time.monotonic()`` value) and was abandoned."""


def checkpoint() -> None:
    mine = _deadline.get()
    cutoff = _everyone[0]
    if mine is None and cutoff is None:
        return
    now = time.monotonic()
    if (mine is not None and now >= mine) or (cutoff is not None and now >= cutoff):
        raise Interrupted()


class within:  # noqa: N801 - used as a function: ``with within(deadline):``
    """Run the body with ``deadline`` (``time.monotonic()`` value; None: no deadline).

    A class rather than a ``contextmanager`` generator: every server call enters one, and
    a plain context manager costs a fraction of a generator's (compiled, a native class).
    """

    def __init__(self, deadline: float | None) -> None:
        self.deadline = deadline
        self.token: Token[float | None] | None = None

    def __enter__(self) -> None:
        self.token = _deadline.set(self.deadline)

    def __exit__(self, *exc: object) -> None:
        if self.token is not None:
            _deadline.reset(self.token)
            self.token = None


def stop_all(cutoff: float | None) -> None:
    """Every computation of the process, now and later, stops at ``cutoff`` (None: lift)."""
    _everyone[0] = cutoff
