"""The Python client's two twins, ``Client`` and ``AsyncClient``, are one client
(clients/python/client/steps.py): the same public methods (names, signatures, docstrings),
each of its own kind, and the same scenario through both against a real server gives the
same answers, errors and metadata (request id, language, ``x-samba-table``) on either
transport."""

from __future__ import annotations

import asyncio
import inspect

import grpc
import httpx
import pytest
from google.protobuf import json_format
from google.protobuf.message import Message
from service_fixtures import server  # noqa: F401

from samba_adjudicator.client import AdjudicatorError, AsyncClient, Client
from samba_adjudicator.client.deal_check import deal_commitment
from samba_adjudicator.client.tables import TABLE_HEADER
from samba_adjudicator.service.base import pb


def _public(cls: type) -> dict[str, tuple[str, str | None]]:
    """Every public attribute of ``cls``: its signature and docstring."""
    return {
        name: (str(inspect.signature(getattr(cls, name))), inspect.getdoc(getattr(cls, name)))
        for name in dir(cls)
        if not name.startswith("_")
    }


def test_the_twins_have_the_same_public_methods():
    blocking, asyncio_ = _public(Client), _public(AsyncClient)
    assert blocking.keys() == asyncio_.keys()
    for name in blocking:
        assert blocking[name] == asyncio_[name], name
    assert {"call", "close", "deal", "iter_legal_actions", "grpc", "rest"} <= blocking.keys()


def test_each_twins_methods_are_of_its_kind():
    for name in _public(Client):
        if isinstance(inspect.getattr_static(Client, name), classmethod):
            assert isinstance(inspect.getattr_static(AsyncClient, name), classmethod), name
            continue
        sync, async_ = getattr(Client, name), getattr(AsyncClient, name)
        if name.startswith("iter_"):
            assert inspect.isgeneratorfunction(sync), name
            assert inspect.isasyncgenfunction(async_), name
        else:
            assert not inspect.iscoroutinefunction(sync), name
            assert not inspect.isgeneratorfunction(sync), name
            assert inspect.iscoroutinefunction(async_), name
    assert hasattr(Client, "__enter__") and hasattr(Client, "__exit__")
    assert hasattr(AsyncClient, "__aenter__") and hasattr(AsyncClient, "__aexit__")


# -- one scenario through both, against a real server ------------------------------------

SEED = "twins-scenario"


def _scenario():
    """The calls, written once: yields (method, args, keywords) and is sent each outcome
    (the answer, or the AdjudicatorError raised)."""
    yield "list_rulesets", (), {}
    yield "get_ruleset", (pb.GetRulesetRequest(profile="classic"),), {}
    dealt = yield "deal", ({"players": 4, "seed": SEED},), {"request_id": "twins-deal"}
    snapshot = dealt["snapshot"]
    listed = yield "list_legal_actions", ({"snapshot": snapshot},), {"locale": "es"}
    action = listed["actions"][0]
    applied = yield "call", ("ApplyAction", {"snapshot": snapshot, "action": action}), {}
    drawn = applied["snapshot"]
    yield "iter_legal_actions", ({"snapshot": drawn, "pageSize": 3},), {}
    yield "validate_action", ({"snapshot": drawn, "action": action},), {"table": "t-twins"}
    yield "check_meld", ({"cards": ["7H", "ZZ"]},), {"request_id": "twins-bad", "locale": "sv"}
    yield "get_ruleset", ({"profile": "no-such-profile"},), {"request_id": "twins-missing"}


def _record(outcome) -> object:
    if isinstance(outcome, AdjudicatorError):
        violations = [(v.field, v.reason, v.description) for v in outcome.violations]
        return ("error", outcome.status, outcome.reason, outcome.request_id, violations)
    if isinstance(outcome, Message):
        return (type(outcome).__name__, json_format.MessageToDict(outcome))
    return outcome


def _blocking_run(client: Client) -> list:
    transcript: list = []
    calls, outcome = _scenario(), None
    while True:
        try:
            name, args, keywords = calls.send(outcome)
        except StopIteration:
            return transcript
        method = getattr(client, name)
        try:
            outcome = method(*args, **keywords)
            if name.startswith("iter_"):
                outcome = list(outcome)
        except AdjudicatorError as error:
            outcome = error
        transcript.append(_record(outcome))


async def _asyncio_run(client: AsyncClient) -> list:
    transcript: list = []
    calls, outcome = _scenario(), None
    while True:
        try:
            name, args, keywords = calls.send(outcome)
        except StopIteration:
            return transcript
        method = getattr(client, name)
        try:
            if name.startswith("iter_"):
                outcome = [item async for item in method(*args, **keywords)]
            else:
                outcome = await method(*args, **keywords)
        except AdjudicatorError as error:
            outcome = error
        transcript.append(_record(outcome))


def _headers(pairs) -> dict[str, str]:
    """What the scenario's calls carried beside the request (a generated id as such)."""
    seen = {k.lower(): v for k, v in pairs if k.lower() in _SENT}
    if not seen.get("x-request-id", "twins-").startswith("twins-"):
        seen["x-request-id"] = "generated"
    return seen


_SENT = ("x-request-id", "accept-language", TABLE_HEADER)


class _Seen(grpc.UnaryUnaryClientInterceptor):
    def __init__(self, sent: list) -> None:
        self.sent = sent

    def intercept_unary_unary(self, continuation, details, request):
        self.sent.append(_headers(details.metadata or ()))
        return continuation(details, request)


class _AsyncSeen(grpc.aio.UnaryUnaryClientInterceptor):
    def __init__(self, sent: list) -> None:
        self.sent = sent

    async def intercept_unary_unary(self, continuation, details, request):
        self.sent.append(_headers(details.metadata or ()))
        return await continuation(details, request)


def _blocking_client(server, transport: str, sent: list) -> Client:  # noqa: F811
    if transport == "grpc":
        channel = grpc.intercept_channel(grpc.insecure_channel(server.grpc_target), _Seen(sent))
        return Client.grpc(server.grpc_target, channel=channel)
    hooks = {"request": [lambda r: sent.append(_headers(r.headers.items()))]}
    return Client.rest(
        server.base_url, http=httpx.Client(base_url=server.base_url, event_hooks=hooks)
    )


def _asyncio_client(server, transport: str, sent: list) -> AsyncClient:  # noqa: F811
    if transport == "grpc":
        channel = grpc.aio.insecure_channel(server.grpc_target, interceptors=[_AsyncSeen(sent)])
        return AsyncClient.grpc(server.grpc_target, channel=channel)

    async def hook(request: httpx.Request) -> None:
        sent.append(_headers(request.headers.items()))

    http = httpx.AsyncClient(base_url=server.base_url, event_hooks={"request": [hook]})
    return AsyncClient.rest(server.base_url, http=http)


@pytest.mark.servers
@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_one_scenario_through_both_twins_gives_the_same_transcript(server, transport):  # noqa: F811
    blocking_sent: list = []
    with _blocking_client(server, transport, blocking_sent) as client:
        blocking = _blocking_run(client)

    asyncio_sent: list = []

    async def run() -> list:
        async with _asyncio_client(server, transport, asyncio_sent) as client:
            return await _asyncio_run(client)

    assert asyncio.run(run()) == blocking
    assert asyncio_sent == blocking_sent
    # the scenario did what it says: answers in the request's form, errors decoded
    assert blocking[1][0] == "Ruleset" and len(blocking[5]) > 3
    assert blocking[7][:4] == ("error", "INVALID_ARGUMENT", "INVALID_REQUEST", "twins-bad")
    assert blocking[8][:2] == ("error", "NOT_FOUND")
    key = deal_commitment(SEED)
    pages = len(blocking_sent) - 8  # one call each but the iteration's pages
    assert pages == -(-len(blocking[5]) // 3)
    assert [sent.get(TABLE_HEADER) for sent in blocking_sent] == [
        *(None, None, key, key, key),
        *[key] * pages,
        *("t-twins", None, None),
    ]
    assert blocking_sent[3]["accept-language"] == "es"
    assert blocking_sent[2]["x-request-id"] == "twins-deal"
