"""What the servers and the CLI share around ``service.pipeline.api``: one call = decode, answer,
error boundary; for the servers also metrics, a log line, a span and a deadline.

``Runtime.answer(method, data, deadline)`` reads a request once (``service.pipeline.decoding``:
protobuf bytes, proto3 JSON with ``json=True``, or a message), answers it
(``Adjudicator.answer``) and returns the response message or raises ``ApiError``, never
anything else (``service.pipeline.boundary``): it is the one error boundary of every
transport and of the CLI. ``Runtime.invoke(method, data, transport=..., request_id=...)``
is ``answer`` counted in ``service.ops.metrics``, logged (one JSON line per call) and, with
an OTLP endpoint, traced (``service.ops.tracing``).

``State`` (service.pipeline.lifecycle) is the process's lifecycle (starting -> serving ->
draining) read by ``/readyz`` and the gRPC health service.
"""

from __future__ import annotations

import logging
import os
import re
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import metadata
from typing import TYPE_CHECKING, Any

from google.protobuf.message import Message

from samba_adjudicator.engine.build import CURRENT as BUILD
from samba_adjudicator.engine.deadline import Interrupted, Stop, checkpoint, within
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
from .budget import ByteBudget
from .decoding import Request, read
from .heavy import OFFLOAD, OFFLOAD_BYTES
from .lifecycle import State
from .stops import check_deadline, earlier, interrupted
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
_JUDGING = {"ValidateAction", "ApplyAction", "ReplayDeal", "CheckMeld"}
#: Heavy calls (``service.pipeline.heavy``: whatever lists legal actions, the methods of
#: OFFLOAD and any call asking ``include_legal_actions``): both transports run them on a
#: worker thread, at most HEAVY_CALLS at once, so that their event loop keeps answering
#: health checks, ``/metrics`` and cheap calls meanwhile. Every other call is answered
#: inline on the loop: a thread hand-off costs more than the call itself. Requests larger
#: than heavy.OFFLOAD_BYTES run on a worker thread whatever their method.

#: OFFLOAD calls computing at once; the others wait their turn. Eight 149-card listings
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


def _outcome(method: str, response: Message) -> tuple[str, list[str]]:
    """(outcome label, violation codes) of a successful answer."""
    if method in ("ValidateAction", "ApplyAction"):
        codes = [v.code for v in response.violations]
        return ("legal" if response.legal else "illegal"), codes
    if method == "CheckMeld":
        return ("legal" if response.valid else "illegal"), [v.code for v in response.violations]
    if method == "ReplayDeal":
        codes = [v.code for r in response.results for v in r.violations]
        illegal = response.HasField("first_illegal_index")
        return ("illegal" if illegal else "legal"), codes
    return "ok", []


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
        self.heavy = threading.BoundedSemaphore(HEAVY_CALLS)
        #: seconds of work one call may take, whatever its deadline (None: no ceiling)
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

    def offloaded(self, method: str, size: int = 0, heavy: bool | None = None) -> bool:
        """Whether a call of ``method`` with a request of ``size`` bytes runs on a worker
        thread: a heavy call (``heavy``, by default its method in OFFLOAD), a request over
        OFFLOAD_BYTES, and every call under the test delay, which must not block the loop."""
        if heavy is None:
            heavy = method in OFFLOAD
        return heavy or size > OFFLOAD_BYTES or (CALL_DELAY_SECONDS > 0 and not CALL_DELAY_ON_LOOP)

    # -- answering -------------------------------------------------------------------------
    def answer(
        self,
        method: str,
        data: bytes | str | Message,
        deadline: float | None = None,
        call: CallRecord | None = None,
        stop: Stop | None = None,
        lang: str = DEFAULT_LANGUAGE,
        json: bool = False,
        problems: Iterable[Problem] = (),
    ) -> Message:
        """The error boundary: read the request (``data``: protobuf bytes, or proto3 JSON
        with ``json``, or a message built in process), adjudicate it and return the
        response, or raise ApiError (``service.pipeline.boundary``), never anything else.
        ``deadline`` (``time.monotonic()`` value): passed before or after the engine ran,
        the answer is DEADLINE_EXCEEDED. The engine's work also stops at the server's
        ceiling (``ceiling`` seconds from now: RESOURCE_EXHAUSTED CALL_TOO_EXPENSIVE) and
        when ``stop`` is set (the caller went away: CANCELLED). ``call``: filled in for the
        accounting. ``lang``: the language of the answer's texts (docs/i18n.md). ``problems``:
        those found building a message in process."""
        limit = deadline
        if self.ceiling is not None:
            limit = earlier(deadline, time.monotonic() + self.ceiling)
        try:
            # the engine stops long loops at the limit or the stop (engine.deadline)
            with within(limit, stop):
                if stop is not None and stop.stopped:
                    raise Interrupted()  # the caller left while the call waited its turn
                request = read(
                    method,
                    data,
                    self.adjudicator.snapshots,
                    json=json,
                    problems=problems,
                    lang=lang,
                )
                if call is not None:
                    call.profile = _profile_of(request)
                check_deadline(method, deadline)
                if CALL_DELAY_SECONDS > 0:
                    self._sleep()
                response = self.adjudicator.answer(request)
            check_deadline(method, deadline)
            return response
        except Interrupted:  # by a limit, a stop or the end of a drain (engine.deadline)
            raise interrupted(method, deadline, stop, self.state.draining, self.ceiling) from None
        except Exception as e:  # noqa: BLE001 - the boundary: every failure gets an answer
            raise as_api_error(e, method) from None

    def call(
        self,
        method: str,
        request: Message,
        problems: Problems | None = None,
        lang: str = DEFAULT_LANGUAGE,
    ) -> Message:
        """``answer`` for a request message already built in process (a library user)."""
        return self.answer(method, request, lang=lang, problems=problems or ())

    def invoke(
        self,
        method: str,
        data: bytes | str | Message,
        *,
        transport: str,
        request_id: str,
        deadline: float | None = None,
        json: bool = False,
        heavy: bool | None = None,
        stop: Stop | None = None,
        trace: tracing.Carried | None = None,
        lang: str = DEFAULT_LANGUAGE,
    ) -> Message:
        """``answer`` one call of a server, counted in ``service.ops.metrics`` and logged (one
        JSON line: ``service.ops.logs.log_call``) and, tracing on, exported as a span
        parented on the caller's ``trace`` context (``service.ops.tracing``). Reading the
        request happens inside the accounting, so parse failures are counted and timed as
        well. A request over ADMIT_FROM bytes is admitted against the decoding budget
        first (``ByteBudget``: it waits, then is refused RESOURCE_EXHAUSTED MEMORY_BUDGET).
        A ``heavy`` call (``service.pipeline.heavy``; by default its method in OFFLOAD)
        waits for one of the HEAVY_CALLS slots first. ``stop``: set by the transport when the
        caller goes away (``answer``); a call still waiting for a slot then gives up its place."""
        m = self.metrics
        assert m is not None, "a Runtime made with count_calls=False answers, never invokes"
        start = time.perf_counter()
        in_flight = self._child(m.in_flight, transport)
        in_flight.inc()
        call = CallRecord()
        counted = 0
        if heavy is None:
            heavy = method in OFFLOAD
        heavy = heavy and self._heavy_slot(stop)
        try:
            counted = self.decoding.admit(len(data) if isinstance(data, (bytes, str)) else 0)
            response = self.answer(method, data, deadline, call, stop, lang, json)
            call.outcome, call.codes = _outcome(method, response)
            return response
        except ApiError as e:
            call.error = e
            call.outcome = "invalid_argument" if e.is_invalid_argument else "error"
            raise
        finally:
            if heavy:
                self.heavy.release()
            self.decoding.release(counted)
            elapsed = time.perf_counter() - start
            in_flight.dec()
            self._count(m, method, transport, call, elapsed)
            self._finish(method, transport, call.outcome, elapsed, request_id, call.error, trace)
            # the error's traceback holds this frame, which holds ``call``: without this the
            # cycle keeps the request (a megabyte, parsed) alive until a full collection
            call.error = None

    def _heavy_slot(self, stop: Stop | None) -> bool:
        """Wait for a HEAVY_CALLS slot: True when taken, False when the caller went away
        meanwhile (``answer`` then stops at once, CANCELLED)."""
        if stop is None:
            self.heavy.acquire()
            return True
        while not self.heavy.acquire(timeout=0.05):
            if stop.stopped:
                return False
        return True

    def _count(
        self, m: _metrics.Metrics, method: str, transport: str, call: CallRecord, elapsed: float
    ) -> None:
        if call.error is not None:
            self._child(m.errors, method, transport, call.error.code).inc()
        self._child(m.requests, method, transport, call.outcome, call.profile).inc()
        self._child(m.duration, method, transport).observe(elapsed)
        for code in call.codes:
            self._child(m.violations, code).inc()

    def _child(self, metric, *values):
        key = (id(metric),) + values
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = metric.labels(*values)
        return child

    def reject(
        self,
        method: str,
        transport: str,
        request_id: str,
        err: ApiError,
        trace: tracing.Carried | None = None,
    ) -> None:
        """Count and log a call refused by the transport before ``invoke`` (413)."""
        m = self.metrics
        assert m is not None, "only servers reject calls"
        outcome = "invalid_argument" if err.is_invalid_argument else "error"
        m.errors.labels(method=method, transport=transport, code=err.code).inc()
        m.requests.labels(method=method, transport=transport, outcome=outcome, profile="none").inc()
        self._finish(method, transport, outcome, 0.0, request_id, err, trace)

    def _sleep(self) -> None:
        """``CALL_DELAY_SECONDS``: a deterministic slow call (tests/slow_server.py)."""
        end = time.monotonic() + CALL_DELAY_SECONDS
        while (left := end - time.monotonic()) > 0:
            checkpoint()  # the call's deadline or the drain stops it like engine work
            time.sleep(min(left, 0.02))

    def _finish(
        self,
        method: str,
        transport: str,
        outcome: str,
        elapsed: float,
        request_id: str,
        err: ApiError | None,
        trace: tracing.Carried | None,
    ) -> None:
        """The call's span (tracing on) and its log line, which names the span."""
        ids = None
        if self.tracer is not None:
            ids = self.tracer.finish(method, transport, outcome, elapsed, request_id, err, trace)
        log_call(method, transport, outcome, elapsed, request_id, err, trace, ids)

    def close(self) -> None:
        """Export the spans still queued (tracing on), at the end of the drain."""
        if self.tracer is not None:
            self.tracer.flush()


@dataclass(slots=True)
class CallRecord:
    """What the accounting of one call reports: labels, violation codes, the error."""

    profile: str = "none"
    outcome: str = "error"
    codes: list[str] = field(default_factory=list)
    error: ApiError | None = None
