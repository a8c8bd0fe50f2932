"""One error type for every transport: the service's AIP-193 status, decoded.

An illegal action is *not* an error (the answer says ``legal: false``); an
``AdjudicatorError`` is a refused request: bad input (with every field violation),
unknown profile, deadline, signature, or a transport failure.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

import grpc
from google.protobuf import any_pb2, json_format
from google.rpc import error_details_pb2, status_pb2

_STATUS_BY_NAME = {code.name: code for code in grpc.StatusCode}
_STATUS_BY_NUMBER = {code.value[0]: code for code in grpc.StatusCode}
_STATUS_BY_HTTP = {
    400: grpc.StatusCode.INVALID_ARGUMENT,
    401: grpc.StatusCode.UNAUTHENTICATED,
    403: grpc.StatusCode.PERMISSION_DENIED,
    404: grpc.StatusCode.NOT_FOUND,
    409: grpc.StatusCode.ABORTED,
    413: grpc.StatusCode.RESOURCE_EXHAUSTED,
    429: grpc.StatusCode.RESOURCE_EXHAUSTED,
    499: grpc.StatusCode.CANCELLED,
    501: grpc.StatusCode.UNIMPLEMENTED,
    502: grpc.StatusCode.UNAVAILABLE,
    503: grpc.StatusCode.UNAVAILABLE,
    504: grpc.StatusCode.DEADLINE_EXCEEDED,
}
_DETAILS_KEY = "grpc-status-details-bin"
#: The trailer of the server's retry hint, in milliseconds (gRFC A6).
_PUSHBACK_KEY = "grpc-retry-pushback-ms"


@dataclasses.dataclass(frozen=True)
class FieldViolation:
    """One problem of an invalid request: its path in JSON names (``cards[1]``), a stable
    reason (``UNKNOWN_CARD_CODE``) and a description in the call's language (the client's
    or the call's ``locale``; English by default)."""

    field: str
    reason: str
    description: str


class AdjudicatorError(Exception):
    """A non-OK answer, the same on gRPC and REST.

    ``code`` (a ``grpc.StatusCode``) and ``status`` (its name, ``"INVALID_ARGUMENT"``),
    ``reason``/``domain``/``metadata`` of the ErrorInfo, ``request_id``, ``violations``
    (every BadRequest field violation), over REST ``http_status``, and ``retry_after``: the
    server's retry hint in seconds (``grpc-retry-pushback-ms``, ``Retry-After``), None
    without one.
    """

    def __init__(
        self,
        code: grpc.StatusCode,
        message: str,
        *,
        reason: str = "",
        domain: str = "",
        request_id: str = "",
        metadata: Mapping[str, str] | None = None,
        violations: Iterable[FieldViolation] = (),
        http_status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(f"{code.name}{' ' + reason if reason else ''}: {message}")
        self.code = code
        self.status = code.name
        self.message = message
        self.reason = reason
        self.domain = domain
        self.metadata = dict(metadata or {})
        self.request_id = self.metadata.get("requestId") or request_id
        self.violations = list(violations)
        self.http_status = http_status
        self.retry_after = retry_after


def _from_details(
    code: grpc.StatusCode,
    message: str,
    details: Iterable[any_pb2.Any],
    request_id: str,
    http_status: int | None = None,
    retry_after: float | None = None,
) -> AdjudicatorError:
    info = None
    violations: list[FieldViolation] = []
    for detail in details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
        elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            violations += [
                FieldViolation(v.field, v.reason, v.description) for v in bad.field_violations
            ]
    reason = info.reason if info else ""
    if not info and code is grpc.StatusCode.DEADLINE_EXCEEDED:
        reason = "DEADLINE_EXCEEDED"  # the client's own deadline: what the server would say
    return AdjudicatorError(
        code,
        message,
        reason=reason,
        domain=info.domain if info else "",
        metadata=info.metadata if info else None,
        request_id=request_id,
        violations=violations,
        http_status=http_status,
        retry_after=retry_after,
    )


def _hint(value: Any, unit: float) -> float | None:
    """A retry hint's seconds (``value`` in ``unit`` seconds); None when absent or not a
    number of seconds (an HTTP date, which this service never sends)."""
    try:
        seconds = float(value) * unit
    except (TypeError, ValueError):
        return None
    return seconds if 0 <= seconds < float("inf") else None


def from_grpc(err: grpc.RpcError, request_id: str) -> AdjudicatorError:
    """The rich status of a failed call (sync or asyncio), from ``grpc-status-details-bin``."""
    status = status_pb2.Status()
    hint = None
    for key, value in err.trailing_metadata() or ():
        if key == _DETAILS_KEY:
            status.ParseFromString(value)
        elif key == _PUSHBACK_KEY:
            hint = _hint(value, 0.001)
    return _from_details(
        err.code(), err.details() or "", status.details, request_id, retry_after=hint
    )


def from_rest(
    http_status: int, body: Any, request_id: str, retry_after: str | None = None
) -> AdjudicatorError:
    """The REST error body ``{"error": {code, status, message, details}}``; a body that is
    not the service's (a proxy's page) still gives a status from the HTTP code.
    ``retry_after``: the answer's ``Retry-After`` header."""
    hint = _hint(retry_after, 1.0)
    error = body.get("error") if isinstance(body, dict) else None
    fallback = _STATUS_BY_HTTP.get(
        http_status, grpc.StatusCode.INTERNAL if http_status >= 500 else grpc.StatusCode.UNKNOWN
    )
    if not isinstance(error, dict):
        return AdjudicatorError(
            fallback,
            f"HTTP {http_status} without an error body",
            request_id=request_id,
            http_status=http_status,
            retry_after=hint,
        )
    details = []
    for raw in error.get("details") or ():
        detail = any_pb2.Any()
        try:
            json_format.ParseDict(raw, detail, ignore_unknown_fields=True)
        except json_format.Error:
            continue  # a detail we cannot read must not hide the status and message
        details.append(detail)
    code = _STATUS_BY_NAME.get(error.get("status"), fallback)
    message = str(error.get("message", ""))
    return _from_details(code, message, details, request_id, http_status, hint)


def local(code: grpc.StatusCode, message: str, request_id: str) -> AdjudicatorError:
    """An error the client saw itself (deadline passed, server unreachable)."""
    return _from_details(code, message, (), request_id)


def status_code(number: int) -> grpc.StatusCode:
    return _STATUS_BY_NUMBER.get(number, grpc.StatusCode.UNKNOWN)
