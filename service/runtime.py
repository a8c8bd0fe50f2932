"""What both servers share around ``service.api``: one call = metrics, log line, deadline.

``Runtime.invoke(method, request, transport=..., request_id=..., deadline=...)`` runs one
Adjudicator call through ``Adjudicator.call`` and returns the response message or raises
``ApiError`` (never anything else). It counts the call in ``service.metrics``, writes one
JSON log line (``DEBUG`` for answers, ``WARNING``/``ERROR`` for errors) and honours a
deadline (``time.monotonic()`` value): a call whose deadline has passed before or after the
engine ran answers DEADLINE_EXCEEDED.

``State`` is the process's lifecycle (starting -> serving -> draining) read by ``/readyz``
and the gRPC health service.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from importlib import metadata

from google.protobuf.message import Message

from samba_adjudicator.engine.deadline import Interrupted, checkpoint, within
from samba_adjudicator.engine.model import InvalidInput
from samba_adjudicator.engine.ruleset import ENGINE_RULES_REVISION, PROFILES

from . import metrics as _metrics
from .api import METHODS, SNAPSHOT_CACHE_SIZE, Adjudicator, api_error
from .errors import ApiError, internal_error, new_request_id
from .sources import SnapshotSource

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
OFFLOAD = frozenset({"ReplayDeal", "ListLegalActions"})
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
    return ApiError("DEADLINE_EXCEEDED", "DEADLINE_EXCEEDED",
                    f"the deadline of the {method} call passed before it was answered")


def shutting_down() -> ApiError:
    return ApiError("UNAVAILABLE", "SHUTTING_DOWN",
                    "the server is shutting down; retry the call (another replica answers)")


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
    if request.DESCRIPTOR.fields_by_name.get("snapshot") is not None \
            and request.HasField("snapshot"):
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
    """One per process: the adjudicator, the lifecycle, the test/bench knobs."""

    def __init__(self, settings, adjudicator: Adjudicator | None = None,
                 state: State | None = None) -> None:
        if adjudicator is None:
            from . import page_tokens
            from .signing import Signer
            signer = Signer.from_env()
            adjudicator = Adjudicator(
                signer=signer,
                cache_size=getattr(settings, "snapshot_cache_size", SNAPSHOT_CACHE_SIZE),
                page_token_key=page_tokens.key_from(
                    getattr(settings, "page_token_key", ""), signer))
        self.settings = settings
        self.adjudicator = adjudicator
        self.state = state or State()
        self.metrics = _metrics.get()
        # labelled children by label values: ``labels()`` checks and locks on every call
        self._children: dict[tuple, object] = {}
        self.metrics.build_info.labels(version=VERSION, ruleset_revision=RULES_REVISION).set(1)
        self.delay = float(getattr(settings, "test_delay_seconds", 0.0) or 0.0)

    def offloaded(self, method: str, size: int = 0) -> bool:
        """Whether a call of ``method`` with a request of ``size`` bytes runs on a worker
        thread (OFFLOAD, OFFLOAD_BYTES; every call under the test delay, which must not
        block the loop)."""
        return method in OFFLOAD or size > OFFLOAD_BYTES or self.delay > 0

    # The request types, for transports that parse themselves.
    @staticmethod
    def request_type(method: str) -> type[Message]:
        return METHODS[method][0]

    def decode_json(self, method: str, body: bytes
                    ) -> tuple[Message, list, SnapshotSource | None]:
        """REST: proto3 JSON -> (message, structural problems, snapshot source); ApiError for
        non-JSON."""
        from . import jsonio
        try:
            return jsonio.decode_with_source(body, METHODS[method][0],
                                             self.adjudicator.loaded_snapshot)
        except InvalidInput as e:
            raise api_error(e) from None

    def _child(self, metric, *values):
        key = (id(metric),) + values
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = metric.labels(*values)
        return child

    def invoke(self, method: str, request: Message | None, *, transport: str,
               request_id: str, deadline: float | None = None, problems=(),
               decode=None) -> Message:
        """Answer one call. ``decode``: a callable producing (request, problems, snapshot
        source or None), run inside the accounting (so parse failures are counted and timed
        as well)."""
        m = self.metrics
        start = time.perf_counter()
        in_flight = self._child(m.in_flight, transport)
        in_flight.inc()
        outcome, profile, codes, err = "error", "none", [], None
        source = None
        try:
            try:
                # the engine stops long loops at the deadline (engine.deadline)
                with within(deadline):
                    if decode is not None:
                        request, problems, source = decode()
                    profile = _profile_of(request, source)
                    if deadline is not None and time.monotonic() >= deadline:
                        raise deadline_exceeded(method)
                    if self.delay > 0:
                        self._sleep(method, deadline)
                    response = self.adjudicator.call(method, request, problems, source)
                if deadline is not None and time.monotonic() >= deadline:
                    raise deadline_exceeded(method)
                outcome, codes = _outcome(method, response)
                return response
            except ApiError as e:
                err = e
                raise
            except Interrupted:
                err = shutting_down() if self.state.draining else deadline_exceeded(method)
                raise err from None
            except InvalidInput as e:  # defensive: api converts these already
                err = api_error(e)
                raise err from None
            except Exception:  # noqa: BLE001 - never an unknown status
                log.exception("unexpected error in %s", method)
                err = internal_error()
                raise err from None
        finally:
            elapsed = time.perf_counter() - start
            in_flight.dec()
            if err is not None:
                outcome = "invalid_argument" if err.is_invalid_argument else "error"
                self._child(m.errors, method, transport, err.code).inc()
            self._child(m.requests, method, transport, outcome, profile).inc()
            self._child(m.duration, method, transport).observe(elapsed)
            for code in codes:
                self._child(m.violations, code).inc()
            self._log(method, transport, outcome, elapsed, request_id, err)

    def reject(self, method: str, transport: str, request_id: str, err: ApiError) -> None:
        """Count and log a call refused by the transport before ``invoke`` (413)."""
        m = self.metrics
        outcome = "invalid_argument" if err.is_invalid_argument else "error"
        m.errors.labels(method=method, transport=transport, code=err.code).inc()
        m.requests.labels(method=method, transport=transport, outcome=outcome,
                          profile="none").inc()
        self._log(method, transport, outcome, 0.0, request_id, err)

    def _sleep(self, method: str, deadline: float | None) -> None:
        """SAMBA_TEST_DELAY_SECONDS: a deterministic slow call (drain tests only)."""
        end = time.monotonic() + self.delay
        while (left := end - time.monotonic()) > 0:
            checkpoint()  # the call's deadline or the drain stops it like engine work
            time.sleep(min(left, 0.02))

    @staticmethod
    def _log(method: str, transport: str, outcome: str, elapsed: float, request_id: str,
             err: ApiError | None) -> None:
        if err is None:
            level = logging.DEBUG
        elif err.code in ("INTERNAL", "UNKNOWN", "DATA_LOSS"):
            level = logging.ERROR
        elif err.code == "DEADLINE_EXCEEDED":
            level = logging.WARNING
        else:
            level = logging.WARNING
        if not log.isEnabledFor(level):
            return
        line = {"method": method, "transport": transport,
                "outcome": outcome, "durationMs": round(elapsed * 1000, 3),
                "requestId": request_id}
        if err is not None:
            line.update(code=err.code, reason=err.reason, message=err.message)
        log.log(level, "request", extra={"fields": line})
