"""The protobuf schema (proto/samba/v1) against docs/api.md: methods, messages, JSON names,
nested enums, presence. `buf lint` is run by `make lint-proto`, not here."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from google.api import field_behavior_pb2
from google.protobuf import descriptor as _d

from samba_adjudicator.engine import model as m
from samba_adjudicator.engine import ruleset as er
from samba_adjudicator.service.base import pb

DOCS = Path(__file__).resolve().parent.parent / "docs"

RPCS = [
    "ListRulesets",
    "GetRuleset",
    "Deal",
    "CheckMeld",
    "ValidateAction",
    "ApplyAction",
    "ListLegalActions",
    "ScoreDeal",
    "GetPlayerView",
    "ReplayDeal",
    "SuggestAction",
    "VerifyDeal",
]


def all_messages():
    seen = {}

    def walk(desc):
        if desc.full_name in seen or desc.GetOptions().map_entry:
            return
        seen[desc.full_name] = desc
        for n in desc.nested_types:
            walk(n)

    for mod in pb.MODULES:
        for desc in mod.DESCRIPTOR.message_types_by_name.values():
            walk(desc)
    return seen


def test_service_and_methods():
    assert pb.SERVICE.full_name == "samba.v1.Adjudicator"
    assert [m.name for m in pb.SERVICE.methods] == RPCS
    for rpc in RPCS:
        method = pb.SERVICE.methods_by_name[rpc]
        assert method.input_type.full_name == f"samba.v1.{rpc}Request"
        expected = "samba.v1.Ruleset" if rpc == "GetRuleset" else f"samba.v1.{rpc}Response"
        assert method.output_type.full_name == expected


@pytest.mark.parametrize(
    "name",
    [
        "Ruleset",
        "RulesetOverrides",
        "RulesetRef",
        "TableSize",
        "InitialMeldBand",
        "Snapshot",
        "Seat",
        "Side",
        "Meld",
        "Penalty",
        "Pile",
        "Turn",
        "Result",
        "Premium",
        "Action",
        "DrawStock",
        "TakePile",
        "TakeTopCard",
        "MeldCards",
        "SwapWild",
        "Discard",
        "AskGoOut",
        "AnswerGoOut",
        "Addition",
        "NewMeld",
        "Violation",
        "Event",
        "SideScore",
        "ActionResult",
    ],
)
def test_message_exists(name):
    assert f"samba.v1.{name}" in all_messages()


#: Messages whose fields are the ruleset's parameters: each said by its own sentence and
#: rule of docs/rules.md (tests/test_parameter_descriptions.py), not by docs/api.md.
PARAMETER_MESSAGES = {
    "samba.v1.Ruleset",
    "samba.v1.RulesetOverrides",
    "samba.v1.TableSize",
    "samba.v1.InitialMeldBand",
}


def test_docs_name_every_field_by_its_json_name():
    """A field's JSON name is the schema's (protobuf's lowerCamelCase of its name, or its
    ``json_name``); docs/api.md, which says the API, names every field of every message by
    it, so a renamed field cannot go unnoticed by the docs (the names are not copied here)."""
    text = (DOCS / "api.md").read_text()
    unnamed = [
        f"{name}.{f.json_name}"
        for name, desc in sorted(all_messages().items())
        if name not in PARAMETER_MESSAGES
        for f in desc.fields
        if not re.search(rf"\b{f.json_name}\b", text)
    ]
    assert unnamed == []


def test_ruleset_has_every_engine_parameter_typed():
    desc = pb.Ruleset.DESCRIPTOR
    names = [f.name for f in desc.fields]
    params = [
        f.name
        for f in dataclasses.fields(er.Ruleset)
        if f.name not in (*er.NAMING, *er.ENGINE_ONLY_PARAMETERS)
    ]
    assert set(er.ENGINE_ONLY_PARAMETERS) <= set(er.PARAMETER_NAMES)
    assert names == ["profile", "version", *params, "description", "parameter_descriptions"]
    over = [f.name for f in pb.RulesetOverrides.DESCRIPTOR.fields]
    assert over == [*params, *er.TABLE_PARAMETERS]
    for f in pb.RulesetOverrides.DESCRIPTOR.fields:
        assert f.is_repeated or f.has_presence, f.name
    # enums: exactly the engine's names and values, so conversion is Enum[name]
    for f in desc.fields:
        if f.enum_type is not None:
            engine_enum = getattr(er, f.enum_type.name)
            values = [v.name for v in f.enum_type.values if v.number]
            assert values == [e.name for e in engine_enum]


ENGINE_ENUMS = {
    "samba.v1.Meld.Kind": m.MeldKind,
    "samba.v1.Meld.Status": m.MeldStatus,
    "samba.v1.Turn.Phase": m.Phase,
    "samba.v1.Turn.GoOut": m.GoOut,
    "samba.v1.Result.Reason": m.EndReason,
    "samba.v1.Addition.End": m.RunEnd,
}


@pytest.mark.parametrize("full_name", sorted(ENGINE_ENUMS))
def test_model_enums_match_engine(full_name):
    enum = {e.full_name: e for d in all_messages().values() for e in d.enum_types}[full_name]
    assert [v.name for v in enum.values if v.number] == [e.name for e in ENGINE_ENUMS[full_name]]


def test_event_types():
    assert [v.name for v in pb.Event.Type.DESCRIPTOR.values][1:] == [
        "CARDS_DRAWN",
        "PILE_TAKEN",
        "TOP_CARD_TAKEN",
        "RED_THREE_LAID",
        "MELD_CREATED",
        "MELD_EXTENDED",
        "WILD_SWAPPED",
        "CANASTA_COMPLETED",
        "SAMBA_COMPLETED",
        "DISCARDED",
        "PERMISSION_ASKED",
        "PERMISSION_ANSWERED",
        "PENALTY_ASSESSED",
        "WENT_OUT",
        "DEAL_ENDED",
    ]


def test_every_enum_is_nested_with_unspecified_zero():
    for mod in pb.MODULES:
        assert not mod.DESCRIPTOR.enum_types_by_name, "top-level enums are not allowed"
    for desc in all_messages().values():
        for enum in desc.enum_types:
            zero = enum.values_by_number[0].name
            assert zero.endswith("_UNSPECIFIED"), enum.full_name


def test_presence_fields_exactly_as_contract():
    """docs/api.md#json's optional fields (+ Action.expectedPly, GetPlayerViewResponse.
    viewerSeat, every RulesetOverrides parameter); messages have presence by nature."""
    expected = {
        "samba.v1.Action.seat",
        "samba.v1.Action.expected_ply",
        "samba.v1.Turn.seat",
        "samba.v1.Result.seat",
        "samba.v1.ListLegalActionsRequest.seat",
        "samba.v1.GetPlayerViewRequest.seat",
        "samba.v1.ScoreDealResponse.winner_side",
        "samba.v1.ReplayDealResponse.first_illegal_index",
        "samba.v1.GetPlayerViewResponse.viewer_seat",
        "samba.v1.Addition.end",
    }
    found = set()
    for desc in all_messages().values():
        if desc.full_name == "samba.v1.RulesetOverrides":
            continue
        for f in desc.fields:
            if (
                f.has_presence
                and f.type != _d.FieldDescriptor.TYPE_MESSAGE
                and f.containing_oneof is not None
            ):
                found.add(f.full_name)
    assert found == expected


def test_no_64_bit_integers():
    bad = {
        _d.FieldDescriptor.TYPE_INT64,
        _d.FieldDescriptor.TYPE_UINT64,
        _d.FieldDescriptor.TYPE_SINT64,
        _d.FieldDescriptor.TYPE_FIXED64,
        _d.FieldDescriptor.TYPE_SFIXED64,
    }
    for desc in all_messages().values():
        for f in desc.fields:
            assert f.type not in bad, f.full_name
    assert pb.DealRequest.DESCRIPTOR.fields_by_name["seed"].type == _d.FieldDescriptor.TYPE_STRING


def _behaviors(msg, field):
    f = msg.DESCRIPTOR.fields_by_name[field]
    return list(f.GetOptions().Extensions[field_behavior_pb2.field_behavior])


@pytest.mark.parametrize(
    "msg,field",
    [
        (pb.GetRulesetRequest, "profile"),
        (pb.DealRequest, "seed"),
        (pb.CheckMeldRequest, "cards"),
        (pb.ValidateActionRequest, "snapshot"),
        (pb.ValidateActionRequest, "action"),
        (pb.ApplyActionRequest, "snapshot"),
        (pb.ListLegalActionsRequest, "snapshot"),
        (pb.ScoreDealRequest, "snapshot"),
        (pb.GetPlayerViewRequest, "snapshot"),
        (pb.ReplayDealRequest, "snapshot"),
        (pb.Action, "seat"),
        (pb.Turn, "seat"),
        (pb.Turn, "phase"),
        (pb.Result, "reason"),
    ],
)
def test_required_fields_annotated(msg, field):
    assert field_behavior_pb2.REQUIRED in _behaviors(msg, field)


def test_fields_required_unless_another_is_given_are_not_annotated():
    """``players`` (unless ``previous``) and ``action`` (unless ``computer``): the handler
    checks them, with the same REQUIRED problem."""
    assert field_behavior_pb2.REQUIRED not in _behaviors(pb.DealRequest, "players")
    assert field_behavior_pb2.REQUIRED not in _behaviors(pb.ApplyActionRequest, "action")


def test_goout_not_required():
    assert field_behavior_pb2.REQUIRED not in _behaviors(pb.Turn, "go_out")


def test_proto_alone_is_every_include_a_client_needs(tmp_path):
    """A client in another language generates from proto/ alone (docs/clients.md): the
    schema, the googleapis files it imports and the error details every error carries
    (google.rpc.Status, ErrorInfo, BadRequest) are all there, with nothing but protoc's own
    well-known types besides."""
    from grpc_tools import protoc

    root = DOCS.parent / "proto"
    files = sorted(str(p.relative_to(root)) for p in root.rglob("*.proto"))
    assert {"google/rpc/status.proto", "google/rpc/error_details.proto"} <= set(files)
    out = tmp_path / "all.binpb"
    well_known = Path(protoc.__file__).parent / "_proto"
    status = protoc.main(
        ["protoc", f"-I{root}", f"-I{well_known}", f"--descriptor_set_out={out}", *files]
    )
    assert status == 0
    from google.protobuf import descriptor_pb2

    names = {
        f"{file.package}.{message.name}"
        for file in descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes()).file
        for message in file.message_type
    }
    assert {"google.rpc.Status", "google.rpc.ErrorInfo", "google.rpc.BadRequest"} <= names
