"""An error's bodies on the wire (docs/api.md#errors, AIP-193): ``grpc_status`` (a
``google.rpc.Status`` with packed ErrorInfo and BadRequest, gRPC's rich status) and
``rest_body`` (REST and CLI JSON; its HTTP status is ``ApiError.http_status``). The error
itself is a value of the ground floor (``service.base.errors``); each transport renders it
here, after ``service.i18n.localize`` has said it in the caller's language.
"""

from __future__ import annotations

from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2

from ..base.errors import DOMAIN, ApiError
from .json_render import to_dict


def error_info(err: ApiError, request_id: str) -> error_details_pb2.ErrorInfo:
    info = error_details_pb2.ErrorInfo(reason=err.reason, domain=DOMAIN)
    info.metadata["requestId"] = request_id
    if err.omitted:
        info.metadata["omittedProblems"] = str(err.omitted)
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
    body = {"@type": "type.googleapis.com/" + msg.DESCRIPTOR.full_name}
    body.update(to_dict(msg))
    return body


def rest_body(err: ApiError, request_id: str) -> dict:
    """The REST/CLI error body of docs/api.md#errors (``{"error": {...}}``)."""
    details = [_detail_dict(error_info(err, request_id))]
    br = bad_request(err)
    if br is not None:
        details.append(_detail_dict(br))
    return {
        "error": {
            "code": err.http_status,
            "status": err.code,
            "message": err.message,
            "details": details,
        }
    }
