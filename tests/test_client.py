"""clients/grpc_client.py against the real server on a loopback port."""

from __future__ import annotations

import grpc
import pytest

from clients.grpc_client import AdjudicatorClient, AdjudicatorError
from samba_adjudicator.service import pb
from service_fixtures import server  # noqa: F401 - fixture

pytestmark = pytest.mark.servers


def test_dict_round_trip_deal_and_validate(server):  # noqa: F811
    with AdjudicatorClient(server.grpc_target) as client:
        dealt = client.call("Deal", {"players": 4, "seed": "client-test"})
        snapshot = dealt["snapshot"]
        assert snapshot["turn"]["phase"] == "DRAW"
        listed = client.call("ListLegalActions", {"snapshot": snapshot})
        first = listed["actions"][0]
        answer = client.call("ValidateAction", {"snapshot": snapshot, "action": first})
        assert answer == {"legal": True, "violations": []}
        out_of_turn = dict(first, seat=(first["seat"] + 1) % 4)
        refused = client.call("ValidateAction", {"snapshot": snapshot, "action": out_of_turn})
        assert refused["legal"] is False
        assert refused["violations"][0]["code"] == "NOT_YOUR_TURN"


def test_messages_in_messages_out(server):  # noqa: F811
    with AdjudicatorClient(server.grpc_target) as client:
        answer = client.call("GetRuleset", pb.GetRulesetRequest(profile="pagat"))
        assert isinstance(answer, pb.Ruleset) and answer.profile == "pagat"


def test_invalid_argument_carries_reason_and_field_violations(server):  # noqa: F811
    with AdjudicatorClient(server.grpc_target) as client, \
            pytest.raises(AdjudicatorError) as err:
        client.call("CheckMeld", {"cards": ["7H", "ZZ", "7C"]}, request_id="client-req")
    e = err.value
    assert e.code is grpc.StatusCode.INVALID_ARGUMENT
    assert e.reason == "INVALID_REQUEST" and e.request_id == "client-req"
    assert [(v.field, v.reason) for v in e.violations] == [("cards[1]", "UNKNOWN_CARD_CODE")]


def test_not_found(server):  # noqa: F811
    with AdjudicatorClient(server.grpc_target) as client, \
            pytest.raises(AdjudicatorError) as err:
        client.call("GetRuleset", {"profile": "nonesuch"})
    assert err.value.code is grpc.StatusCode.NOT_FOUND
    assert err.value.reason == "UNKNOWN_PROFILE"
