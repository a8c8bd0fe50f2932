"""The client's work without its I/O, and the two shells that do the I/O: blocking and asyncio.

Every public method of ``Client`` and ``AsyncClient`` is written once (api.py's ``Core``), as
a generator of *steps*: ``Call`` (one I/O call: an RPC on a channel, an HTTP request, a
close), ``Sleep`` (a retry's backoff) and, in an iteration, ``Item`` (a value for the
caller). The core sends nothing itself; a shell performs each step and sends the result
back into the generator (or throws the exception into it): ``BLOCKING`` calls and sleeps
(``time.sleep``), ``ASYNCIO`` awaits the call's result and ``asyncio.sleep``. Which channel
and HTTP client a call goes through is the shell's too (``grpc`` or ``grpc.aio``,
``httpx.Client`` or ``httpx.AsyncClient``), so the same ``Call`` of a stub method blocks in
one and is awaited in the other. Nothing else differs between the two clients.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import time
from collections.abc import AsyncIterator, Callable, Generator, Iterator, Mapping
from typing import Any, NamedTuple, Protocol

import grpc
import httpx


class Call(NamedTuple):
    """``function(*args, **kwargs)``: blocking in one shell, its result awaited in the other."""

    function: Callable[..., Any]
    args: tuple[Any, ...] = ()
    kwargs: Mapping[str, Any] = {}


class Sleep(NamedTuple):
    seconds: float


class Item(NamedTuple):
    """One value of an iteration, for the caller (``for`` / ``async for``)."""

    value: Any


class _Done(NamedTuple):
    """The core's end, with what it returned."""

    value: Any


Step = Call | Sleep | Item
#: A core method's work: steps out, each step's result (or exception) in, its value returned.
Steps = Generator[Step, Any, Any]


def iteration(core: Callable[..., Steps]) -> Callable[..., Steps]:
    """Marks a core method whose steps yield Items: each shell makes it an (async) iterator."""
    core.iteration = True  # type: ignore[attr-defined]
    return core


def _blocking(steps: Steps) -> Item | _Done:
    """Performs ``steps`` blocking up to its next Item, or its end."""
    send: Callable[[Any], Step] = steps.send
    value: Any = None
    while True:
        try:
            step = send(value)
        except StopIteration as stop:
            return _Done(stop.value)
        if isinstance(step, Item):
            return step
        send, value = steps.send, None
        try:
            if isinstance(step, Sleep):
                time.sleep(step.seconds)
            else:
                value = step.function(*step.args, **step.kwargs)
        except BaseException as error:  # thrown into the core, which raises it or recovers
            send, value = steps.throw, error


async def _awaiting(steps: Steps) -> Item | _Done:
    """As ``_blocking``, each Call's result awaited and each Sleep ``asyncio.sleep``."""
    send: Callable[[Any], Step] = steps.send
    value: Any = None
    while True:
        try:
            step = send(value)
        except StopIteration as stop:
            return _Done(stop.value)
        if isinstance(step, Item):
            return step
        send, value = steps.send, None
        try:
            if isinstance(step, Sleep):
                await asyncio.sleep(step.seconds)
            else:
                value = await step.function(*step.args, **step.kwargs)
        except BaseException as error:
            send, value = steps.throw, error


def _blocking_method(core: Callable[..., Steps]) -> Callable[..., Any]:
    if getattr(core, "iteration", False):

        def iterate(client: Any, *args: Any, **kwargs: Any) -> Iterator[Any]:
            steps = core(client, *args, **kwargs)
            while type(out := _blocking(steps)) is Item:
                yield out.value

        return iterate

    def perform(client: Any, *args: Any, **kwargs: Any) -> Any:
        return _blocking(core(client, *args, **kwargs)).value

    return perform


def _asyncio_method(core: Callable[..., Steps]) -> Callable[..., Any]:
    if getattr(core, "iteration", False):

        async def iterate(client: Any, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
            steps = core(client, *args, **kwargs)
            while type(out := await _awaiting(steps)) is Item:
                yield out.value

        return iterate

    async def perform(client: Any, *args: Any, **kwargs: Any) -> Any:
        return (await _awaiting(core(client, *args, **kwargs))).value

    return perform


class Connectivity(Protocol):
    """A channel's connectivity now (None before it said), until ``close``."""

    def __call__(self) -> grpc.ChannelConnectivity | None: ...

    def close(self) -> None: ...


class _Subscribed:
    """A blocking channel's connectivity: it tells only a subscriber, as it changes."""

    def __init__(self, channel: grpc.Channel) -> None:
        self.channel = channel
        self.state: grpc.ChannelConnectivity | None = None
        channel.subscribe(self._watch)

    def _watch(self, state: grpc.ChannelConnectivity) -> None:
        self.state = state

    def __call__(self) -> grpc.ChannelConnectivity | None:
        return self.state

    def close(self) -> None:
        self.channel.unsubscribe(self._watch)


class _Asked:
    """A ``grpc.aio`` channel's connectivity: it says when asked."""

    def __init__(self, channel: grpc.aio.Channel) -> None:
        self.channel = channel

    def __call__(self) -> grpc.ChannelConnectivity:
        return self.channel.get_state()

    def close(self) -> None:
        pass


@dataclasses.dataclass(frozen=True)
class Shell:
    """What a client of one kind does the I/O with, and how it makes a core method its own."""

    name: str
    method_of: Callable[[Callable[..., Steps]], Callable[..., Any]]
    grpc_channel: Callable[..., Any]  # (target, options=...) -> a channel
    http_client: Callable[..., Any]  # (base_url=..., headers=...) -> an httpx client
    close_http: Callable[[Any], Any]  # an httpx client -> what closes it
    connectivity: Callable[[Any], Connectivity]  # a channel -> its connectivity

    def method(self, core: Callable[..., Steps], owner: type) -> Callable[..., Any]:
        """``core`` as a method of ``owner``: same name, signature and docstring."""
        method = functools.wraps(core)(self.method_of(core))
        method.__qualname__ = f"{owner.__qualname__}.{core.__name__}"
        return method


BLOCKING = Shell(
    "blocking",
    _blocking_method,
    grpc.insecure_channel,
    httpx.Client,
    httpx.Client.close,
    _Subscribed,
)
ASYNCIO = Shell(
    "asyncio",
    _asyncio_method,
    grpc.aio.insecure_channel,
    httpx.AsyncClient,
    httpx.AsyncClient.aclose,
    _Asked,
)
