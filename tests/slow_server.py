"""``samba-adjudicator`` whose every call first waits: the launcher of the tests that need
a call in flight (drain, deadlines, connection limits), or an event loop held (readiness);
and whose JSON parses are counted, for the test that a body is parsed once.

    SAMBA_TEST_DELAY_SECONDS=2 python tests/slow_server.py serve --grpc-port 0 ...
    SAMBA_TEST_PARSE_LOG=/tmp/parses python tests/slow_server.py serve ...
    SAMBA_TEST_START_FAILS=/tmp/flag python tests/slow_server.py serve --workers 2 ...

``SAMBA_TEST_START_FAILS``: a file; while it exists, a worker process fails to start (its
``Worker.start`` raises as a port that cannot be bound does), for the test of a replacement
that cannot start (tests/test_worker_replacement.py).

``SAMBA_TEST_PARSE_LOG``: a file to which every JSON text the service reads (orjson's
``loads``, what ``service.codec.json_text.loads`` calls, itself unchanged) adds a line.

The variable is read here, by the tests' launcher, never by the service: it sets the
``CALL_DELAY_SECONDS`` seam (service/pipeline/runtime.py), then runs the real command line. It
is read at import, so worker processes (multiprocessing spawn imports this module again)
wait too. tests/service_fixtures.py's ServerProcess starts servers this way when a test
passes the variable.
"""

from __future__ import annotations

import os
import sys

import orjson

from samba_adjudicator.service.pipeline import runtime
from samba_adjudicator.service.transport import cli, server

ENV = "SAMBA_TEST_DELAY_SECONDS"
runtime.CALL_DELAY_SECONDS = float(os.environ.get(ENV) or 0.0)
#: Set (to anything): a delayed cheap call waits on its transport's event loop, holding it.
ON_LOOP_ENV = "SAMBA_TEST_DELAY_ON_LOOP"
runtime.CALL_DELAY_ON_LOOP = bool(os.environ.get(ON_LOOP_ENV))

PARSE_LOG_ENV = "SAMBA_TEST_PARSE_LOG"
_parse_log = os.environ.get(PARSE_LOG_ENV)
if _parse_log:
    _loads = orjson.loads

    def _counted(text):
        with open(_parse_log, "a") as out:
            out.write(f"{len(text)}\n")
        return _loads(text)

    orjson.loads = _counted

START_FAILS_ENV = "SAMBA_TEST_START_FAILS"
_start_fails = os.environ.get(START_FAILS_ENV)
if _start_fails:
    _start = server.Worker.start

    def _failing_start(self):
        if os.path.exists(_start_fails):
            raise OSError(f"cannot bind (the test's {START_FAILS_ENV} file exists)")
        return _start(self)

    server.Worker.start = _failing_start

if __name__ == "__main__":
    sys.exit(cli.main())
