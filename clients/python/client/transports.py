"""The wire: gRPC (``grpc`` / ``grpc.aio``) and REST (``httpx``), sync and asyncio.

A transport sends one complete request message and returns the answer message, or
raises ``AdjudicatorError``. The request id travels as ``x-request-id`` (metadata or
header); the deadline as the gRPC deadline, or over REST as the HTTP timeout plus the
``x-server-timeout`` header, so the server stops working on it too.
"""

from __future__ import annotations

from typing import Any

import grpc
import httpx
from google.protobuf.message import Message

from . import errors
from ._pb import adjudicator_pb2_grpc
from .rpcs import Rpc, rest_answer, rest_target


def _language_metadata(locale: str | None) -> tuple[tuple[str, str], ...]:
    """``accept-language`` metadata: the language of the service's messages (docs/i18n.md)."""
    return (("accept-language", locale),) if locale else ()


class GrpcTransport:
    def __init__(
        self, target: str, channel: grpc.Channel | None = None, locale: str | None = None
    ) -> None:
        self.channel = channel or grpc.insecure_channel(target)
        self.stub = adjudicator_pb2_grpc.AdjudicatorStub(self.channel)
        self.language = _language_metadata(locale)

    def invoke(self, rpc: Rpc, message: Message, timeout: float | None, request_id: str) -> Message:
        try:
            return getattr(self.stub, rpc.name)(
                message, timeout=timeout, metadata=(("x-request-id", request_id), *self.language)
            )
        except grpc.RpcError as err:
            raise errors.from_grpc(err, request_id) from None

    def close(self) -> None:
        self.channel.close()


class AsyncGrpcTransport:
    def __init__(
        self, target: str, channel: grpc.aio.Channel | None = None, locale: str | None = None
    ) -> None:
        self.channel = channel or grpc.aio.insecure_channel(target)
        self.stub = adjudicator_pb2_grpc.AdjudicatorStub(self.channel)
        self.language = _language_metadata(locale)

    async def invoke(
        self, rpc: Rpc, message: Message, timeout: float | None, request_id: str
    ) -> Message:
        try:
            return await getattr(self.stub, rpc.name)(
                message, timeout=timeout, metadata=(("x-request-id", request_id), *self.language)
            )
        except grpc.aio.AioRpcError as err:
            raise errors.from_grpc(err, request_id) from None

    async def close(self) -> None:
        await self.channel.close()


def _rest_request(
    rpc: Rpc, message: Message, timeout: float | None, request_id: str, language: dict
) -> dict[str, Any]:
    verb, path, body = rest_target(rpc, message)
    headers = {"x-request-id": request_id, **language}
    if body is not None:
        headers["content-type"] = "application/json"
    if timeout is not None:
        headers["x-server-timeout"] = f"{timeout:g}"
    return {"method": verb, "url": path, "content": body, "headers": headers, "timeout": timeout}


def _rest_failure(err: httpx.HTTPError, request_id: str) -> errors.AdjudicatorError:
    if isinstance(err, httpx.TimeoutException):
        return errors.local(grpc.StatusCode.DEADLINE_EXCEEDED, "no answer in time", request_id)
    return errors.local(grpc.StatusCode.UNAVAILABLE, f"cannot reach the server: {err}", request_id)


def _rest_result(rpc: Rpc, response: httpx.Response, request_id: str) -> Message:
    request_id = response.headers.get("x-request-id", request_id)
    try:
        body = response.json()
    except ValueError:
        body = None
    if not response.is_success:
        raise errors.from_rest(response.status_code, body, request_id)
    if body is None:
        raise errors.AdjudicatorError(
            grpc.StatusCode.INTERNAL,
            f"HTTP {response.status_code} answer is not JSON",
            request_id=request_id,
            http_status=response.status_code,
        )
    return rest_answer(rpc, body)


class RestTransport:
    def __init__(
        self,
        base_url: str,
        http: httpx.Client | None = None,
        headers: dict[str, str] | None = None,
        locale: str | None = None,
    ) -> None:
        self.http = http or httpx.Client(base_url=base_url, headers=headers)
        self.language = dict(_language_metadata(locale))

    def invoke(self, rpc: Rpc, message: Message, timeout: float | None, request_id: str) -> Message:
        try:
            response = self.http.request(
                **_rest_request(rpc, message, timeout, request_id, self.language)
            )
        except httpx.HTTPError as err:
            raise _rest_failure(err, request_id) from None
        return _rest_result(rpc, response, request_id)

    def close(self) -> None:
        self.http.close()


class AsyncRestTransport:
    def __init__(
        self,
        base_url: str,
        http: httpx.AsyncClient | None = None,
        headers: dict[str, str] | None = None,
        locale: str | None = None,
    ) -> None:
        self.http = http or httpx.AsyncClient(base_url=base_url, headers=headers)
        self.language = dict(_language_metadata(locale))

    async def invoke(
        self, rpc: Rpc, message: Message, timeout: float | None, request_id: str
    ) -> Message:
        try:
            response = await self.http.request(
                **_rest_request(rpc, message, timeout, request_id, self.language)
            )
        except httpx.HTTPError as err:
            raise _rest_failure(err, request_id) from None
        return _rest_result(rpc, response, request_id)

    async def close(self) -> None:
        await self.http.aclose()
