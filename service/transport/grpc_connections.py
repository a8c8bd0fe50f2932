"""Connection accounting for the gRPC server, which has none of its own to offer: past
``--max-connections`` grpc core refuses every new connection until an old one closes, so a
thousand idle or never-active HTTP/2 connections locked every new client (and the health
checks) out until their idle timeout, about 70 s.

``IdleEvictor`` watches the process's connected sockets on the gRPC port (``/proc``: the
socket inodes of this process's descriptors, their state in ``/proc/self/net/tcp*``) and,
when they reach the cap, shuts down the ones that have exchanged no data for the longest
(``TCP_INFO``: ``tcpi_last_data_recv`` / ``tcpi_last_data_sent``), at least MIN_IDLE
seconds idle, until EVICT_TO of the cap is left. grpc core sees the peer gone and closes
them; their clients reconnect (an idle channel does so on its next call). grpc's own cap is
set EVICT_HEADROOM above, so that it only acts between two looks of the evictor.

Kept because grpcio's own options do not pass tests/test_connection_limits.py's
``test_idle_grpc_connections_give_way_to_new_ones`` (cap 50, ``--idle-timeout-seconds
600``, 134 idle HTTP/2 connections). Tried on 2026-12-07, grpcio 1.85.4, without the
evictor: the options as set (``grpc.max_allowed_incoming_connections`` cap + 64,
``grpc.max_connection_idle_ms`` 600 s), the cap alone, and keepalive enforcement
(``grpc.keepalive_time_ms`` 1000, ``keepalive_timeout_ms`` 500): the new client's health
check ran out its 10 s (DEADLINE_EXCEEDED), locked out. ``grpc.max_connection_idle_ms`` or
``grpc.max_connection_age_ms`` at 1 s let it in, but close every connection after a second,
idle or (age) busy, cap reached or not: ``--idle-timeout-seconds`` would mean nothing and
every client would reconnect between two calls. grpc core has no option that closes the
idlest connection when the cap is reached.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import struct
import threading

log = logging.getLogger("samba.grpc")

#: Seconds between two looks (only the descriptor count, unless it nears the cap).
CHECK_EVERY = 0.25
#: Connections grpc core itself takes beyond ``--max-connections``.
EVICT_HEADROOM = 64
#: Share of the cap left after an eviction: room for a burst of newcomers.
EVICT_TO = 0.9
#: Seconds without data before a connection may be evicted.
MIN_IDLE = 1.0
_ESTABLISHED = "01"
# struct tcp_info: 8 one-byte fields, then 32-bit ones; last_data_sent is the 10th of
# those, last_data_recv the 12th (linux/tcp.h)
_LAST_SENT, _LAST_RECV = 8 + 4 * 9, 8 + 4 * 11


def _idle_ms(fd: int) -> int | None:
    """Milliseconds since the connection on ``fd`` last sent or received data."""
    try:
        sock = socket.socket(fileno=os.dup(fd))
    except OSError:
        return None
    try:
        info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
        sent = struct.unpack_from("I", info, _LAST_SENT)[0]
        recv = struct.unpack_from("I", info, _LAST_RECV)[0]
        return min(sent, recv)
    except OSError:
        return None
    finally:
        sock.close()  # the duplicate only: the connection stays grpc's


def _socket_fds() -> dict[str, int]:
    """Socket inode -> descriptor, for this process."""
    out = {}
    for name in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):
            target = os.readlink(f"/proc/self/fd/{name}")
            if target.startswith("socket:["):
                out[target[8:-1]] = int(name)
    return out


def _established_inodes(ports: tuple[int, ...]) -> list[str]:
    """Inodes of the connected sockets whose local port is one of ``ports``."""
    hex_ports = {f"{port:04X}" for port in ports}
    inodes = []
    for table in ("/proc/self/net/tcp", "/proc/self/net/tcp6"):
        with contextlib.suppress(OSError), open(table) as f:
            next(f, None)
            for line in f:
                cols = line.split()
                if cols[3] == _ESTABLISHED and cols[1].rsplit(":", 1)[1] in hex_ports:
                    inodes.append(cols[9])
    return inodes


class IdleEvictor:
    """Keeps the connections of the gRPC ports (the shared one and the worker's own) under
    ``cap`` by evicting the idlest ones."""

    def __init__(self, ports: tuple[int, ...], cap: int) -> None:
        self.ports = ports
        self.cap = cap
        self.evicted = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="grpc-evictor", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.wait(CHECK_EVERY):
            try:
                # cheap first: every descriptor of the process (both servers' connections)
                if len(os.listdir("/proc/self/fd")) >= self.cap:
                    self.evict()
            except Exception:  # noqa: BLE001 - accounting must never stop the server
                log.exception("connection accounting failed")

    def evict(self) -> int:
        """Shut down the idlest connections above EVICT_TO of the cap; how many."""
        fds = _socket_fds()
        connected = [fds[i] for i in _established_inodes(self.ports) if i in fds]
        if len(connected) < self.cap:
            return 0
        idle = [(ms, fd) for fd in connected if (ms := _idle_ms(fd)) is not None]
        idle = sorted((x for x in idle if x[0] >= MIN_IDLE * 1000), reverse=True)
        surplus = len(connected) - int(self.cap * EVICT_TO)
        done = 0
        for _, fd in idle[:surplus]:
            with contextlib.suppress(OSError):
                sock = socket.socket(fileno=os.dup(fd))
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                    done += 1
                finally:
                    sock.close()
        if done:
            self.evicted += done
            log.warning(
                "idle gRPC connections closed to make room",
                extra={"fields": {"closed": done, "connections": len(connected)}},
            )
        return done
