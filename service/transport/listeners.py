"""The listening sockets: binding a port (one clear line when it is taken) and fitting the
connection cap to the open-files limit."""

from __future__ import annotations

import logging
import socket

from ..ops.config import worker_ports

log = logging.getLogger("samba.server")


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
    host: str, port: int, reuseport: bool, what: str = "HTTP", flag: str = "--http-port"
) -> socket.socket:
    family, type_, proto, _, addr = _addrinfo(host, port)
    sock = socket.socket(family, type_, proto)
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
    is bound there (one in TIME_WAIT aside). 0: any free port, nothing to check."""
    if port:
        probe = open_socket(host, port, reuseport=False, what=what, flag=flag)
        try:
            probe.listen(1)
        except OSError as e:
            raise PortUnavailable(what, flag, host, port, e) from None
        finally:
            probe.close()
    return open_socket(host, port, True, what, flag)


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
    sock.listen(2048)
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


def reserve_own_ports(settings) -> list[socket.socket]:
    """The workers' own ports, bound (never listening) by the supervisor so that a worker
    that dies is replaced on its ports, and a taken one is said before any worker starts."""
    out = []
    try:
        for i in range(settings.workers):
            for port, (_, what, flag) in zip(worker_ports(settings, i), OWN_PORTS, strict=True):
                if port:
                    out.append(reserve(settings.host, port, what, flag))
    except OSError:
        for s in out:
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
        settings = settings.model_copy(update={"max_connections": max(room, 8)})
    return settings
