"""A small Python client for ``samba.v1.Adjudicator`` over gRPC.

    from clients.grpc_client import AdjudicatorClient, AdjudicatorError
    with AdjudicatorClient("localhost:50051") as client:
        deal = client.call("Deal", {"players": 4, "seed": "…"})          # dict in, dict out
        answer = client.call("ValidateAction", {"snapshot": deal["snapshot"], "action": …})

Requests may be protobuf messages or proto3-JSON dicts (lowerCamelCase, as REST takes);
answers come back in the same form. A non-OK status raises ``AdjudicatorError`` carrying
the ErrorInfo reason, the request id and every BadRequest field violation, decoded from the
rich status details (docs/api.md#errors). An illegal action is not an error: it is an answer
with ``legal: false``.
"""

from __future__ import annotations

import dataclasses
import uuid
from typing import Any

import grpc
from google.protobuf import json_format
from google.protobuf.message import Message
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from samba_adjudicator.schema.v1 import adjudicator_pb2, adjudicator_pb2_grpc


@dataclasses.dataclass
class FieldViolation:
    field: str
    reason: str
    description: str


class AdjudicatorError(Exception):
    """A non-OK answer: gRPC code, ErrorInfo reason, request id and field violations."""

    def __init__(self, code: grpc.StatusCode, message: str, reason: str = "",
                 request_id: str = "", violations: list[FieldViolation] | None = None):
        super().__init__(f"{code.name} {reason}: {message}")
        self.code = code
        self.reason = reason
        self.request_id = request_id
        self.violations = violations or []


_SERVICE = adjudicator_pb2.DESCRIPTOR.services_by_name["Adjudicator"]


class AdjudicatorClient:
    """One channel to the service; ``call(method, request)`` for every RPC."""

    def __init__(self, target: str, *, timeout: float = 10.0,
                 channel: grpc.Channel | None = None):
        self.channel = channel or grpc.insecure_channel(target)
        self.stub = adjudicator_pb2_grpc.AdjudicatorStub(self.channel)
        self.timeout = timeout

    def __enter__(self) -> "AdjudicatorClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.channel.close()

    def call(self, method: str, request: Message | dict[str, Any],
             request_id: str | None = None) -> Message | dict[str, Any]:
        rpc = _SERVICE.methods_by_name[method]
        as_dict = isinstance(request, dict)
        if as_dict:
            request = json_format.ParseDict(request, _message_class(rpc.input_type)())
        metadata = (("x-request-id", request_id or uuid.uuid4().hex),)
        try:
            answer = getattr(self.stub, method)(request, timeout=self.timeout,
                                                metadata=metadata)
        except grpc.RpcError as err:
            raise _decode(err) from None
        if as_dict:
            return json_format.MessageToDict(answer, always_print_fields_with_no_presence=True)
        return answer


def _message_class(descriptor) -> type[Message]:
    from google.protobuf import message_factory
    return message_factory.GetMessageClass(descriptor)


def _decode(err: grpc.RpcError) -> AdjudicatorError:
    status = rpc_status.from_call(err)
    reason = request_id = ""
    violations: list[FieldViolation] = []
    if status is not None:
        for detail in status.details:
            if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                detail.Unpack(info)
                reason, request_id = info.reason, info.metadata.get("requestId", "")
            elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
                bad = error_details_pb2.BadRequest()
                detail.Unpack(bad)
                violations = [FieldViolation(v.field, v.reason, v.description)
                              for v in bad.field_violations]
    return AdjudicatorError(err.code(), err.details() or "", reason, request_id, violations)
