"""Why a call stopped before its answer, as the error its caller (if any) gets.

The engine stops a call's work at its checkpoints (engine.deadline) for five reasons, told
apart here in this order: the process is draining (UNAVAILABLE SHUTTING_DOWN), the caller's
own deadline passed (DEADLINE_EXCEEDED), the caller went away (its transport set the call's
``Stop``: CANCELLED CLIENT_GONE), the server's wall-clock cap on one call (``Ceiling``:
RESOURCE_EXHAUSTED SERVER_BUSY, HTTP 503 with a retry hint: the machine was too busy to
give the call its CPU, another attempt may be answered), or else the server's ceiling on
one call's CPU time (``--max-call-seconds``: RESOURCE_EXHAUSTED CALL_TOO_EXPENSIVE, HTTP 413
as for a request over the size limit, not 503 or 429, which clients and proxies retry: the
same request would only spend the same work again). docs/service.md#bounded-work.
"""

from __future__ import annotations

import time

from samba_adjudicator.engine.deadline import Stop

from ..base.errors import ApiError, api_error


def deadline_exceeded(method: str) -> ApiError:
    return api_error(
        "DEADLINE_EXCEEDED",
        "DEADLINE_EXCEEDED",
        "the deadline of the {method} call passed before it was answered",
        method=method,
    )


#: The wall-clock cap on one call's work, as a multiple of its CPU ceiling: a call that
#: spends its CPU at a fifth of a core still ends within its ceiling (STRONG at budgetMs
#: 2000 spends 4.5 s of CPU: 9.6 s of wall time at load 8.6 on 2 cores, over 10 s at
#: load 10, when the ceiling counted wall time); past the cap the slot goes to another.
WALL_FACTOR = 3.0
#: The retry hint of a call stopped by the wall-clock cap.
BUSY_RETRY_SECONDS = 2.0


class Ceiling:
    """The server's hold on one call's work, from the moment it begins on its thread: at
    most ``seconds`` of the thread's CPU time (``engine.deadline.spending``: the machine's
    load does not change where a call ends), and WALL_FACTOR times that of wall time
    (``wall_by``, a ``time.monotonic()`` value)."""

    __slots__ = ("cpu_from", "seconds", "wall_by")

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.cpu_from = time.thread_time()
        self.wall_by = time.monotonic() + WALL_FACTOR * seconds


def too_expensive(method: str, seconds: float) -> ApiError:
    return api_error(
        "RESOURCE_EXHAUSTED",
        "CALL_TOO_EXPENSIVE",
        "the {method} call needs more than the {seconds} s of CPU time the server gives one "
        "call; a smaller request is answered, the same one again is not",
        method=method,
        seconds=f"{seconds:g}",
    )


def server_busy(method: str, ceiling: Ceiling) -> ApiError:
    """The wall-clock cap ran out before the CPU ceiling: retryable, with a hint."""
    err = api_error(
        "RESOURCE_EXHAUSTED",
        "SERVER_BUSY",
        "the {method} call had {cpu} s of CPU time in {wall} s, within its {seconds} s of CPU "
        "time but not of wall time: the server is busy; retry in {retry} s",
        method=method,
        cpu=f"{time.thread_time() - ceiling.cpu_from:.1f}",
        wall=f"{WALL_FACTOR * ceiling.seconds:g}",
        seconds=f"{ceiling.seconds:g}",
        retry=f"{BUSY_RETRY_SECONDS:g}",
    )
    err.http = 503
    err.retry_after = BUSY_RETRY_SECONDS
    return err


def cancelled(method: str) -> ApiError:
    return api_error(
        "CANCELLED",
        "CLIENT_GONE",
        "the caller of the {method} call went away before it was answered; its work was stopped",
        method=method,
    )


def shutting_down() -> ApiError:
    return ApiError(
        "UNAVAILABLE",
        "SHUTTING_DOWN",
        "the server is shutting down; retry the call (another replica answers)",
    )


def interrupted(
    method: str,
    deadline: float | None,
    stop: Stop | None,
    draining: bool,
    ceiling: Ceiling | None,
) -> ApiError:
    """The error of a call the engine stopped (module docstring): ``deadline``, the
    caller's; ``ceiling``, the server's hold on the call's work (None: none, or its work
    never began)."""
    if draining:
        return shutting_down()
    if deadline is not None and time.monotonic() >= deadline:
        return deadline_exceeded(method)  # a gRPC caller's deadline also cancels its call
    if stop is not None and stop.stopped:
        return cancelled(method)
    if ceiling is None:
        return deadline_exceeded(method)
    # the CPU first: a call that spent its ceiling needs more, however busy the machine
    spent = time.thread_time() - ceiling.cpu_from
    if spent < ceiling.seconds and time.monotonic() >= ceiling.wall_by:
        return server_busy(method, ceiling)
    return too_expensive(method, ceiling.seconds)


def earlier(a: float | None, b: float) -> float:
    """The earlier of two ``time.monotonic()`` values, ``a`` possibly None (never)."""
    return b if a is None or b < a else a


def check_deadline(method: str, deadline: float | None) -> None:
    if deadline is not None and time.monotonic() >= deadline:
        raise deadline_exceeded(method)
