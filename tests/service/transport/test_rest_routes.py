"""REST routes are written once, as each RPC's ``google.api.http`` option (docs/api.md#methods):
the gateway and the Python client read them from the schema, and the gateway serves them."""

from __future__ import annotations

from samba_adjudicator.client.rpcs import ROUTES as CLIENT_ROUTES
from samba_adjudicator.service.base import pb
from samba_adjudicator.service.base.descriptors import http_route
from samba_adjudicator.service.transport.rest import ROUTES


def test_every_rpc_has_its_route_in_the_schema():
    for method in pb.SERVICE.methods:
        verb, path = http_route(method)
        assert verb in ("get", "post"), method.name
        assert path.startswith("/v1/"), method.name


def test_the_gateway_and_the_client_read_the_same_routes():
    gateway = {rpc: (verb.upper(), path) for rpc, verb, path, _tag, _summary in ROUTES}
    assert gateway == CLIENT_ROUTES
    assert set(gateway) == {m.name for m in pb.SERVICE.methods}


def test_a_route_tag_is_its_resource_and_its_summary_the_proto_comment():
    by_rpc = {rpc: (path, tag, summary) for rpc, _verb, path, tag, summary in ROUTES}
    assert by_rpc["Deal"][:2] == ("/v1/deals:deal", "deals")
    assert by_rpc["GetRuleset"][:2] == ("/v1/rulesets/{profile}", "rulesets")
    assert by_rpc["ValidateAction"][2] == "Is an action legal now?"
