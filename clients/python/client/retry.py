"""Retrying calls that did not reach a serving replica (docs/api.md#retries-and-idempotency).

Every RPC of ``samba.v1.Adjudicator`` is idempotent: an answer depends on the request
alone, so a call sent twice answers the same, and a retry is always safe. What is retried
by default is UNAVAILABLE: over gRPC the status itself (a draining replica, a refused or
reset connection), over REST a 503 (draining), a 502 (a proxy that found no replica) or a
connection error; and CANCELLED, which a draining gRPC server answers (through a proxy) for
a call it had received but not started; this client never cancels a call itself with that
status. RESOURCE_EXHAUSTED is retried when its reason says the server is busy for now
(``SERVER_BUSY``: a wall-time cap under load; ``MEMORY_BUDGET``: the line for heavy calls
is full), never when it says the request itself is too large or too costly; those answers
carry the server's retry hint (``grpc-retry-pushback-ms``, ``Retry-After``), and the
retry waits at least that long. Everything else (an invalid request, a deadline) answers
the same on every attempt.

Backoff is capped exponential with full jitter, as gRPC's own retry policy: before attempt
``n + 1`` the client sleeps a random time in ``[0, min(max_backoff, initial_backoff *
multiplier ** (n - 1))]``. The call's timeout covers every attempt: each gets what is left,
and no retry starts that would begin after the deadline.

By default (``max_attempts=None``) a call is retried until its deadline, not a number of
times: a service restarting (seconds) is ridden out by a call with the default timeout
(``DEFAULT_TIMEOUT``, 10 s). A call without a deadline (``timeout=None``) then makes at most
``UNTIMED_ATTEMPTS`` attempts.
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Callable, Mapping
from typing import Any

from .errors import AdjudicatorError


@dataclasses.dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently a failed call is sent again.

    ``max_attempts`` counts the first one (1: never retry; None: until the call's deadline);
    ``retryable`` holds status names, ``retryable_reasons`` ErrorInfo reasons retried
    whatever their status (the server's "busy for now").
    """

    max_attempts: int | None = None
    initial_backoff: float = 0.1
    max_backoff: float = 1.0
    multiplier: float = 2.0
    retryable: frozenset[str] = frozenset({"UNAVAILABLE", "CANCELLED"})
    retryable_reasons: frozenset[str] = frozenset({"SERVER_BUSY", "MEMORY_BUDGET"})

    def __post_init__(self) -> None:
        if self.max_attempts is not None and self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        if self.initial_backoff < 0 or self.max_backoff < 0 or self.multiplier < 1:
            raise ValueError("backoffs must be >= 0 and the multiplier >= 1")

    def backoff_cap(self, retry: int) -> float:
        """The longest sleep before retry number ``retry`` (1 for the first retry)."""
        return min(self.max_backoff, self.initial_backoff * self.multiplier ** (retry - 1))

    @classmethod
    def from_service_config(cls, config: Mapping[str, Any]) -> RetryPolicy | None:
        """The ``retryPolicy`` of the first ``methodConfig`` of a gRPC service config (the
        JSON of gRPC's A6 design, durations as ``"0.1s"``); None when it has none."""
        for method_config in config.get("methodConfig") or ():
            policy = method_config.get("retryPolicy")
            if policy:
                return cls(
                    max_attempts=int(policy["maxAttempts"]) if "maxAttempts" in policy else None,
                    initial_backoff=_seconds(policy.get("initialBackoff"), cls.initial_backoff),
                    max_backoff=_seconds(policy.get("maxBackoff"), cls.max_backoff),
                    multiplier=float(policy.get("backoffMultiplier", cls.multiplier)),
                    retryable=frozenset(
                        str(code).upper() for code in policy.get("retryableStatusCodes") or ()
                    )
                    or cls.retryable,
                )
        return None


def _seconds(duration: str | None, default: float) -> float:
    if duration is None:
        return default
    text = str(duration)
    if not text.endswith("s"):
        raise ValueError(f"a service config duration ends with 's': {text!r}")
    return float(text[:-1])


#: What clients use unless told otherwise: retried until the call's deadline.
DEFAULT_RETRY = RetryPolicy()
#: Attempts of a call without a deadline under a policy whose ``max_attempts`` is None.
UNTIMED_ATTEMPTS = 10
#: One attempt, never retried (``Client.rest(url, retry=NO_RETRY)``; ``retry=None`` too).
NO_RETRY = RetryPolicy(max_attempts=1)


class Attempts:
    """The attempts of one call under a policy and an overall timeout."""

    def __init__(
        self,
        policy: RetryPolicy | None,
        timeout: float | None,
        *,
        clock: Callable[[], float] = time.monotonic,
        rng: Callable[[], float] = random.random,
    ) -> None:
        self.policy = policy or NO_RETRY
        self.clock = clock
        self.rng = rng
        self.deadline = None if timeout is None else clock() + timeout
        self.made = 0

    def timeout(self) -> float | None:
        """The time the next attempt may take (what is left of the call's timeout)."""
        if self.deadline is None:
            return None
        return max(self.deadline - self.clock(), 0.0)

    def retry_after(self, error: AdjudicatorError) -> float | None:
        """Seconds to sleep before the next attempt, or None: give up and raise ``error``."""
        self.made += 1
        policy = self.policy
        limit = policy.max_attempts
        if limit is None and self.deadline is None:
            limit = UNTIMED_ATTEMPTS
        retryable = error.status in policy.retryable or error.reason in policy.retryable_reasons
        if not retryable or (limit is not None and self.made >= limit):
            return None
        # the server's hint is when it expects room again: a retry before it is refused too
        delay = max(self.rng() * policy.backoff_cap(self.made), error.retry_after or 0.0)
        if self.deadline is not None and self.clock() + delay >= self.deadline:
            return None
        return delay
