"""``samba-adjudicator`` whose every call first waits: the launcher of the tests that need
a call in flight (drain, deadlines, connection limits), or an event loop held (readiness).

    SAMBA_TEST_DELAY_SECONDS=2 python tests/slow_server.py serve --grpc-port 0 ...

The variable is read here, by the tests' launcher, never by the service: it sets the
``CALL_DELAY_SECONDS`` seam (service/pipeline/runtime.py), then runs the real command line. It
is read at import, so worker processes (multiprocessing spawn imports this module again)
wait too. tests/service_fixtures.py's ServerProcess starts servers this way when a test
passes the variable.
"""

from __future__ import annotations

import os
import sys

from samba_adjudicator.service.pipeline import runtime
from samba_adjudicator.service.transport import cli

ENV = "SAMBA_TEST_DELAY_SECONDS"
runtime.CALL_DELAY_SECONDS = float(os.environ.get(ENV) or 0.0)
#: Set (to anything): a delayed cheap call waits on its transport's event loop, holding it.
ON_LOOP_ENV = "SAMBA_TEST_DELAY_ON_LOOP"
runtime.CALL_DELAY_ON_LOOP = bool(os.environ.get(ON_LOOP_ENV))

if __name__ == "__main__":
    sys.exit(cli.main())
