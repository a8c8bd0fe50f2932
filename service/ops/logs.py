"""The server's logs: one JSON object per line on stderr, uvicorn's loggers folded in."""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime

from .tracing import Record, log_ids

#: The per-call lines' logger (``service.pipeline.runtime``).
CALLS = logging.getLogger("samba.server")


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ts, level, logger, message, and any ``fields`` extra."""

    def format(self, record: logging.LogRecord) -> str:
        out = {
            "ts": datetime.fromtimestamp(record.created, UTC)
            .isoformat(timespec="milliseconds")
            .replace("+00:00", "Z"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            "pid": record.process,
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            out.update(fields)
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False, default=str)


def setup_logging(level: str) -> None:
    root = logging.getLogger()
    for h in list(root.handlers):
        root.removeHandler(h)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root.addHandler(handler)
    root.setLevel(level.upper())
    # uvicorn's own loggers propagate to ours; its per-request access log is replaced by
    # the service's request lines (service.pipeline.runtime).
    for name in ("uvicorn", "uvicorn.error"):
        logging.getLogger(name).handlers.clear()
        logging.getLogger(name).propagate = True
    logging.getLogger("uvicorn.access").disabled = True


def log_call(record: Record, ids: tuple[str, str] | None = None) -> None:
    """One call's JSON line, from its ``Record``: ``DEBUG`` for answers, ``WARNING`` for
    errors, ``ERROR`` for the server's own failures; ``traceId``/``spanId``:
    ``tracing.log_ids``."""
    err, call = record.error, record.call
    if err is None:
        level = logging.DEBUG
    elif err.code in ("INTERNAL", "UNKNOWN", "DATA_LOSS"):
        level = logging.ERROR
    else:
        level = logging.WARNING
    if not CALLS.isEnabledFor(level):
        return
    trace_id, span_id = log_ids(call.trace, ids)
    line = {
        "method": call.method,
        "transport": call.transport,
        "outcome": record.outcome,
        "durationMs": round(record.elapsed * 1000, 3),
        "requestId": call.request_id,
        "traceId": trace_id,
        "spanId": span_id,
    }
    if err is not None:
        line.update(code=err.code, reason=err.reason, message=err.message)
    CALLS.log(level, "request", extra={"fields": line})
