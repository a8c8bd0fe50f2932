"""The wire: gRPC (``grpc`` / ``grpc.aio``) and REST (``httpx``), each written once for both
shells (steps.py): the channel or HTTP client is the shell's, and an attempt is a ``Call``
step the shell performs, blocking or awaited.

A transport prepares a request once (``prepare``: the message gRPC sends, or the REST call
with its body) and sends it on each attempt (``send``: steps returning the answer or
raising ``AdjudicatorError``); ``locale`` on a call overrides the transport's; ``table``, the call's
table key, travels as ``x-samba-table`` (tables.py). The request id
travels as ``x-request-id`` (metadata or header); the deadline as the gRPC deadline, or
over REST as the HTTP timeout plus the ``x-server-timeout`` header, so the server stops
working on it too.
"""

from __future__ import annotations

from typing import Any

import grpc
import httpx
from google.protobuf.message import Message

from . import errors
from ._pb import adjudicator_pb2_grpc
from .rpcs import Request, RestCall, Rpc, request_message, rest_answer, rest_call
from .steps import Call, Shell, Steps
from .tables import TABLE_HEADER

#: gRPC channel options of the channels the client makes: a restarted server is found again
#: within about a second (gRPC's default reconnect backoff starts at 1 s and grows to 120 s).
CHANNEL_OPTIONS = (
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.min_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 1000),
)


def _language_metadata(locale: str | None) -> tuple[tuple[str, str], ...]:
    """``accept-language`` metadata: the language of the service's messages (docs/i18n.md)."""
    return (("accept-language", locale),) if locale else ()


def _metadata(
    request_id: str, locale: str | None, table: str | None
) -> tuple[tuple[str, str], ...]:
    """Every call's metadata (gRPC) or headers (REST): its request id, language, table key."""
    table_header = ((TABLE_HEADER, table),) if table else ()
    return (("x-request-id", request_id), *_language_metadata(locale), *table_header)


def _unreached(error: errors.AdjudicatorError, state, request_id: str) -> errors.AdjudicatorError:
    """A call that waited for the channel until its deadline (``wait_for_ready``), the
    channel not ready at the end, is UNAVAILABLE, as over REST, not DEADLINE_EXCEEDED."""
    deadline = error.code is grpc.StatusCode.DEADLINE_EXCEEDED
    if deadline and state is not None and state is not grpc.ChannelConnectivity.READY:
        return errors.local(
            grpc.StatusCode.UNAVAILABLE,
            "cannot reach the server: the channel was not ready before the deadline",
            request_id,
        )
    return error


class GrpcTransport:
    """Calls wait for the channel to be ready (``wait_for_ready``) within their deadline:
    a server restarting is waited for rather than failed at once."""

    def __init__(self, channel: Any, shell: Shell, locale: str | None = None) -> None:
        self.channel = channel  # grpc.Channel or grpc.aio.Channel, as the shell's
        self.stub = adjudicator_pb2_grpc.AdjudicatorStub(self.channel)
        self.locale = locale
        self.connectivity = shell.connectivity(channel)

    def prepare(self, rpc: Rpc, request: Request) -> Message:
        return request_message(rpc, request)

    def send(
        self,
        rpc: Rpc,
        message: Message,
        timeout: float | None,
        request_id: str,
        locale: str | None = None,
        table: str | None = None,
    ) -> Steps:
        """One attempt: the answer, or AdjudicatorError."""
        metadata = _metadata(request_id, locale or self.locale, table)
        options = {"timeout": timeout, "metadata": metadata, "wait_for_ready": True}
        try:
            answer = yield Call(getattr(self.stub, rpc.name), (message,), options)
        except grpc.RpcError as err:  # grpc.aio's AioRpcError too
            error = errors.from_grpc(err, request_id)
            raise _unreached(error, self.connectivity(), request_id) from None
        return answer

    def close(self) -> Steps:
        self.connectivity.close()
        yield Call(self.channel.close)


def _rest_request(
    call: RestCall, timeout: float | None, request_id: str, locale: str | None, table: str | None
) -> dict[str, Any]:
    headers = dict(_metadata(request_id, locale, table))
    if call.body is not None:
        headers["content-type"] = "application/json"
    if timeout is not None:
        headers["x-server-timeout"] = f"{timeout:g}"
    return {
        "method": call.verb,
        "url": call.path,
        "content": call.body,
        "headers": headers,
        "timeout": timeout,
    }


def _rest_failure(err: httpx.HTTPError, request_id: str) -> errors.AdjudicatorError:
    if isinstance(err, httpx.TimeoutException):
        return errors.local(grpc.StatusCode.DEADLINE_EXCEEDED, "no answer in time", request_id)
    return errors.local(grpc.StatusCode.UNAVAILABLE, f"cannot reach the server: {err}", request_id)


def _rest_result(
    rpc: Rpc, call: RestCall, response: httpx.Response, request_id: str
) -> Message | dict[str, Any]:
    request_id = response.headers.get("x-request-id", request_id)
    try:
        body = response.json()
    except ValueError:
        body = None
    if not response.is_success:
        hint = response.headers.get("retry-after")
        raise errors.from_rest(response.status_code, body, request_id, hint)
    if body is None:
        raise errors.AdjudicatorError(
            grpc.StatusCode.INTERNAL,
            f"HTTP {response.status_code} answer is not JSON",
            request_id=request_id,
            http_status=response.status_code,
        )
    return rest_answer(rpc, body, call.as_dict)


class RestTransport:
    """Answers are asked gzip-encoded (httpx's default ``Accept-Encoding``) and parsed once."""

    def __init__(self, http: Any, shell: Shell, locale: str | None = None) -> None:
        self.http = http  # httpx.Client or httpx.AsyncClient, as the shell's
        self.close_http = shell.close_http
        self.locale = locale

    def prepare(self, rpc: Rpc, request: Request) -> RestCall:
        return rest_call(rpc, request)

    def send(
        self,
        rpc: Rpc,
        call: RestCall,
        timeout: float | None,
        request_id: str,
        locale: str | None = None,
        table: str | None = None,
    ) -> Steps:
        """One attempt: the answer, or AdjudicatorError."""
        request = _rest_request(call, timeout, request_id, locale or self.locale, table)
        try:
            response = yield Call(self.http.request, (), request)
        except httpx.HTTPError as err:
            raise _rest_failure(err, request_id) from None
        return _rest_result(rpc, call, response, request_id)

    def close(self) -> Steps:
        yield Call(self.close_http, (self.http,))
