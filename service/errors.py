"""Non-OK answers (CONTRACT.md §6, AIP-193) and their bodies on every transport.

An ``ApiError`` carries a canonical gRPC code name, a stable ErrorInfo ``reason``, an
English message and, for invalid arguments, every field problem. Transports render it:
``rest_body`` (REST and CLI JSON, with ``http_status``) or ``grpc_status`` (a
``google.rpc.Status`` with packed ErrorInfo and BadRequest for rich gRPC status).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Iterable

from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2

DOMAIN = "samba.v1"

#: Canonical code name -> HTTP status (CONTRACT.md §6; FAILED_PRECONDITION is 400 there).
HTTP_STATUS = {
    "INVALID_ARGUMENT": 400,
    "FAILED_PRECONDITION": 400,
    "OUT_OF_RANGE": 400,
    "UNAUTHENTICATED": 401,
    "PERMISSION_DENIED": 403,
    "NOT_FOUND": 404,
    "ABORTED": 409,
    "ALREADY_EXISTS": 409,
    "RESOURCE_EXHAUSTED": 413,
    "CANCELLED": 499,
    "UNKNOWN": 500,
    "INTERNAL": 500,
    "DATA_LOSS": 500,
    "UNIMPLEMENTED": 501,
    "UNAVAILABLE": 503,
    "DEADLINE_EXCEEDED": 504,
}
#: Canonical code name -> numeric gRPC code (google.rpc.Code).
GRPC_CODE = {name: code_pb2.Code.Value(name) for name in HTTP_STATUS}


@dataclass(frozen=True)
class FieldViolation:
    """One problem of a request: path in JSON names, BadRequest reason, description."""

    field: str
    reason: str
    description: str


@dataclass
class ApiError(Exception):
    """A non-OK answer. ``code`` is a canonical gRPC code name (``INVALID_ARGUMENT``)."""

    code: str
    reason: str
    message: str
    field_violations: list = field(default_factory=list)  # FieldViolation or engine Problem

    def __post_init__(self) -> None:
        if self.code not in GRPC_CODE:
            raise ValueError(f"unknown status code {self.code!r}")
        Exception.__init__(self, f"{self.code} {self.reason}: {self.message}")

    def __str__(self) -> str:  # dataclass would otherwise repr every field
        return f"{self.code} {self.reason}: {self.message}"

    @property
    def http_status(self) -> int:
        return HTTP_STATUS[self.code]

    @property
    def grpc_code(self) -> int:
        return GRPC_CODE[self.code]

    @property
    def is_invalid_argument(self) -> bool:
        return self.code == "INVALID_ARGUMENT"


def invalid_argument(problems: Iterable, reason: str = "INVALID_REQUEST",
                     message: str | None = None) -> ApiError:
    """An INVALID_ARGUMENT error listing ``problems`` (engine Problems or FieldViolations)."""
    problems = list(problems)
    if message is None:
        message = summary(problems)
    return ApiError("INVALID_ARGUMENT", reason, message, problems)


def summary(problems: list) -> str:
    if not problems:
        return "invalid request"
    first = problems[0]
    text = f"{first.field}: {first.description}" if first.field else first.description
    if len(problems) > 1:
        text += f" (and {len(problems) - 1} more problem{'s' if len(problems) > 2 else ''})"
    return text


def internal_error() -> ApiError:
    return ApiError("INTERNAL", "INTERNAL", "internal error; the incident was logged")


def new_request_id() -> str:
    """128 random bits as 32 hex digits (the format of ``uuid4().hex``, at a third of the
    cost)."""
    return os.urandom(16).hex()


# -- rendering ----------------------------------------------------------------------------

def error_info(err: ApiError, request_id: str) -> error_details_pb2.ErrorInfo:
    info = error_details_pb2.ErrorInfo(reason=err.reason, domain=DOMAIN)
    info.metadata["requestId"] = request_id
    return info


def bad_request(err: ApiError) -> error_details_pb2.BadRequest | None:
    if not err.is_invalid_argument:
        return None
    br = error_details_pb2.BadRequest()
    for p in err.field_violations:
        br.field_violations.add(field=p.field, description=p.description, reason=p.reason)
    return br


def grpc_status(err: ApiError, request_id: str) -> status_pb2.Status:
    """``google.rpc.Status`` for gRPC rich status (grpc_status.rpc_status.to_status)."""
    st = status_pb2.Status(code=err.grpc_code, message=err.message)
    for detail in (error_info(err, request_id), bad_request(err)):
        if detail is not None:
            packed = any_pb2.Any()
            packed.Pack(detail, deterministic=True)
            st.details.append(packed)
    return st


def _detail_dict(msg) -> dict:
    from .jsonio import to_dict
    body = {"@type": "type.googleapis.com/" + msg.DESCRIPTOR.full_name}
    body.update(to_dict(msg))
    return body


def rest_body(err: ApiError, request_id: str) -> dict:
    """The REST/CLI error body of CONTRACT.md §6 (``{"error": {...}}``)."""
    details = [_detail_dict(error_info(err, request_id))]
    br = bad_request(err)
    if br is not None:
        details.append(_detail_dict(br))
    return {"error": {"code": err.http_status, "status": err.code, "message": err.message,
                      "details": details}}
