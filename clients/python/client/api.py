"""``Client`` (blocking) and ``AsyncClient`` (asyncio): one method per RPC, either transport.

    with Client.rest("http://localhost:8080") as client:   # or Client.grpc("localhost:50051")
        snapshot = client.deal({"players": 4, "seed": secrets.token_hex(16)})["snapshot"]

Every method takes the request (a protobuf message, or its proto3-JSON dict) and, as
keywords, ``timeout`` (seconds; the client's default otherwise) and ``request_id`` (sent
as ``x-request-id``, generated when absent). Answers come back in the request's form.

A call that meets UNAVAILABLE (a draining replica, a connection refused, a REST 503) is
sent again under the client's ``retry`` policy (``client.retry``; DEFAULT_RETRY unless
``retry=`` says otherwise, ``retry=None`` for one attempt), with the same request id.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Mapping
from typing import Any, TypeAlias

from google.protobuf.message import Message

from .errors import AdjudicatorError
from .retry import DEFAULT_RETRY, Attempts, RetryPolicy
from .rpcs import RPCS, answer_as, request_message
from .transports import AsyncGrpcTransport, AsyncRestTransport, GrpcTransport, RestTransport

Request: TypeAlias = Message | dict[str, Any] | None

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

    def __init__(
        self, transport, timeout: float | None, retry: RetryPolicy | None = DEFAULT_RETRY
    ) -> None:
        self.transport = transport
        self.timeout = timeout
        self.retry = retry

    def _prepare(
        self, method: str, request: Request, timeout: float | None, request_id: str | None
    ):
        rpc = RPCS[method]
        return (
            rpc,
            request_message(rpc, request),
            Attempts(self.retry, self.timeout if timeout is None else timeout),
            request_id or uuid.uuid4().hex,
        )


def _grpc_options(service_config: Mapping[str, Any] | str | None) -> list[tuple[str, Any]]:
    """Channel options carrying a gRPC service config (a dict or its JSON text)."""
    if service_config is None:
        return []
    text = service_config if isinstance(service_config, str) else json.dumps(service_config)
    return [("grpc.service_config", text)]


def grpc_channel(target: str, service_config: Mapping[str, Any] | str | None = None):
    import grpc

    return grpc.insecure_channel(target, options=_grpc_options(service_config))


def grpc_aio_channel(target: str, service_config: Mapping[str, Any] | str | None = None):
    import grpc

    return grpc.aio.insecure_channel(target, options=_grpc_options(service_config))


class Client(_Methods):
    """A blocking client. ``Client.grpc(target)`` or ``Client.rest(base_url)``."""

    @classmethod
    def grpc(
        cls,
        target: str,
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
        channel=None,
        retry: RetryPolicy | None = DEFAULT_RETRY,
        service_config: Mapping[str, Any] | str | None = None,
        locale: str | None = None,
    ) -> Client:
        """``service_config``: a gRPC service config for the channel this makes (load
        balancing, gRPC's own retryPolicy, timeouts); ignored when ``channel`` is given.
        ``locale`` (``es``, ``it-IT``, …) chooses the language of the messages."""
        channel = channel or grpc_channel(target, service_config)
        return cls(GrpcTransport(target, channel, locale), timeout, retry)

    @classmethod
    def rest(
        cls,
        base_url: str,
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
        http=None,
        headers: dict[str, str] | None = None,
        retry: RetryPolicy | None = DEFAULT_RETRY,
        locale: str | None = None,
    ) -> Client:
        """``locale`` (``es``, ``it-IT``, …) chooses the language of the messages."""
        return cls(RestTransport(base_url, http, headers, locale), timeout, retry)

    def call(
        self,
        method: str,
        request: Request = None,
        *,
        timeout: float | None = None,
        request_id: str | None = None,
    ):
        """Any RPC by its name (``"ValidateAction"``)."""
        rpc, message, attempts, request_id = self._prepare(method, request, timeout, request_id)
        while True:
            try:
                answer = self.transport.invoke(rpc, message, attempts.timeout(), request_id)
            except AdjudicatorError as error:
                delay = attempts.retry_after(error)
                if delay is None:
                    raise
                time.sleep(delay)
                continue
            return answer_as(request, answer)

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
        cls,
        target: str,
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
        channel=None,
        retry: RetryPolicy | None = DEFAULT_RETRY,
        service_config: Mapping[str, Any] | str | None = None,
        locale: str | None = None,
    ) -> AsyncClient:
        """As ``Client.grpc``."""
        channel = channel or grpc_aio_channel(target, service_config)
        return cls(AsyncGrpcTransport(target, channel, locale), timeout, retry)

    @classmethod
    def rest(
        cls,
        base_url: str,
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
        http=None,
        headers: dict[str, str] | None = None,
        retry: RetryPolicy | None = DEFAULT_RETRY,
        locale: str | None = None,
    ) -> AsyncClient:
        """As ``Client.rest``."""
        return cls(AsyncRestTransport(base_url, http, headers, locale), timeout, retry)

    async def call(
        self,
        method: str,
        request: Request = None,
        *,
        timeout: float | None = None,
        request_id: str | None = None,
    ):
        """Any RPC by its name (``"ValidateAction"``)."""
        rpc, message, attempts, request_id = self._prepare(method, request, timeout, request_id)
        while True:
            try:
                answer = await self.transport.invoke(rpc, message, attempts.timeout(), request_id)
            except AdjudicatorError as error:
                delay = attempts.retry_after(error)
                if delay is None:
                    raise
                await asyncio.sleep(delay)
                continue
            return answer_as(request, answer)

    async def close(self) -> None:
        await self.transport.close()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
