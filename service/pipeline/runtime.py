"""What the servers and the CLI share around ``service.pipeline.api``: one call = decode, answer,
error boundary; for the servers also metrics, a log line and a deadline.

``Runtime.answer(method, decode, deadline)`` decodes a request (``service.pipeline.decoding``), runs
``Adjudicator.call`` and returns the response message or raises ``ApiError``, never
anything else (``service.pipeline.boundary``): it is the one error boundary of every transport and
of the CLI. ``Runtime.invoke(method, decode, transport=..., request_id=..., deadline=...)``
is ``answer`` counted in ``service.ops.metrics`` and logged (one JSON line per call).

``State`` is the process's lifecycle (starting -> serving -> draining) read by ``/readyz``
and the gRPC health service.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

from google.protobuf.message import Message

from samba_adjudicator.engine.build import CURRENT as BUILD
from samba_adjudicator.engine.deadline import Interrupted, checkpoint, within
from samba_adjudicator.engine.ruleset import ENGINE_RULES_REVISION, PROFILES
from samba_adjudicator.service.base.errors import ApiError, Problems, new_request_id
from samba_adjudicator.service.ops import metrics as _metrics
from samba_adjudicator.service.pipeline.api import METHODS, Adjudicator
from samba_adjudicator.service.pipeline.boundary import as_api_error
from samba_adjudicator.service.pipeline.decoding import Decoded, ProtobufDecoder, decode_json
from samba_adjudicator.service.pipeline.loading import SNAPSHOT_CACHE_SIZE, SnapshotSource

log = logging.getLogger("samba.server")

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
#: Methods whose cost grows with the request (up to 2,000 replayed actions, opening
#: combinations): both transports run them on a worker thread so that their event loop keeps
#: answering health checks, ``/metrics`` and cheap calls meanwhile. Every other method is
#: answered inline on the loop: a thread hand-off costs more than the call itself.
OFFLOAD = frozenset({"ReplayDeal", "ListLegalActions", "SuggestAction"})
#: Requests larger than this run on a worker thread whatever their method: reading a
#: snapshot of a hundred thousand cards takes a third of a second.
OFFLOAD_BYTES = 32 * 1024


def request_id_from(value: str | None) -> str:
    """The caller's ``x-request-id`` when it is printable ASCII of at most 128 characters,
    otherwise a fresh one."""
    if value and _REQUEST_ID.match(value):
        return value
    return new_request_id()


def deadline_exceeded(method: str) -> ApiError:
    return ApiError(
        "DEADLINE_EXCEEDED",
        "DEADLINE_EXCEEDED",
        f"the deadline of the {method} call passed before it was answered",
    )


def shutting_down() -> ApiError:
    return ApiError(
        "UNAVAILABLE",
        "SHUTTING_DOWN",
        "the server is shutting down; retry the call (another replica answers)",
    )


class State:
    """Lifecycle of the process: NOT_SERVING while starting and draining."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.ready = False
        self.draining = False
        self._listeners: list = []

    def on_change(self, fn) -> None:
        self._listeners.append(fn)

    def _notify(self) -> None:
        for fn in list(self._listeners):
            try:
                fn(self.serving)
            except Exception:  # noqa: BLE001 - a listener must not break the lifecycle
                log.exception("state listener failed")

    @property
    def serving(self) -> bool:
        return self.ready and not self.draining

    def set_ready(self) -> None:
        with self._lock:
            self.ready = True
        self._notify()

    def drain(self) -> None:
        with self._lock:
            self.draining = True
        self._notify()


def _profile_of(request: Message, source: SnapshotSource | None = None) -> str:
    if source is not None and source.loaded is not None:  # the message has no snapshot
        return _metrics.base_profile(source.loaded.ruleset_ref.profile, _KNOWN_PROFILES)
    ref = None
    if request.DESCRIPTOR.fields_by_name.get("snapshot") is not None and request.HasField(
        "snapshot"
    ):
        ref = request.snapshot.ruleset if request.snapshot.HasField("ruleset") else None
    elif request.DESCRIPTOR.fields_by_name.get("ruleset") is not None:
        ref = request.ruleset if request.HasField("ruleset") else None
        if ref is None:
            return "classic"  # Deal / CheckMeld: omitted means classic
    elif request.DESCRIPTOR.fields_by_name.get("profile") is not None:
        return _metrics.base_profile(request.profile, _KNOWN_PROFILES)
    if ref is None:
        return "none"
    return _metrics.base_profile(ref.profile or "classic", _KNOWN_PROFILES)


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
    """One per process: the adjudicator, the lifecycle, the test/bench knobs.

    ``answer`` is the error boundary every transport and the CLI go through; ``invoke``
    (the servers) adds the accounting: metrics and one log line per call."""

    def __init__(
        self,
        settings,
        adjudicator: Adjudicator | None = None,
        state: State | None = None,
        *,
        count_calls: bool = True,
    ) -> None:
        if adjudicator is None:
            from samba_adjudicator.service.base import page_tokens
            from samba_adjudicator.service.base.signing import Signer

            signer = Signer.from_env()
            adjudicator = Adjudicator(
                signer=signer,
                cache_size=getattr(settings, "snapshot_cache_size", SNAPSHOT_CACHE_SIZE),
                page_token_key=page_tokens.key_from(
                    getattr(settings, "page_token_key", ""), signer
                ),
            )
        self.settings = settings
        self.adjudicator = adjudicator
        self.state = state or State()
        self.delay = float(getattr(settings, "test_delay_seconds", 0.0) or 0.0)
        self._decoders: dict[str, ProtobufDecoder] = {}
        # labelled children by label values: ``labels()`` checks and locks on every call
        self._children: dict[tuple, Any] = {}
        self.metrics = _metrics.get() if count_calls else None
        if self.metrics is not None:
            self.metrics.build_info.labels(
                version=VERSION, ruleset_revision=RULES_REVISION, build=BUILD.name
            ).set(1)

    def offloaded(self, method: str, size: int = 0) -> bool:
        """Whether a call of ``method`` with a request of ``size`` bytes runs on a worker
        thread (OFFLOAD, OFFLOAD_BYTES; every call under the test delay, which must not
        block the loop)."""
        return method in OFFLOAD or size > OFFLOAD_BYTES or self.delay > 0

    # -- decoding, for the transports ------------------------------------------------------
    def protobuf_decoder(self, method: str) -> ProtobufDecoder:
        """gRPC: request bytes -> Decoded (``service.pipeline.decoding``)."""
        decoder = self._decoders.get(method)
        if decoder is None:
            decoder = self._decoders[method] = ProtobufDecoder(
                METHODS[method][0], self.adjudicator.snapshots
            )
        return decoder

    def json_decoder(self, method: str, body: bytes) -> Callable[[], Decoded]:
        """REST and CLI: proto3 JSON -> Decoded, when called (inside ``answer``)."""
        request_type = METHODS[method][0]
        return lambda: decode_json(body, request_type, self.adjudicator.snapshots)

    # -- answering -------------------------------------------------------------------------
    def answer(
        self,
        method: str,
        decode: Callable[[], Decoded],
        deadline: float | None = None,
        call: CallRecord | None = None,
    ) -> Message:
        """The error boundary: decode the request, adjudicate it and return the response,
        or raise ApiError (``service.pipeline.boundary``), never anything else. ``deadline``
        (``time.monotonic()`` value): passed before or after the engine ran, the answer is
        DEADLINE_EXCEEDED. ``call``: filled in for the accounting."""
        try:
            # the engine stops long loops at the deadline (engine.deadline)
            with within(deadline):
                request, problems, source = decode()
                if call is not None:
                    call.profile = _profile_of(request, source)
                _check_deadline(method, deadline)
                if self.delay > 0:
                    self._sleep()
                response = self.adjudicator.call(method, request, problems, source)
            _check_deadline(method, deadline)
            return response
        except Interrupted:  # by the deadline, or by the end of a drain (engine.deadline)
            raise (shutting_down() if self.state.draining else deadline_exceeded(method)) from None
        except Exception as e:  # noqa: BLE001 - the boundary: every failure gets an answer
            raise as_api_error(e, method) from None

    def call(self, method: str, request: Message, problems: Problems | None = None) -> Message:
        """``answer`` for a request message already built in process (a library user)."""
        return self.answer(method, lambda: (request, list(problems or ()), None))

    def invoke(
        self,
        method: str,
        decode: Callable[[], Decoded],
        *,
        transport: str,
        request_id: str,
        deadline: float | None = None,
    ) -> Message:
        """``answer`` one call of a server, counted in ``service.ops.metrics`` and logged (one
        JSON line: ``DEBUG`` for answers, ``WARNING``/``ERROR`` for errors). ``decode``
        runs inside the accounting, so parse failures are counted and timed as well."""
        m = self.metrics
        assert m is not None, "a Runtime made with count_calls=False answers, never invokes"
        start = time.perf_counter()
        in_flight = self._child(m.in_flight, transport)
        in_flight.inc()
        call = CallRecord()
        try:
            response = self.answer(method, decode, deadline, call)
            call.outcome, call.codes = _outcome(method, response)
            return response
        except ApiError as e:
            call.error = e
            call.outcome = "invalid_argument" if e.is_invalid_argument else "error"
            raise
        finally:
            elapsed = time.perf_counter() - start
            in_flight.dec()
            self._count(m, method, transport, call, elapsed)
            self._log(method, transport, call.outcome, elapsed, request_id, call.error)
            # the error's traceback holds this frame, which holds ``call``: without this the
            # cycle keeps the request (a megabyte, parsed) alive until a full collection
            call.error = None

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

    def reject(self, method: str, transport: str, request_id: str, err: ApiError) -> None:
        """Count and log a call refused by the transport before ``invoke`` (413)."""
        m = self.metrics
        assert m is not None, "only servers reject calls"
        outcome = "invalid_argument" if err.is_invalid_argument else "error"
        m.errors.labels(method=method, transport=transport, code=err.code).inc()
        m.requests.labels(method=method, transport=transport, outcome=outcome, profile="none").inc()
        self._log(method, transport, outcome, 0.0, request_id, err)

    def _sleep(self) -> None:
        """SAMBA_TEST_DELAY_SECONDS: a deterministic slow call (drain tests only)."""
        end = time.monotonic() + self.delay
        while (left := end - time.monotonic()) > 0:
            checkpoint()  # the call's deadline or the drain stops it like engine work
            time.sleep(min(left, 0.02))

    @staticmethod
    def _log(
        method: str,
        transport: str,
        outcome: str,
        elapsed: float,
        request_id: str,
        err: ApiError | None,
    ) -> None:
        if err is None:
            level = logging.DEBUG
        elif err.code in ("INTERNAL", "UNKNOWN", "DATA_LOSS"):
            level = logging.ERROR
        else:
            level = logging.WARNING
        if not log.isEnabledFor(level):
            return
        line = {
            "method": method,
            "transport": transport,
            "outcome": outcome,
            "durationMs": round(elapsed * 1000, 3),
            "requestId": request_id,
        }
        if err is not None:
            line.update(code=err.code, reason=err.reason, message=err.message)
        log.log(level, "request", extra={"fields": line})


@dataclass(slots=True)
class CallRecord:
    """What the accounting of one call reports: labels, violation codes, the error."""

    profile: str = "none"
    outcome: str = "error"
    codes: list[str] = field(default_factory=list)
    error: ApiError | None = None


def _check_deadline(method: str, deadline: float | None) -> None:
    if deadline is not None and time.monotonic() >= deadline:
        raise deadline_exceeded(method)
