"""One call at the edge: ``Call``, made once by its transport and carried to the end, and
``Record``, what became of it, the one record the metrics, the log line and the span read.

A transport (gRPC, REST) makes its ``Call`` with ``received`` as soon as it has the request:
the RPC, the transport, the body (protobuf or JSON bytes, or a message built in process),
the request id, the deadline, the answer's language, the caller's trace context, and whether
the call is heavy (``service.pipeline.heavy.weigh``). Weighing a JSON body may read it (a
body of up to ``OFFLOAD_BYTES`` that names ``includeLegalActions``); what it read is kept in
the ``Call`` (``parsed``) and the request's decoding starts from it: a body is parsed once.
A call answered on a worker thread gets a ``stop`` (``stoppable``), set by the transport
when the caller goes away. The CLI and in-process callers make a ``Call`` of their own
(``Call(method, body)``: not weighed, no deadline, the default language).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from google.protobuf.message import Message

from samba_adjudicator.engine.deadline import Stop

from ..base.errors import ApiError
from ..i18n.negotiation import DEFAULT
from .heavy import weigh

if TYPE_CHECKING:
    from ..ops.tracing import Carried


class Call(NamedTuple):
    """One call as its transport received it: immutable (a tuple, which the Python source
    builds several times faster than a frozen dataclass: the in-process path builds one
    per call)."""

    method: str
    #: protobuf bytes, proto3 JSON (``json``) or a message built in process
    body: bytes | str | Message
    #: ``grpc``, ``rest``, or ``local`` (the CLI, in process)
    transport: str = "local"
    request_id: str = ""
    json: bool = False
    #: ``time.monotonic()`` value; None: none
    deadline: float | None = None
    lang: str = DEFAULT
    #: it lists legal actions or plays a computer move (``service.pipeline.heavy``)
    heavy: bool = False
    #: set when the caller goes away (a call answered on a worker thread: ``stoppable``)
    stop: Stop | None = None
    #: the caller's ``traceparent`` and ``tracestate`` (``service.ops.tracing``)
    trace: Carried | None = None
    #: the JSON body as ``weigh`` read it (None: not read); decoding starts from it
    parsed: Any = None
    #: ``time.perf_counter()`` on arrival (0: when the accounting starts)
    arrived: float = 0.0


def size(call: Call) -> int:
    """The call's request bytes (0: a message built in process)."""
    body = call.body
    return len(body) if isinstance(body, (bytes, str)) else 0


def stoppable(call: Call) -> Call:
    """``call`` with a ``Stop`` of its own, for its transport to set."""
    return call._replace(stop=Stop())


def received(
    method: str,
    body: bytes | Message,
    transport: str,
    request_id: str,
    deadline: float | None = None,
    lang: str = DEFAULT,
    trace: Carried | None = None,
) -> Call:
    """The call a server's transport received: REST's bytes are JSON, gRPC's protobuf;
    weighed (``heavy``) as it arrives."""
    json = transport == "rest" and isinstance(body, bytes)
    heavy, parsed = weigh(method, body, json)
    return Call(
        method,
        body,
        transport,
        request_id,
        json,
        deadline,
        lang,
        heavy,
        None,
        trace,
        parsed,
        time.perf_counter(),
    )


@dataclass(slots=True)
class Record:
    """What became of a call: filled in as it is answered, then counted
    (``service.ops.metrics``), logged (``service.ops.logs``) and traced
    (``service.ops.tracing``) from this one record."""

    call: Call
    outcome: str = "error"
    profile: str = "none"
    cache: str = ""  # "hit" / "miss": the call carried a snapshot
    codes: list[str] = field(default_factory=list)
    error: ApiError | None = None
    #: seconds from the call's arrival to its answer
    elapsed: float = 0.0

    def failed(self, err: ApiError) -> None:
        """The call was answered ``err``."""
        self.error = err
        self.outcome = "invalid_argument" if err.is_invalid_argument else "error"
