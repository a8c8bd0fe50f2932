"""The RPCs of ``samba.v1.Adjudicator``: message classes, Python names and REST routes,
and the conversion of requests and answers shared by every transport.

A request is a protobuf message or its proto3-JSON dict (lowerCamelCase or snake_case);
the answer comes back in the same form (dicts print every field, as REST does). Over REST a
dict request is sent as it is and its answer is the JSON as it arrives, parsed once; over
gRPC a dict is made a message first.
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

from google.api import annotations_pb2
from google.protobuf import json_format, message_factory
from google.protobuf.message import Message

from ._pb import adjudicator_pb2

#: A request: a message, its proto3-JSON dict, or None (the empty request).
Request = Message | dict[str, Any] | None

SERVICE = adjudicator_pb2.DESCRIPTOR.services_by_name["Adjudicator"]


def _route(method) -> tuple[str, str]:
    """(VERB, path) on the REST gateway: the RPC's ``google.api.http`` option in the schema."""
    rule = method.GetOptions().Extensions[annotations_pb2.http]
    verb = rule.WhichOneof("pattern")
    return verb.upper(), getattr(rule, verb)


#: RPC -> (verb, path) on the REST gateway.
ROUTES = {m.name: _route(m) for m in SERVICE.methods}


@dataclasses.dataclass(frozen=True)
class Rpc:
    name: str  # "ValidateAction"
    python_name: str  # "validate_action"
    request_class: type[Message]
    response_class: type[Message]
    verb: str
    path: str


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


RPCS = {
    m.name: Rpc(
        m.name,
        _snake(m.name),
        message_factory.GetMessageClass(m.input_type),
        message_factory.GetMessageClass(m.output_type),
        *ROUTES[m.name],
    )
    for m in SERVICE.methods
}


def request_message(rpc: Rpc, request: Message | dict[str, Any] | None) -> Message:
    if request is None:
        return rpc.request_class()
    if isinstance(request, dict):
        return json_format.ParseDict(request, rpc.request_class())
    return request


def answer_as(request: Message | dict[str, Any] | None, answer: Message | dict[str, Any]):
    """The answer in the request's form: a dict for a dict (or no request), else a message.
    A REST answer to a dict request is already the dict (parsed once, ``rest_answer``)."""
    if isinstance(request, Message) or isinstance(answer, dict):
        return answer
    return json_format.MessageToDict(answer, always_print_fields_with_no_presence=True)


@dataclasses.dataclass(frozen=True)
class RestCall:
    """A REST request ready to send: verb, path, body, and whether the answer is wanted as
    the dict it arrives as (the request was a dict) or as a message."""

    verb: str
    path: str
    body: bytes | None
    as_dict: bool


def rest_call(rpc: Rpc, request: Message | dict[str, Any] | None) -> RestCall:
    """The REST call of a request. A dict is sent as it is (the service reads proto3 JSON,
    lowerCamelCase or snake_case, and reports every problem); a message as its JSON."""
    as_dict = not isinstance(request, Message)
    if rpc.name == "GetRuleset":
        from urllib.parse import quote

        profile = (
            request.profile if isinstance(request, Message) else (request or {}).get("profile", "")
        )
        return RestCall(rpc.verb, rpc.path.format(profile=quote(profile, safe="")), None, as_dict)
    if rpc.verb == "GET":
        return RestCall(rpc.verb, rpc.path, None, as_dict)
    if isinstance(request, Message):
        body = json_format.MessageToJson(request, indent=None).encode()
    else:
        body = json.dumps(request or {}, separators=(",", ":")).encode()
    return RestCall(rpc.verb, rpc.path, body, as_dict)


def rest_answer(rpc: Rpc, body: Any, as_dict: bool = False) -> Message | dict[str, Any]:
    """The answer's JSON, parsed once: as it is for a dict request, else into the message.
    Fields a newer server adds are skipped, not fatal."""
    if as_dict and isinstance(body, dict):
        return body
    return json_format.ParseDict(body, rpc.response_class(), ignore_unknown_fields=True)
