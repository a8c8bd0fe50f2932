"""Facts the service reads from the protobuf descriptors (all cached per descriptor).

``google.api.field_behavior`` annotations (REQUIRED, OUTPUT_ONLY), real ``oneof`` choices
(a proto3 ``optional`` field's synthetic oneof is not one), map fields, JSON names; and
``join``, how a JSON field path grows; an RPC's REST route (``google.api.http``).
"""

from __future__ import annotations

from functools import cache

from google.api import annotations_pb2, field_behavior_pb2
from google.protobuf import descriptor as _d

F = _d.FieldDescriptor


def join(path: str, name: str) -> str:
    """``path`` extended by field ``name`` (JSON names: ``snapshot.seats``)."""
    return f"{path}.{name}" if path else name


@cache
def fields_by_json_key(desc: _d.Descriptor) -> dict[str, _d.FieldDescriptor]:
    out: dict[str, _d.FieldDescriptor] = {}
    for f in desc.fields:
        out[f.name] = f
        out[f.json_name] = f
    return out


@cache
def is_required(f: _d.FieldDescriptor) -> bool:
    behaviors = f.GetOptions().Extensions[field_behavior_pb2.field_behavior]
    return field_behavior_pb2.REQUIRED in behaviors


@cache
def is_output_only(f: _d.FieldDescriptor) -> bool:
    behaviors = f.GetOptions().Extensions[field_behavior_pb2.field_behavior]
    return field_behavior_pb2.OUTPUT_ONLY in behaviors


@cache
def is_map(f: _d.FieldDescriptor) -> bool:
    return f.type == F.TYPE_MESSAGE and f.message_type.GetOptions().map_entry


@cache
def is_synthetic_oneof(o: _d.OneofDescriptor) -> bool:
    """A proto3 ``optional`` field's oneof (``_name``), not a real choice."""
    return len(o.fields) == 1 and o.name == "_" + o.fields[0].name and o.fields[0].has_presence


@cache
def real_oneofs(desc: _d.Descriptor) -> tuple[_d.OneofDescriptor, ...]:
    return tuple(o for o in desc.oneofs if not is_synthetic_oneof(o))


def http_route(method: _d.MethodDescriptor) -> tuple[str, str]:
    """(verb, path) of an RPC's ``google.api.http`` option (AIP-127): ``("post",
    "/v1/deals:deal")``. The proto is the one place a REST route is written."""
    rule = method.GetOptions().Extensions[annotations_pb2.http]
    verb = rule.WhichOneof("pattern")
    if verb is None:
        raise LookupError(f"{method.full_name} has no google.api.http option")
    return verb, getattr(rule, verb)
