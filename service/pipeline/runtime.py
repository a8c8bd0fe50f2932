"""What the servers and the CLI share around ``service.pipeline.api``: one call = decode, answer,
error boundary; for the servers also metrics, a log line, a span and a deadline.

``Runtime.answer(call)`` reads a call's request once (``service.pipeline.decoding``: protobuf
bytes, proto3 JSON, or a message), answers it (``Adjudicator.answer``) and returns the
response message or raises ``ApiError``, never anything else (``service.pipeline.boundary``):
it is the one error boundary of every transport and of the CLI. ``Runtime.invoke(call)``
is ``answer`` counted in ``service.ops.metrics``, logged (one JSON line per call) and, with
an OTLP endpoint, traced (``service.ops.tracing``), all three read from the call's one
``Record`` (``service.pipeline.call``: the ``Call`` a transport made once, carried to the
end).

``State`` (service.pipeline.lifecycle) is the process's lifecycle (starting -> serving ->
draining) read by ``/readyz`` and the gRPC health service.
"""

from __future__ import annotations

import logging
import os
import re
import time
from collections.abc import Iterable
from importlib import metadata
from typing import TYPE_CHECKING, Any

from google.protobuf.message import Message

from samba_adjudicator.engine.build import CURRENT as BUILD
from samba_adjudicator.engine.deadline import Interrupted, checkpoint, within
from samba_adjudicator.engine.problems import Problem
from samba_adjudicator.engine.ruleset import DEFAULT_PROFILE, ENGINE_RULES_REVISION, PROFILES

from ..base.errors import ApiError, Problems, new_request_id
from ..i18n.negotiation import DEFAULT as DEFAULT_LANGUAGE
from ..ops import metrics as _metrics
from ..ops import tracing
from ..ops.logs import log_call
from .api import Adjudicator
from .boundary import as_api_error
from .budget import ADMIT_FROM as ADMIT_FROM
from .budget import ByteBudget, line_full
from .call import Call, Record, size
from .decoding import Request, read
from .heavy import OFFLOAD_BYTES
from .lifecycle import State
from .loading import Answer
from .rpc import RPCS
from .slots import Slots, Ticket
from .stops import Ceiling, check_deadline, earlier, interrupted
from .stops import (  # the transports' name for it
    shutting_down as shutting_down,
)

if TYPE_CHECKING:
    from ..ops.config import Settings

log = logging.getLogger("samba.server")

#: Seconds every call waits, on a worker thread, before the engine runs: 0, except under
#: tests/slow_server.py, the launcher of the drain, deadline and connection-limit tests,
#: which sets it (the service reads no test knob). A module global, not Final: the
#: compiled build reads it from the module's dict, so the launcher's value is seen.
CALL_DELAY_SECONDS = 0.0
#: With CALL_DELAY_SECONDS, a call that is not heavy and not large waits where it would be
#: answered without the delay, on its transport's event loop, holding it (the launcher sets
#: this too, for the readiness test of a held loop); by default every delayed call waits
#: on a worker thread.
CALL_DELAY_ON_LOOP = False

try:
    VERSION = metadata.version("samba-adjudicator")
except metadata.PackageNotFoundError:  # running from a source tree without install
    VERSION = "0+unknown"
RULES_REVISION = ENGINE_RULES_REVISION
#: The ``x-samba-version`` header: package version and ruleset revision.
VERSION_HEADER = f"{VERSION} rules/{RULES_REVISION}"

_KNOWN_PROFILES = frozenset(PROFILES)
_REQUEST_ID = re.compile(r"^[\x21-\x7e]{1,128}$")
#: Heavy calls computing at once; the others wait their turn (``service.pipeline.slots``:
#: first come first served, holding no thread while they wait). Eight 149-card listings
#: computing together kept the admin port's probe waiting 1.7 s for the interpreter lock
#: and took 232 MB; two at a time keep the probe under a second (docs/service.md).
HEAVY_CALLS = 2


def request_id_from(value: str | None) -> str:
    """The caller's ``x-request-id`` when it is printable ASCII of at most 128 characters,
    otherwise a fresh one."""
    if value and _REQUEST_ID.match(value):
        return value
    return new_request_id()


def _profile_of(r: Request) -> str:
    request, source = r.message, r.snapshot
    if source is not None and source.loaded is not None:  # the message has no snapshot
        return _metrics.base_profile(source.loaded.ruleset_ref.profile, _KNOWN_PROFILES)
    ref = None
    if request.DESCRIPTOR.fields_by_name.get("snapshot") is not None and request.HasField(
        "snapshot"
    ):
        ref = request.snapshot.ruleset if request.snapshot.HasField("ruleset") else None
    elif request.DESCRIPTOR.fields_by_name.get("previous") is not None and request.HasField(
        "previous"
    ):  # Deal of a carried match: the previous deal's ruleset
        ref = request.previous.ruleset
    elif request.DESCRIPTOR.fields_by_name.get("ruleset") is not None:
        ref = request.ruleset if request.HasField("ruleset") else None
        if ref is None:
            return DEFAULT_PROFILE  # Deal / CheckMeld: omitted means the default
    elif request.DESCRIPTOR.fields_by_name.get("profile") is not None:
        return _metrics.base_profile(request.profile, _KNOWN_PROFILES)
    if ref is None:
        return "none"
    return _metrics.base_profile(ref.profile or DEFAULT_PROFILE, _KNOWN_PROFILES)


def _cache_outcome(r: Request) -> str:
    """``hit`` / ``miss`` for a request carrying a snapshot (loaded before or not), else
    "" (``samba_snapshot_cache_total``)."""
    if r.snapshot is None:
        return ""
    return "miss" if r.snapshot.loaded is None else "hit"


class Runtime:
    """One per process: the adjudicator and the lifecycle.

    ``answer`` is the error boundary every transport and the CLI go through; ``invoke``
    (the servers) adds the accounting: metrics and one log line per call. ``settings``:
    the server's (None: the CLI and in-process callers, with the defaults)."""

    def __init__(
        self,
        settings: Settings | None,
        adjudicator: Adjudicator | None = None,
        state: State | None = None,
        *,
        count_calls: bool = True,
    ) -> None:
        if adjudicator is None:
            adjudicator = Adjudicator() if settings is None else Adjudicator.from_settings(settings)
        self.settings = settings
        self.adjudicator = adjudicator
        self.state = state or State()
        self.decoding = ByteBudget()
        #: the heavy-call slots (``service.pipeline.slots``): their line is bounded by the
        #: decoding budget
        self.heavy = Slots(HEAVY_CALLS, self.decoding)
        #: seconds of CPU time one call's work may take, whatever its deadline (None: no
        #: ceiling; ``service.pipeline.stops.Ceiling``)
        self.ceiling: float | None = None if settings is None else settings.max_call_seconds
        # labelled children by label values: ``labels()`` checks and locks on every call
        self._children: dict[tuple, Any] = {}
        #: server spans over OTLP (service.ops.tracing); None: tracing off, the default
        self.tracer = (
            None if settings is None else tracing.start(settings.otlp_endpoint, VERSION, os.environ)
        )
        self.metrics = _metrics.get() if count_calls else None
        if self.metrics is not None:
            self.metrics.build_info.labels(
                version=VERSION, ruleset_revision=RULES_REVISION, build=BUILD.name
            ).set(1)

    def offloaded(self, call: Call) -> bool:
        """Whether ``call`` runs on a worker thread: a heavy call (``service.pipeline.heavy``),
        a request over OFFLOAD_BYTES, and every call under the test delay, which must not
        block the loop. Every other call is answered inline on its transport's event loop:
        a thread hand-off costs more than the call itself."""
        return (
            call.heavy
            or size(call) > OFFLOAD_BYTES
            or (CALL_DELAY_SECONDS > 0 and not CALL_DELAY_ON_LOOP)
        )

    # -- answering -------------------------------------------------------------------------
    def answer(
        self, call: Call, record: Record | None = None, problems: Iterable[Problem] = ()
    ) -> Answer:
        """The error boundary: read the call's request (``service.pipeline.decoding``),
        adjudicate it and return its ``Answer`` (``service.pipeline.loading``), or raise ApiError
        (``service.pipeline.boundary``), never anything else. Past the call's ``deadline``
        (before or after the engine ran) the answer is DEADLINE_EXCEEDED. The engine's work
        also stops at the server's ceiling (``ceiling`` seconds of this thread's CPU time
        from now: RESOURCE_EXHAUSTED CALL_TOO_EXPENSIVE; or WALL_FACTOR times that of wall
        time, the machine too busy: SERVER_BUSY, retryable) and when the call's ``stop`` is
        set (the caller went away: CANCELLED). ``record``: filled in for the accounting.
        ``problems``: those found building a message in process."""
        method, deadline = call.method, call.deadline
        limit, ceiling, cpu = deadline, None, None
        if self.ceiling is not None:
            ceiling = Ceiling(self.ceiling)
            limit, cpu = earlier(deadline, ceiling.wall_by), self.ceiling
        try:
            # the engine stops long loops at the limit, the CPU spent or the stop
            # (engine.deadline)
            with within(limit, call.stop, cpu):
                # the caller left, its deadline passed or the drain ended while the call
                # waited its turn (a thread, a heavy-call slot): nothing is read
                checkpoint()
                request = read(call, self.adjudicator.snapshots, problems)
                if record is not None:
                    record.profile = _profile_of(request)
                    record.cache = _cache_outcome(request)
                check_deadline(method, deadline)
                if CALL_DELAY_SECONDS > 0:
                    self._sleep()
                answer = self.adjudicator.answer(request)
            check_deadline(method, deadline)
            return answer
        except Interrupted:  # by a limit, a stop or the end of a drain (engine.deadline)
            raise self._interrupted(call, ceiling) from None
        except Exception as e:  # noqa: BLE001 - the boundary: every failure gets an answer
            raise as_api_error(e, method) from None

    def _interrupted(self, call: Call, ceiling: Ceiling | None = None) -> ApiError:
        return interrupted(call.method, call.deadline, call.stop, self.state.draining, ceiling)

    def call(
        self,
        method: str,
        request: Message,
        problems: Problems | None = None,
        lang: str = DEFAULT_LANGUAGE,
    ) -> Message:
        """``answer`` for a request message already built in process (a library user)."""
        return self.answer(Call(method, request, lang=lang), problems=problems or ()).whole()

    def invoke(self, call: Call, ticket: Ticket | None = None) -> Answer:
        """``answer`` one call of a server, counted in ``service.ops.metrics`` and logged (one
        JSON line: ``service.ops.logs.log_call``) and, tracing on, exported as a span
        parented on the caller's trace context (``service.ops.tracing``), all three from
        one ``Record``. Reading the request happens inside the accounting, so parse failures
        are counted and timed as well. A request over ADMIT_FROM bytes is admitted against
        the decoding budget first (``ByteBudget``: it waits, then is refused
        RESOURCE_EXHAUSTED MEMORY_BUDGET). A heavy call runs in one of the HEAVY_CALLS
        slots: its ``ticket``, which the transport waited for on its event loop
        (``service.transport.slot_wait``), or else one this thread waits for. A ticket that
        holds no slot (the wait ended at the call's deadline, when its caller left, or at
        the drain's end; or the line had no room in the budget for its bytes: MEMORY_BUDGET)
        is answered at once with the reason, nothing read; one that waited in line brought
        its bytes' count in the budget with it (``Ticket.counted``). The call's
        duration runs from its ``arrived`` (so it counts the wait for a slot; 0: now)."""
        m = self.metrics
        assert m is not None, "a Runtime made with count_calls=False answers, never invokes"
        start = call.arrived or time.perf_counter()
        in_flight = self._child(m.in_flight, call.transport)
        in_flight.inc()
        record = Record(call)
        counted = 0
        if call.heavy and ticket is None:
            ticket = self.heavy.wait(call.stop, call.deadline, size(call))
        try:
            if ticket is not None and not self.heavy.claim(ticket):
                raise line_full(size(call)) if ticket.refused else self._interrupted(call)
            if ticket is None or not ticket.counted:  # counted already while it waited
                counted = self.decoding.admit(size(call))
            answer = self.answer(call, record)
            record.outcome, record.codes = RPCS[call.method].outcome(answer.message)
            return answer
        except ApiError as e:
            record.failed(e)
            raise
        finally:
            if ticket is not None:
                self.heavy.leave(ticket)
            self.decoding.release(counted)
            record.elapsed = time.perf_counter() - start
            in_flight.dec()
            self._count(m, record)
            self._finish(record)
            # the error's traceback holds this frame, which holds ``record``: without this
            # the cycle keeps the request (a megabyte, parsed) alive until a full collection
            record.error = None

    def _count(self, m: _metrics.Metrics, record: Record, timed: bool = True) -> None:
        """The call's metrics (``timed``: its duration too; a call refused before it was
        answered has none)."""
        method, transport = record.call.method, record.call.transport
        if record.error is not None:
            self._child(m.errors, method, transport, record.error.code).inc()
        self._child(m.requests, method, transport, record.outcome, record.profile).inc()
        if timed:
            self._child(m.duration, method, transport).observe(record.elapsed)
        if record.cache:
            self._child(m.snapshot_cache, method, record.cache).inc()
        for code in record.codes:
            self._child(m.violations, code).inc()

    def _child(self, metric, *values):
        key = (id(metric),) + values
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = metric.labels(*values)
        return child

    def reject(self, call: Call, err: ApiError) -> None:
        """Count and log a call refused by the transport before ``invoke`` (413, a drain)."""
        m = self.metrics
        assert m is not None, "only servers reject calls"
        record = Record(call)
        record.failed(err)
        self._count(m, record, timed=False)
        self._finish(record)

    def _sleep(self) -> None:
        """``CALL_DELAY_SECONDS``: a deterministic slow call (tests/slow_server.py)."""
        end = time.monotonic() + CALL_DELAY_SECONDS
        while (left := end - time.monotonic()) > 0:
            checkpoint()  # the call's deadline or the drain stops it like engine work
            time.sleep(min(left, 0.02))

    def _finish(self, record: Record) -> None:
        """The call's span (tracing on) and its log line, which names the span."""
        ids = None if self.tracer is None else self.tracer.finish(record)
        log_call(record, ids)

    def close(self, by: float | None = None) -> dict[str, int]:
        """At the end of the drain (tracing on): export the spans still queued until ``by``
        (a ``time.monotonic()`` value; None: FLUSH_SECONDS from now) or FLUSH_SECONDS,
        whichever comes first, then count what was not sent as dropped. The spans sent and
        dropped in all, for the drain's last log line (empty: tracing off)."""
        if self.tracer is None:
            return {}
        seconds = tracing.FLUSH_SECONDS
        if by is not None:
            seconds = min(seconds, by - time.monotonic())
        sent, dropped = self.tracer.close(seconds)
        return {"spansSent": sent, "spansDropped": dropped}
