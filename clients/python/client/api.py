"""``Client`` (blocking) and ``AsyncClient`` (asyncio): one method per RPC, either transport.

    with Client.rest("http://localhost:8080") as client:   # or Client.grpc("localhost:50051")
        snapshot = client.deal({"players": 4, "seed": secrets.token_hex(16)})["snapshot"]

Every method takes the request (a protobuf message, or its proto3-JSON dict) and, as
keywords, ``timeout`` (seconds; the client's default, DEFAULT_TIMEOUT, otherwise),
``request_id`` (sent as ``x-request-id``, generated when absent), ``locale`` (the
language of this call's messages; the client's ``locale`` otherwise) and ``table`` (the
table key sent as ``x-samba-table``, by which a balancer keeps a table's calls on one worker;
by default the deal's commitment: tables.py). Answers come back in
the request's form. ``iter_legal_actions`` yields every legal action of every page.

A call that meets UNAVAILABLE (a draining replica, a connection refused, a server
restarting, a REST 503) is sent again under the client's ``retry`` policy (``client.retry``;
DEFAULT_RETRY, which retries until the call's deadline, unless ``retry=`` says otherwise,
``retry=None`` for one attempt), with the same request id. gRPC calls wait for the channel
to be ready within their deadline.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator, Iterator, Mapping
from typing import Any

from google.protobuf.message import Message

from .errors import AdjudicatorError
from .retry import DEFAULT_RETRY, Attempts, RetryPolicy
from .rpcs import RPCS, Request, answer_as
from .tables import table_key
from .transports import (
    CHANNEL_OPTIONS,
    AsyncGrpcTransport,
    AsyncRestTransport,
    GrpcTransport,
    RestTransport,
)

#: Default deadline of a call, in seconds: every attempt of the call within it, so that a
#: service restarting (a few seconds) is ridden out.
DEFAULT_TIMEOUT = 10.0


def _method(name: str):
    rpc = RPCS[name]

    def method(
        self,
        request: Request = None,
        *,
        timeout: float | None = None,
        request_id: str | None = None,
        locale: str | None = None,
        table: str | None = None,
    ):
        return self.call(
            name, request, timeout=timeout, request_id=request_id, locale=locale, table=table
        )

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
    verify_deal = _method("VerifyDeal")

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
            self.transport.prepare(rpc, request),
            Attempts(self.retry, self.timeout if timeout is None else timeout),
            request_id or uuid.uuid4().hex,
        )

    @staticmethod
    def _metadata(method: str, request: Request, locale: str | None, table: str | None):
        """What travels beside the request: its language and its table key."""
        return locale, table or table_key(method, request)


def _page_request(request: Request, token: str) -> Request:
    """``request`` asking for the page of ``token``."""
    if isinstance(request, Message):
        copy = type(request)()
        copy.CopyFrom(request)
        copy.page_token = token
        return copy
    return {**(request or {}), "pageToken": token}


def _page(answer) -> tuple[list, str]:
    if isinstance(answer, Message):
        return list(answer.actions), answer.next_page_token
    return answer["actions"], answer["nextPageToken"]


def _grpc_options(service_config: Mapping[str, Any] | str | None) -> list[tuple[str, Any]]:
    """Channel options carrying a gRPC service config (a dict or its JSON text)."""
    if service_config is None:
        return []
    text = service_config if isinstance(service_config, str) else json.dumps(service_config)
    return [("grpc.service_config", text)]


def _channel_options(service_config: Mapping[str, Any] | str | None) -> list[tuple[str, Any]]:
    return [*CHANNEL_OPTIONS, *_grpc_options(service_config)]


def grpc_channel(target: str, service_config: Mapping[str, Any] | str | None = None):
    import grpc

    return grpc.insecure_channel(target, options=_channel_options(service_config))


def grpc_aio_channel(target: str, service_config: Mapping[str, Any] | str | None = None):
    import grpc

    return grpc.aio.insecure_channel(target, options=_channel_options(service_config))


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
        locale: str | None = None,
        table: str | None = None,
    ):
        """Any RPC by its name (``"ValidateAction"``)."""
        rpc, prepared, attempts, request_id = self._prepare(method, request, timeout, request_id)
        locale, table = self._metadata(method, request, locale, table)
        while True:
            try:
                answer = self.transport.invoke(
                    rpc, prepared, attempts.timeout(), request_id, locale, table
                )
            except AdjudicatorError as error:
                delay = attempts.retry_after(error)
                if delay is None:
                    raise
                time.sleep(delay)
                continue
            return answer_as(request, answer)

    def iter_legal_actions(
        self, request: Request = None, *, timeout: float | None = None, locale: str | None = None
    ) -> Iterator:
        """Every legal action of ListLegalActions' ``request``, page after page (each page
        a call of its own, with ``timeout``), in the request's form."""
        token = ""
        while True:
            page = self.call(
                "ListLegalActions", _page_request(request, token), timeout=timeout, locale=locale
            )
            actions, token = _page(page)
            yield from actions
            if not token:
                return

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
        locale: str | None = None,
        table: str | None = None,
    ):
        """Any RPC by its name (``"ValidateAction"``)."""
        rpc, prepared, attempts, request_id = self._prepare(method, request, timeout, request_id)
        locale, table = self._metadata(method, request, locale, table)
        while True:
            try:
                answer = await self.transport.invoke(
                    rpc, prepared, attempts.timeout(), request_id, locale, table
                )
            except AdjudicatorError as error:
                delay = attempts.retry_after(error)
                if delay is None:
                    raise
                await asyncio.sleep(delay)
                continue
            return answer_as(request, answer)

    async def iter_legal_actions(
        self, request: Request = None, *, timeout: float | None = None, locale: str | None = None
    ) -> AsyncIterator:
        """As ``Client.iter_legal_actions``, for ``async for``."""
        token = ""
        while True:
            page = await self.call(
                "ListLegalActions", _page_request(request, token), timeout=timeout, locale=locale
            )
            actions, token = _page(page)
            for action in actions:
                yield action
            if not token:
                return

    async def close(self) -> None:
        await self.transport.close()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
