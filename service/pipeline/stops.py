"""Why a call stopped before its answer, as the error its caller (if any) gets.

The engine stops a call's work at its checkpoints (engine.deadline) for four reasons, told
apart here in this order: the process is draining (UNAVAILABLE SHUTTING_DOWN), the caller's
own deadline passed (DEADLINE_EXCEEDED), the caller went away (its transport set the call's
``Stop``: CANCELLED CLIENT_GONE), or else the server's ceiling on one call's work
(``--max-call-seconds``: RESOURCE_EXHAUSTED CALL_TOO_EXPENSIVE, HTTP 413 as for a request
over the size limit, not 503 or 429, which clients and proxies retry: the same request would
only spend the same work again). docs/service.md#bounded-work.
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


def too_expensive(method: str, seconds: float) -> ApiError:
    return api_error(
        "RESOURCE_EXHAUSTED",
        "CALL_TOO_EXPENSIVE",
        "the {method} call needs more than the {seconds} s of work the server gives one "
        "call; a smaller request is answered, the same one again is not",
        method=method,
        seconds=f"{seconds:g}",
    )


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
    ceiling: float | None,
) -> ApiError:
    """The error of a call the engine stopped (module docstring): ``deadline``, the
    caller's; ``ceiling``, the server's seconds per call (None: none)."""
    if draining:
        return shutting_down()
    if deadline is not None and time.monotonic() >= deadline:
        return deadline_exceeded(method)  # a gRPC caller's deadline also cancels its call
    if stop is not None and stop.stopped:
        return cancelled(method)
    if ceiling is None:
        return deadline_exceeded(method)
    return too_expensive(method, ceiling)


def earlier(a: float | None, b: float) -> float:
    """The earlier of two ``time.monotonic()`` values, ``a`` possibly None (never)."""
    return b if a is None or b < a else a


def check_deadline(method: str, deadline: float | None) -> None:
    if deadline is not None and time.monotonic() >= deadline:
        raise deadline_exceeded(method)
