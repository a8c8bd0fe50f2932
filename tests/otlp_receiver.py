"""A real OTLP/HTTP receiver for the tracing tests: ``POST /v1/traces`` with an
``ExportTraceServiceRequest`` (protobuf), decoded with ``opentelemetry-proto``, the spans kept
for the test to read. Serves on 127.0.0.1, any free port, in a thread. Also collectors that
cannot take spans: a closed port, and one that accepts and never answers."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
from opentelemetry.proto.trace.v1 import trace_pb2


class Receiver:
    def __init__(self) -> None:
        self.spans: list[tuple[dict, trace_pb2.Span]] = []  # (resource attributes, span)
        self.posts: list[str] = []  # the paths posted to
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                receiver._received(self.path, self.headers.get("content-type", ""), body)
                out = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("content-type", "application/x-protobuf")
                self.send_header("content-length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def _received(self, path: str, content_type: str, body: bytes) -> None:
        assert content_type == "application/x-protobuf", content_type
        request = trace_service_pb2.ExportTraceServiceRequest.FromString(body)
        with self._lock:
            self.posts.append(path)
            for rs in request.resource_spans:
                resource = {a.key: a.value.string_value for a in rs.resource.attributes}
                for ss in rs.scope_spans:
                    self.spans.extend((resource, span) for span in ss.spans)

    def __enter__(self) -> Receiver:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    def wait_for(self, pred, timeout: float = 30.0) -> tuple[dict, trace_pb2.Span]:
        """The first span ``pred`` accepts, waiting for it (generous: a loaded machine)."""
        end = time.monotonic() + timeout
        while True:
            with self._lock:
                for resource, span in self.spans:
                    if pred(span):
                        return resource, span
            if time.monotonic() > end:
                raise AssertionError(f"no such span within {timeout} s; got {len(self.spans)}")
            time.sleep(0.05)


def attributes(span: trace_pb2.Span) -> dict:
    """A span's attributes as plain values."""
    out: dict = {}
    for a in span.attributes:
        kind = a.value.WhichOneof("value")
        out[a.key] = getattr(a.value, kind) if kind else None
    return out


def closed_port_url() -> str:
    """The URL of a collector that is not there: a port on 127.0.0.1 nobody listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


@contextlib.contextmanager
def silent_collector() -> Iterator[str]:
    """A collector that accepts every connection and never answers (nor reads): its URL."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                held.append(listener.accept()[0])
            except OSError:  # closed: the test is over
                return

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        listener.close()
        for conn in held:
            conn.close()
