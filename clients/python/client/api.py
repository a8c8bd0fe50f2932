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

The two clients are one: every public method is written once in ``Core``, as steps
(steps.py) that each client's shell performs, blocking or on asyncio; ``Client`` and
``AsyncClient`` add only their context manager, and the method of each RPC, typed with its
request and response messages (``_pb/rpc_methods.py``, generated from the schema when the
client is built: an RPC added to the .proto is a method here).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from typing import Any, ClassVar, Self

from google.protobuf.message import Message

from ._pb.rpc_methods import AsyncMethods, BlockingMethods
from .errors import AdjudicatorError
from .retry import DEFAULT_RETRY, Attempts, RetryPolicy
from .rpcs import RPCS, Request, answer_as
from .steps import ASYNCIO, BLOCKING, Item, Shell, Sleep, iteration
from .tables import table_key
from .transports import CHANNEL_OPTIONS, GrpcTransport, RestTransport

#: Default deadline of a call, in seconds: every attempt of the call within it, so that a
#: service restarting (a few seconds) is ridden out.
DEFAULT_TIMEOUT = 10.0


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


def _channel_options(service_config: Mapping[str, Any] | str | None) -> list[tuple[str, Any]]:
    """The client's channel options, and a gRPC service config (a dict or its JSON text)."""
    if service_config is None:
        return list(CHANNEL_OPTIONS)
    text = service_config if isinstance(service_config, str) else json.dumps(service_config)
    return [*CHANNEL_OPTIONS, ("grpc.service_config", text)]


class Core:
    """Both clients, written once. Each public method here is steps (steps.py; what it
    returns is left unannotated, an answer in one client and an awaitable in the other); a
    client class names its shell (``class Client(Core, shell=BLOCKING)``), which makes every one
    of them its own kind of method: blocking, or a coroutine (an async iterator for
    ``iter_legal_actions``). The core calls the core (``Core.call``), never ``self.call``,
    which is the shell's."""

    _shell: ClassVar[Shell]

    def __init_subclass__(cls, shell: Shell | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if shell is None:  # a subclass of a client keeps its shell
            return
        cls._shell = shell
        for name, core in vars(Core).items():
            if not name.startswith("_") and callable(core) and not isinstance(core, classmethod):
                setattr(cls, name, shell.method(core, cls))

    def __init__(
        self, transport, timeout: float | None, retry: RetryPolicy | None = DEFAULT_RETRY
    ) -> None:
        self.transport = transport
        self.timeout = timeout
        self.retry = retry

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
    ) -> Self:
        """``channel``: a ``grpc`` channel (a ``grpc.aio`` one for ``AsyncClient``).
        ``service_config``: a gRPC service config for the channel this makes (load
        balancing, gRPC's own retryPolicy, timeouts); ignored when ``channel`` is given.
        ``locale`` (``es``, ``it-IT``, …) chooses the language of the messages."""
        channel = channel or cls._shell.grpc_channel(
            target, options=_channel_options(service_config)
        )
        return cls(GrpcTransport(channel, cls._shell, locale), timeout, retry)

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
    ) -> Self:
        """``http``: an ``httpx.Client`` (an ``httpx.AsyncClient`` for ``AsyncClient``).
        ``locale`` (``es``, ``it-IT``, …) chooses the language of the messages."""
        http = http or cls._shell.http_client(base_url=base_url, headers=headers)
        return cls(RestTransport(http, cls._shell, locale), timeout, retry)

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
        rpc = RPCS[method]
        prepared = self.transport.prepare(rpc, request)
        attempts = Attempts(self.retry, self.timeout if timeout is None else timeout)
        request_id = request_id or uuid.uuid4().hex
        table = table or table_key(method, request)
        while True:
            try:
                answer = yield from self.transport.send(
                    rpc, prepared, attempts.timeout(), request_id, locale, table
                )
            except AdjudicatorError as error:
                delay = attempts.retry_after(error)
                if delay is None:
                    raise
                yield Sleep(delay)
                continue
            return answer_as(request, answer)

    @iteration
    def iter_legal_actions(
        self, request: Request = None, *, timeout: float | None = None, locale: str | None = None
    ):
        """Every legal action of ListLegalActions' ``request``, page after page (each page
        a call of its own, with ``timeout``), in the request's form (``async for`` on an
        ``AsyncClient``)."""
        token = ""
        while True:
            page = yield from Core.call(
                self,
                "ListLegalActions",
                _page_request(request, token),
                timeout=timeout,
                locale=locale,
            )
            actions, token = _page(page)
            for action in actions:
                yield Item(action)
            if not token:
                return

    def close(self):
        """Closes the channel or the HTTP client."""
        yield from self.transport.close()


class Client(Core, BlockingMethods, shell=BLOCKING):
    """A blocking client. ``Client.grpc(target)`` or ``Client.rest(base_url)``."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncClient(Core, AsyncMethods, shell=ASYNCIO):
    """An asyncio client: ``await client.deal(...)``. ``AsyncClient.grpc`` / ``.rest``."""

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
