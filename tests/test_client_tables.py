"""The table key the Python client sends as ``x-samba-table`` (clients/python/client/tables.py):
the deal's commitment, which a Deal's answer carries and every later request of that deal
sends back, or the key the caller gives. tests/test_scale.py checks, through nginx's log,
that every call of a game carries it on both transports and both clients."""

from __future__ import annotations

import httpx
import pytest
from service_fixtures import server  # noqa: F401

from samba_adjudicator.client import Client
from samba_adjudicator.client.deal_check import deal_commitment
from samba_adjudicator.client.tables import TABLE_HEADER, table_key
from samba_adjudicator.service.base import pb


def test_the_key_is_the_commitment_of_the_snapshot_the_request_carries():
    snapshot = {"dealCommitment": "c0ffee", "turn": {"seat": 1}}
    assert table_key("ListLegalActions", {"snapshot": snapshot}) == "c0ffee"
    assert table_key("ValidateAction", {"snapshot": {"deal_commitment": "c0ffee"}}) == "c0ffee"
    assert table_key("Deal", {"previous": snapshot, "players": 4}) == "c0ffee"
    assert table_key("VerifyDeal", {"deal": snapshot, "seed": "s"}) == "c0ffee"
    message = pb.ListLegalActionsRequest(snapshot=pb.Snapshot(deal_commitment="c0ffee"))
    assert table_key("ListLegalActions", message) == "c0ffee"


def test_a_deal_is_keyed_by_the_commitment_of_its_seed():
    assert table_key("Deal", {"players": 4, "seed": "t-1"}) == deal_commitment("t-1")
    # a new deal of a match goes where its own calls will go, not where the last one's did
    request = {"players": 4, "seed": "t-2", "previous": {"dealCommitment": "old"}}
    assert table_key("Deal", request) == deal_commitment("t-2")
    assert table_key("Deal", pb.DealRequest(players=4, seed="t-1")) == deal_commitment("t-1")


@pytest.mark.parametrize(
    "request_",
    [None, {}, {"profile": "classic"}, {"snapshot": {}}, pb.ListLegalActionsRequest()],
)
def test_a_request_without_a_deal_has_no_key(request_):
    assert table_key("ListLegalActions", request_) is None


@pytest.mark.servers
@pytest.mark.parametrize("transport", ["rest", "grpc"])
def test_a_deals_answer_carries_the_key_its_deal_was_sent_with(server, transport):  # noqa: F811
    make = Client.rest if transport == "rest" else Client.grpc
    target = server.base_url if transport == "rest" else server.grpc_target
    request = {"players": 4, "seed": "table-key"}
    with make(target) as client:
        answer = client.deal(request)
    assert answer["snapshot"]["dealCommitment"] == table_key("Deal", request)


@pytest.mark.servers
def test_every_call_sends_its_key_and_a_callers_key_wins(server):  # noqa: F811
    """Seen on the requests the REST client sends to a real server (httpx's request hook);
    over gRPC, nginx's log in tests/test_scale.py sees the metadata."""
    sent: list[str | None] = []
    hook = {"request": [lambda r: sent.append(r.headers.get(TABLE_HEADER))]}
    http = httpx.Client(base_url=server.base_url, event_hooks=hook)
    with Client.rest(server.base_url, http=http) as client:
        snapshot = client.deal({"players": 4, "seed": "sent-key"})["snapshot"]
        client.list_legal_actions({"snapshot": snapshot})
        client.list_legal_actions({"snapshot": snapshot}, table="t-9")
        client.list_rulesets()
    key = deal_commitment("sent-key")
    assert snapshot["dealCommitment"] == key
    assert sent == [key, key, "t-9", None]
