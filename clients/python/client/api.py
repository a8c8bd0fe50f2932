"""``Client`` (blocking) and ``AsyncClient`` (asyncio): one method per RPC, either transport.

    with Client.rest("http://localhost:8080") as client:   # or Client.grpc("localhost:50051")
        snapshot = client.deal({"players": 4, "seed": secrets.token_hex(16)})["snapshot"]

Every method takes the request (a protobuf message, or its proto3-JSON dict) and, as
keywords, ``timeout`` (seconds; the client's default otherwise) and ``request_id`` (sent
as ``x-request-id``, generated when absent). Answers come back in the request's form.
"""

from __future__ import annotations

import uuid
from typing import Any

from google.protobuf.message import Message

from .rpcs import RPCS, answer_as, request_message
from .transports import AsyncGrpcTransport, AsyncRestTransport, GrpcTransport, RestTransport

Request = Message | dict[str, Any] | None

#: Default deadline of a call, in seconds.
DEFAULT_TIMEOUT = 10.0


def _method(name: str):
    rpc = RPCS[name]

    def method(
        self,
        request: Request = None,
        *,
        timeout: float | None = None,
        request_id: str | None = None,
    ):
        return self.call(name, request, timeout=timeout, request_id=request_id)

    method.__name__ = method.__qualname__ = rpc.python_name
    method.__doc__ = (
        f"``{name}`` (REST ``{rpc.verb} {rpc.path}``): "
        f"{rpc.request_class.__name__} -> {rpc.response_class.__name__}."
    )
    return method


class _Methods:
    """The RPCs as methods, each calling ``self.call``."""

    list_rulesets = _method("ListRulesets")
    get_ruleset = _method("GetRuleset")
    deal = _method("Deal")
    check_meld = _method("CheckMeld")
    validate_action = _method("ValidateAction")
    apply_action = _method("ApplyAction")
    list_legal_actions = _method("ListLegalActions")
    score_deal = _method("ScoreDeal")
    get_player_view = _method("GetPlayerView")
    replay_deal = _method("ReplayDeal")
    suggest_action = _method("SuggestAction")

    def __init__(self, transport, timeout: float | None) -> None:
        self.transport = transport
        self.timeout = timeout

    def _prepare(
        self, method: str, request: Request, timeout: float | None, request_id: str | None
    ):
        rpc = RPCS[method]
        return (
            rpc,
            request_message(rpc, request),
            self.timeout if timeout is None else timeout,
            request_id or uuid.uuid4().hex,
        )


class Client(_Methods):
    """A blocking client. ``Client.grpc(target)`` or ``Client.rest(base_url)``."""

    @classmethod
    def grpc(cls, target: str, *, timeout: float | None = DEFAULT_TIMEOUT, channel=None) -> Client:
        return cls(GrpcTransport(target, channel), timeout)

    @classmethod
    def rest(
        cls,
        base_url: str,
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
        http=None,
        headers: dict[str, str] | None = None,
    ) -> Client:
        return cls(RestTransport(base_url, http, headers), timeout)

    def call(
        self,
        method: str,
        request: Request = None,
        *,
        timeout: float | None = None,
        request_id: str | None = None,
    ):
        """Any RPC by its name (``"ValidateAction"``)."""
        rpc, message, timeout, request_id = self._prepare(method, request, timeout, request_id)
        return answer_as(request, self.transport.invoke(rpc, message, timeout, request_id))

    def close(self) -> None:
        self.transport.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncClient(_Methods):
    """An asyncio client: ``await client.deal(...)``. ``AsyncClient.grpc`` / ``.rest``."""

    @classmethod
    def grpc(
        cls, target: str, *, timeout: float | None = DEFAULT_TIMEOUT, channel=None
    ) -> AsyncClient:
        return cls(AsyncGrpcTransport(target, channel), timeout)

    @classmethod
    def rest(
        cls,
        base_url: str,
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
        http=None,
        headers: dict[str, str] | None = None,
    ) -> AsyncClient:
        return cls(AsyncRestTransport(base_url, http, headers), timeout)

    async def call(
        self,
        method: str,
        request: Request = None,
        *,
        timeout: float | None = None,
        request_id: str | None = None,
    ):
        """Any RPC by its name (``"ValidateAction"``)."""
        rpc, message, timeout, request_id = self._prepare(method, request, timeout, request_id)
        return answer_as(request, await self.transport.invoke(rpc, message, timeout, request_id))

    async def close(self) -> None:
        await self.transport.close()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
