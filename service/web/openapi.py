"""The OpenAPI document of the REST gateway, derived from the protobuf descriptors.

No hand-kept schema (docs/api.md): every request and response schema is generated
from ``samba.v1`` message descriptors, so the document cannot drift from the proto:

- a message is an object component (``#/components/schemas/Snapshot``; nested types keep
  their parent: ``Meld.Kind``; types of other packages use their full name,
  ``google.rpc.ErrorInfo``) whose properties are the fields' lowerCamelCase JSON names;
- enums are string enums of the value names; repeated fields are arrays; maps are objects
  with ``additionalProperties``; 64-bit integers are strings (proto3 JSON);
- ``google.api.field_behavior``: REQUIRED fields are listed in ``required`` (requests),
  OUTPUT_ONLY fields are ``readOnly``; proto3 ``optional`` fields say they may be absent;
  a real ``oneof`` is described on the message (``x-oneof``: exactly one member is given);
- every operation's ``operationId`` is the RPC name, and its error answers refer to the
  ``Error`` schema (the docs/api.md#errors body);
- every description is the element's comment in the ``.proto`` files (``proto_docs``): a
  message's, a field's, an RPC's; an enum lists each value with its comment;
- every route carries a request example the service accepts, its answer, and the error a
  broken version of it gets (``examples``: made by the service, never by hand).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from google.protobuf import descriptor as _d
from google.rpc import error_details_pb2

from ..base import descriptors, pb
from . import proto_docs

_F = _d.FieldDescriptor
PACKAGE = pb.PACKAGE

_SCALARS: dict[int, dict[str, Any]] = {
    _F.TYPE_INT32: {"type": "integer", "format": "int32"},
    _F.TYPE_SINT32: {"type": "integer", "format": "int32"},
    _F.TYPE_SFIXED32: {"type": "integer", "format": "int32"},
    _F.TYPE_UINT32: {"type": "integer", "format": "int64", "minimum": 0},
    _F.TYPE_FIXED32: {"type": "integer", "format": "int64", "minimum": 0},
    _F.TYPE_INT64: {"type": "string", "format": "int64"},
    _F.TYPE_SINT64: {"type": "string", "format": "int64"},
    _F.TYPE_SFIXED64: {"type": "string", "format": "int64"},
    _F.TYPE_UINT64: {"type": "string", "format": "uint64"},
    _F.TYPE_FIXED64: {"type": "string", "format": "uint64"},
    _F.TYPE_BOOL: {"type": "boolean"},
    _F.TYPE_STRING: {"type": "string"},
    _F.TYPE_BYTES: {"type": "string", "format": "byte"},
    _F.TYPE_DOUBLE: {"type": "number", "format": "double"},
    _F.TYPE_FLOAT: {"type": "number", "format": "float"},
}


def component_name(desc) -> str:
    """``samba.v1.Meld.Kind`` -> ``Meld.Kind``; other packages keep their full name."""
    full = desc.full_name
    prefix = PACKAGE + "."
    return full[len(prefix) :] if full.startswith(prefix) else full


def ref(desc) -> dict:
    return {"$ref": f"#/components/schemas/{component_name(desc)}"}


class SchemaBuilder:
    """Collects the component schemas reachable from the messages it is asked for."""

    def __init__(self) -> None:
        self.schemas: dict[str, dict] = {}

    def message(self, desc: _d.Descriptor) -> dict:
        name = component_name(desc)
        if name in self.schemas:
            return ref(desc)
        self.schemas[name] = {}  # placeholder: recursion
        props: dict[str, dict] = {}
        required: list[str] = []
        for f in desc.fields:
            schema = self.field(f)
            notes = []
            if descriptors.is_output_only(f):
                schema = (
                    {**schema, "readOnly": True}
                    if "$ref" not in schema
                    else {"allOf": [schema], "readOnly": True}
                )
                notes.append(
                    "Output only: computed by the service; may be omitted in "
                    "requests (if given it must agree)."
                )
            if descriptors.is_required(f):
                required.append(f.json_name)
                schema = _non_empty(f, schema)
            if (
                f.has_presence
                and f.type != _F.TYPE_MESSAGE
                and f.containing_oneof is not None
                and f.containing_oneof.name == "_" + f.name
            ):
                notes.append("Optional: absent when unset.")
            field_text = " ".join([proto_docs.comment(f.full_name)] + notes).strip()
            if field_text:
                schema = {**schema, "description": field_text}
            props[f.json_name] = schema
        # unknown fields are refused (UNKNOWN_FIELD); the snake_case spelling of a field,
        # which requests may use too, is left out of the document
        out: dict = {
            "type": "object",
            "title": desc.full_name,
            "properties": props,
            "additionalProperties": False,
        }
        if required:
            out["required"] = required
        text = [proto_docs.comment(desc.full_name)]
        oneofs = [o for o in descriptors.real_oneofs(desc)]
        if oneofs:
            out["x-oneof"] = {o.name: [f.json_name for f in o.fields] for o in oneofs}
            text += [
                f"Exactly one of {', '.join(f.json_name for f in o.fields)} ({o.name})."
                for o in oneofs
            ]
        if " ".join(text).strip():
            out["description"] = " ".join(text).strip()
        self.schemas[name] = out
        return ref(desc)

    def enum(self, desc: _d.EnumDescriptor) -> dict:
        name = component_name(desc)
        if name not in self.schemas:
            values = {v.name: proto_docs.comment(f"{desc.full_name}.{v.name}") for v in desc.values}
            lines = [f"- `{v}`: {text}" if text else f"- `{v}`" for v, text in values.items()]
            self.schemas[name] = {
                "type": "string",
                "title": desc.full_name,
                "description": "\n".join([proto_docs.comment(desc.full_name), ""] + lines).strip(),
                "enum": list(values),
                "x-enum-descriptions": list(values.values()),
            }
        return ref(desc)

    def value(self, f: _d.FieldDescriptor) -> dict:
        if f.type == _F.TYPE_MESSAGE:
            return self.message(f.message_type)
        if f.type == _F.TYPE_ENUM:
            return self.enum(f.enum_type)
        return dict(_SCALARS[f.type])

    def field(self, f: _d.FieldDescriptor) -> dict:
        if f.type == _F.TYPE_MESSAGE and f.message_type.GetOptions().map_entry:
            val = f.message_type.fields_by_name["value"]
            return {"type": "object", "additionalProperties": self.value(val)}
        if f.is_repeated:
            return {"type": "array", "items": self.value(f)}
        return self.value(f)


def _non_empty(f: _d.FieldDescriptor, schema: dict) -> dict:
    """A REQUIRED field as the service checks it: a list needs an item, a string a
    character (an empty value is the proto3 default, i.e. unset)."""
    if f.is_repeated and "type" in schema:
        return {**schema, "minItems": 1}
    if f.type == _F.TYPE_STRING and not f.is_repeated:
        return {**schema, "minLength": 1}
    return schema


# -- the document -------------------------------------------------------------------------


def _error_schemas(b: SchemaBuilder) -> None:
    for desc in (error_details_pb2.ErrorInfo.DESCRIPTOR, error_details_pb2.BadRequest.DESCRIPTOR):
        b.message(desc)
        name = component_name(desc)
        schema = b.schemas[name]
        schema["properties"] = {
            "@type": {"type": "string", "const": f"type.googleapis.com/{desc.full_name}"},
            **schema["properties"],
        }
        schema["required"] = ["@type"] + schema.get("required", [])
    b.schemas["Error"] = {
        "type": "object",
        "title": "Error",
        "description": "Every non-OK REST answer (AIP-193): exactly one "
        "ErrorInfo (domain samba.v1, reason, metadata.requestId) and, for "
        "INVALID_ARGUMENT, one BadRequest listing every problem found.",
        "required": ["error"],
        "properties": {
            "error": {
                "type": "object",
                "required": ["code", "status", "message", "details"],
                "properties": {
                    "code": {"type": "integer", "description": "The HTTP status."},
                    "status": {
                        "type": "string",
                        "description": "Canonical gRPC code name.",
                        "enum": [
                            "INVALID_ARGUMENT",
                            "FAILED_PRECONDITION",
                            "PERMISSION_DENIED",
                            "NOT_FOUND",
                            "RESOURCE_EXHAUSTED",
                            "DEADLINE_EXCEEDED",
                            "UNIMPLEMENTED",
                            "UNAVAILABLE",
                            "INTERNAL",
                        ],
                    },
                    "message": {"type": "string"},
                    "details": {
                        "type": "array",
                        "items": {
                            "oneOf": [
                                ref(error_details_pb2.ErrorInfo.DESCRIPTOR),
                                ref(error_details_pb2.BadRequest.DESCRIPTOR),
                            ]
                        },
                    },
                },
            }
        },
    }


_ERRORS = {
    "400": "Invalid argument (INVALID_ARGUMENT, FAILED_PRECONDITION)",
    "403": "Snapshot signature missing or invalid (PERMISSION_DENIED)",
    "404": "Not found (NOT_FOUND)",
    "413": "Request over the size limit (RESOURCE_EXHAUSTED); do not retry",
    "500": "Internal error (INTERNAL)",
    "504": "Deadline exceeded (DEADLINE_EXCEEDED)",
}


def _error_response(text: str) -> dict:
    return {
        "description": text,
        "headers": _HEADERS,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    }


_HEADERS = {
    "x-request-id": {
        "description": "The caller's x-request-id, or a generated one.",
        "schema": {"type": "string"},
    },
    "x-samba-version": {
        "description": "Package version and ruleset revision.",
        "schema": {"type": "string"},
    },
}
_REQUEST_ID_PARAM = {
    "name": "x-request-id",
    "in": "header",
    "required": False,
    "description": "Echoed in the answer and logged; generated when absent.",
    "schema": {"type": "string", "maxLength": 128},
}
_TIMEOUT_PARAM = {
    "name": "x-server-timeout",
    "in": "header",
    "required": False,
    "description": "Deadline in seconds (like a gRPC deadline): past it the "
    "answer is 504 DEADLINE_EXCEEDED.",
    "schema": {"type": "number", "exclusiveMinimum": 0},
}


def _example(value, summary: str) -> dict:
    return {"default": {"summary": summary, "value": value}}


def _path_parameters(method, path: str, example: dict) -> list[dict]:
    params = []
    for seg in path.split("/"):
        if seg.startswith("{") and seg.endswith("}"):
            name = seg[1:-1]
            field = method.input_type.fields_by_name[name]
            param = {
                "name": name,
                "in": "path",
                "required": True,
                "description": proto_docs.comment(field.full_name) or f"`{field.full_name}`",
                "schema": {"type": "string"},
            }
            if example.get("request"):
                param["example"] = example["request"][name]
            params.append(param)
    return params


def _responses(b: SchemaBuilder, method, rpc: str, example: dict) -> dict:
    ok: dict = {"schema": b.message(method.output_type)}
    if example.get("response"):
        ok["examples"] = _example(example["response"], "The answer to the example request")
    responses: dict[str, dict] = {
        "200": {"description": "OK", "headers": _HEADERS, "content": {"application/json": ok}}
    }
    for code, text in _ERRORS.items():
        if code != "404" or rpc == "GetRuleset":
            responses[code] = _error_response(text)
    error = example.get("error")
    if error:
        responses[str(error["error"]["code"])]["content"]["application/json"]["examples"] = (
            _example(error, "The answer to a broken request: " + error["error"]["message"])
        )
    return responses


def _operation(
    b: SchemaBuilder, rpc: str, verb: str, path: str, tag: str, summary: str, example: dict
) -> dict:
    """One RPC's route: its proto comment, parameters, example request, answer and error."""
    method = pb.SERVICE.methods_by_name[rpc]
    op: dict = {
        "operationId": rpc,
        "tags": [tag],
        "summary": summary,
        "description": f"{proto_docs.comment(method.full_name)}\n\n"
        f"gRPC: `{method.full_name}`. Bodies are the proto3 JSON "
        f"of `{method.input_type.full_name}` (lowerCamelCase or "
        f"snake_case names accepted; unknown fields refused) and "
        f"`{method.output_type.full_name}` (every field printed).",
        "parameters": [dict(_REQUEST_ID_PARAM), dict(_TIMEOUT_PARAM)],
    }
    if verb == "get":
        op["parameters"] += _path_parameters(method, path, example)
        b.message(method.input_type)  # listed in components all the same
    else:
        body: dict = {"schema": b.message(method.input_type)}
        if example.get("request"):
            body["examples"] = _example(example["request"], "A request the service accepts")
        op["requestBody"] = {"required": True, "content": {"application/json": body}}
    op["responses"] = _responses(b, method, rpc, example)
    return op


def route_tags(routes: Iterable) -> tuple[str, ...]:
    """The tags of ``routes`` (their resources), in the order they first come."""
    return tuple(dict.fromkeys(route[3] for route in routes))


def build(
    routes: Iterable,
    *,
    title: str,
    version: str,
    description: str = "",
    examples: dict[str, dict] | None = None,
) -> dict:
    """The document for ``routes``: (rpc name, HTTP verb, path, tag, summary) tuples;
    ``examples``: RPC name -> {"request", "response", "error"} bodies (service.web.examples)."""
    b = SchemaBuilder()
    paths: dict[str, dict] = {}
    examples = examples or {}
    for rpc, verb, path, tag, summary in routes:
        paths.setdefault(path, {})[verb] = _operation(
            b, rpc, verb, path, tag, summary, examples.get(rpc, {})
        )
    _error_schemas(b)
    plain = {"description": "OK", "content": {"text/plain": {"schema": {"type": "string"}}}}
    status = {
        "description": "OK",
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "properties": {
                        "status": {"type": "string", "enum": ["SERVING", "NOT_SERVING"]}
                    },
                }
            }
        },
    }
    paths["/healthz"] = {
        "get": {
            "operationId": "Healthz",
            "tags": ["operations"],
            "summary": "Liveness: the process answers.",
            "description": "200 `SERVING` while the process answers (a Kubernetes liveness probe).",
            "responses": {"200": status},
        }
    }
    paths["/readyz"] = {
        "get": {
            "operationId": "Readyz",
            "tags": ["operations"],
            "summary": "Readiness: 503 while starting or draining.",
            "description": "200 `SERVING` when calls are answered; 503 "
            "`NOT_SERVING` while the server starts or drains "
            "after SIGTERM (a readiness probe).",
            "responses": {"200": status, "503": {**status, "description": "Not ready"}},
        }
    }
    paths["/metrics"] = {
        "get": {
            "operationId": "Metrics",
            "tags": ["operations"],
            "summary": "Prometheus metrics (text exposition format).",
            "description": "Requests, latencies, outcomes and violation "
            "codes per method and transport "
            "(docs/service.md, Metrics).",
            "responses": {"200": plain},
        }
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": title, "version": version, "description": description},
        "paths": paths,
        "components": {"schemas": dict(sorted(b.schemas.items()))},
        "tags": [{"name": t} for t in (*route_tags(routes), "operations")],
    }
