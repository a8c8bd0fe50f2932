"""The RPCs of ``samba.v1.Adjudicator``: message classes, Python names and REST routes,
and the conversion of requests and answers shared by every transport.

A request is a protobuf message or its proto3-JSON dict (lowerCamelCase or snake_case);
the answer comes back in the same form (dicts print every field, as REST does).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from google.protobuf import json_format, message_factory
from google.protobuf.message import Message

from ._pb import adjudicator_pb2

SERVICE = adjudicator_pb2.DESCRIPTOR.services_by_name["Adjudicator"]

#: RPC -> (verb, path) on the REST gateway.
ROUTES = {
    "ListRulesets": ("GET", "/v1/rulesets"),
    "GetRuleset": ("GET", "/v1/rulesets/{profile}"),
    "Deal": ("POST", "/v1/deals:deal"),
    "CheckMeld": ("POST", "/v1/melds:check"),
    "ValidateAction": ("POST", "/v1/actions:validate"),
    "ApplyAction": ("POST", "/v1/actions:apply"),
    "ListLegalActions": ("POST", "/v1/actions:list"),
    "ScoreDeal": ("POST", "/v1/deals:score"),
    "GetPlayerView": ("POST", "/v1/deals:view"),
    "ReplayDeal": ("POST", "/v1/deals:replay"),
    "SuggestAction": ("POST", "/v1/actions:suggest"),
}


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


def answer_as(request: Message | dict[str, Any] | None, answer: Message):
    """The answer in the request's form: a dict for a dict (or no request), else a message."""
    if isinstance(request, Message):
        return answer
    return json_format.MessageToDict(answer, always_print_fields_with_no_presence=True)


def rest_target(rpc: Rpc, message: Message) -> tuple[str, str, bytes | None]:
    """(verb, path, body) of the REST call."""
    if rpc.name == "GetRuleset":
        from urllib.parse import quote

        return rpc.verb, rpc.path.format(profile=quote(message.profile, safe="")), None
    if rpc.verb == "GET":
        return rpc.verb, rpc.path, None
    return rpc.verb, rpc.path, json_format.MessageToJson(message, indent=None).encode()


def rest_answer(rpc: Rpc, body: Any) -> Message:
    # Fields a newer server adds are skipped, not fatal.
    return json_format.ParseDict(body, rpc.response_class(), ignore_unknown_fields=True)
