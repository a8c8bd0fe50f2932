"""The listening sockets: binding a port (one clear line when it is taken), holding the ports
of ``--workers N`` while a worker is replaced, and fitting the connection cap to the
open-files limit."""

from __future__ import annotations

import contextlib
import ctypes
import logging
import socket
import struct
from dataclasses import replace

from ..ops.config import worker_ports

log = logging.getLogger("samba.server")

#: Connections the kernel queues on a REST listener before one is accepted.
LISTEN_BACKLOG = 2048


def _addrinfo(host: str, port: int):
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    return infos[0]


class PortUnavailable(OSError):
    """A port the server was told to use cannot be bound: said in one line, naming it."""

    def __init__(self, what: str, flag: str, host: str, port: int, error: OSError) -> None:
        super().__init__(
            f"the {what} port {port} on {host} is not available "
            f"({error.strerror or error}); choose another with {flag} N "
            f"(or SAMBA_{flag[2:].upper().replace('-', '_')})"
        )


def open_socket(
    host: str,
    port: int,
    reuseport: bool,
    what: str = "HTTP",
    flag: str = "--http-port",
    reuseaddr: bool = True,
) -> socket.socket:
    family, type_, proto, _, addr = _addrinfo(host, port)
    sock = socket.socket(family, type_, proto)
    if reuseaddr:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if reuseport:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    if family == socket.AF_INET6:
        sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    try:
        sock.bind(addr)
    except OSError as e:
        sock.close()
        raise PortUnavailable(what, flag, host, port, e) from None
    return sock


def reserve(host: str, port: int, what: str = "HTTP", flag: str = "--http-port") -> socket.socket:
    """``port`` bound with ``SO_REUSEPORT``, for the workers to share, once no other
    process holds it: a second ``serve --workers N`` on the same ports would otherwise join
    the first, and a worker's own port reach two workers. The probe binds without
    ``SO_REUSEPORT`` and listens for an instant, which the kernel refuses while any socket
    is bound there (one in TIME_WAIT aside). 0: any free port, nothing to check.

    The socket kept has no ``SO_REUSEADDR``: while every worker on the port is gone (one
    killed, its replacement starting) it is the port's only socket, and the kernel lets a
    newcomer with ``SO_REUSEADDR`` (uvicorn, gRPC, ``serve`` itself) bind beside a bound,
    non-listening socket only when both set it; with it set, another ``serve --http-port``
    took a worker's own port in 4 of 5 tries and the replacement could never bind (issue
    56). Workers (``SO_REUSEPORT``, same user) still bind beside it. Without
    ``SO_REUSEADDR`` the bind fails while connections of an earlier server without
    ``SO_REUSEPORT`` linger in TIME_WAIT (up to a minute): then the port is held as before
    (``weakly_reserved``), and said in the log."""
    if port:
        probe = open_socket(host, port, reuseport=False, what=what, flag=flag)
        try:
            probe.listen(1)
        except OSError as e:
            raise PortUnavailable(what, flag, host, port, e) from None
        finally:
            probe.close()
    try:
        return open_socket(host, port, True, what, flag, reuseaddr=False)
    except PortUnavailable:
        log.warning(
            "port held weakly: an earlier server's connections linger in TIME_WAIT",
            extra={"fields": {"port": port, "flag": flag}},
        )
        return open_socket(host, port, True, what, flag)


def listen_own_http(settings, port: int, flag: str = "--worker-http-port") -> socket.socket:
    """A worker's own REST port, listening, made by the supervisor and handed to each
    worker it starts on that port (``worker_entry``): while the worker is replaced the port
    stays in LISTEN, which no other bind passes (without ``SO_REUSEPORT`` on both), and the
    connections that arrive meanwhile wait in its queue for the replacement instead of
    being refused."""
    sock = open_socket(settings.host, port, reuseport=False, flag=flag)
    try:
        sock.listen(LISTEN_BACKLOG)
    except OSError as e:
        sock.close()
        raise PortUnavailable("HTTP", flag, settings.host, port, e) from None
    sock.setblocking(False)
    return sock


def check_grpc_port(settings, port: int | None = None, flag: str = "--grpc-port") -> None:
    """Bind the gRPC port (``port``: another, a worker's own) once ourselves first: gRPC's
    own failure is a traceback and a C-core log line that do not say which flag to change."""
    port = settings.grpc_port if port is None else port
    if port:
        open_socket(
            settings.host, port, reuseport=settings.workers > 1, what="gRPC", flag=flag
        ).close()


def bind_http(settings, port: int | None = None, flag: str = "--http-port") -> socket.socket:
    """The REST listener on the HTTP port (``port``: another, a worker's own)."""
    port = settings.http_port if port is None else port
    sock = open_socket(settings.host, port, reuseport=settings.workers > 1, flag=flag)
    sock.listen(LISTEN_BACKLOG)
    sock.setblocking(False)
    return sock


#: The workers' own ports, in ``worker_ports``' order: (listening line field, kind, flag).
OWN_PORTS = (
    ("workerGrpcPorts", "gRPC", "--worker-grpc-port"),
    ("workerHttpPorts", "HTTP", "--worker-http-port"),
)


def own_ports(settings) -> dict[str, list[int]]:
    """The listening line's fields for the workers' own ports (none when not set)."""
    ports = [worker_ports(settings, i) for i in range(settings.workers)]
    return {
        field: [p[k] for p in ports] for k, (field, _, _) in enumerate(OWN_PORTS) if ports[0][k]
    }


def reserve_own_ports(settings) -> dict[tuple[int, int], socket.socket]:
    """The workers' own ports, by (worker, kind: 0 gRPC, 1 HTTP), held by the supervisor so
    that a worker that dies is replaced on its ports, and a taken one is said before any
    worker starts: gRPC's reserved (``reserve``: grpcio binds its own listener), REST's
    listening, handed to the worker (``listen_own_http``)."""
    out: dict[tuple[int, int], socket.socket] = {}
    try:
        for i in range(settings.workers):
            for kind, port in enumerate(worker_ports(settings, i)):
                _, what, flag = OWN_PORTS[kind]
                if port and what == "HTTP":
                    out[i, kind] = listen_own_http(settings, port, flag)
                elif port:
                    out[i, kind] = reserve(settings.host, port, what, flag)
    except OSError:
        for s in out.values():
            s.close()
        raise
    return out


def bind_admin(settings) -> socket.socket:
    """The admin listener's socket (shared by the workers like the API ports)."""
    sock = open_socket(
        settings.host,
        settings.admin_port,
        reuseport=settings.workers > 1,
        what="admin",
        flag="--admin-port",
    )
    sock.listen(128)
    sock.setblocking(False)
    return sock


#: setsockopt options of Linux's classic BPF socket filters (asm-generic/socket.h), which
#: Python's socket module does not name.
SO_ATTACH_FILTER = 26
SO_DETACH_FILTER = 27
#: One instruction, "return 0": every packet dropped (struct sock_filter: code, jt, jf, k).
_DROP_ALL = struct.pack("HBBI", 0x06, 0, 0, 0)


def stop_new_connections(sock: socket.socket) -> None:
    """The listener takes no new connection, and those already queued stay (to be accepted
    and answered): a filter that drops every packet reaching the listening socket, so a
    connection's SYN (and the last ACK of a handshake under way) is dropped; its client
    tries again and is refused once the listener closes, before sending a byte.

    Closing the listener at the end of the drain (uvicorn's shutdown) reset the connections
    queued on it, their requests sent: new REST connections were reset in 7 of 8 drains
    (issue 56). Linux only; elsewhere (no filter) the listener closes as before."""
    program = ctypes.create_string_buffer(_DROP_ALL)
    fprog = struct.pack("HL", 1, ctypes.addressof(program))  # struct sock_fprog
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER, fprog)


def take_new_connections(sock: socket.socket) -> None:
    """Undo ``stop_new_connections`` (a worker's own REST socket, handed to the next
    worker, may carry the filter of the one before)."""
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, SO_DETACH_FILTER, 0)


#: File descriptors kept free beside both servers' connections (logs, the metrics
#: directory, the thread pools' pipes, the listening sockets).
FD_HEADROOM = 256


def fit_connections(settings):
    """Raise the soft limit of open files to the hard one, and lower ``max_connections`` when
    both servers' connections and FD_HEADROOM would not fit: a process out of descriptors
    can no longer accept a health probe."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        target = 1_048_576 if hard == resource.RLIM_INFINITY else hard
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    room = (soft - FD_HEADROOM) // 2
    if settings.max_connections > room:
        log.warning(
            "fewer connections than asked: the open-files limit is too low",
            extra={"fields": {"maxConnections": max(room, 8), "openFilesLimit": soft}},
        )
        settings = replace(settings, max_connections=max(room, 8))
    return settings
