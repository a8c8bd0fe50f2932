"""SIGTERM at random moments of a server's start-up (issue 34: a server with a 1 s grace had
not exited 15 s after a SIGTERM sent right after its ready line, on a busy machine).

``sigterm_starts(count, workers)`` starts ``samba-adjudicator serve`` ``count`` times and
sends each a SIGTERM after a random delay between 0 and 1.3 times the time its first start
took to print the ready line (so the signal falls before the handlers, during the start,
around the ready line and after it), and reports how long each took to exit after the
signal. tests/test_drain.py runs a few; ``make bench-abuse`` runs 200.
"""

from __future__ import annotations

import random
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from service_fixtures import serve_command, serve_env

ROOT = Path(__file__).resolve().parent.parent
#: Seconds a start may take to exit after its signal before it counts as hung (killed).
GIVE_UP_SECONDS = 30.0


@dataclass
class Start:
    delay: float  # seconds from the start to the signal
    exit_seconds: float  # from the signal to the exit (GIVE_UP_SECONDS: hung, killed)
    returncode: int | None  # None: hung
    ready: bool  # the ready line was printed before the exit
    log: str  # the server's stderr when it hung or exited other than 0/-SIGTERM


def _one(workers: int, grace: float, delay: float | None) -> tuple[Start, float]:
    """One start, signalled after ``delay`` (None: once ready); also the seconds it took to
    print the ready line (0 when it did not)."""
    with tempfile.TemporaryFile("w+") as log:
        started = time.monotonic()
        proc = subprocess.Popen(
            serve_command("--shutdown-grace-seconds", str(grace), workers=workers),
            stdout=subprocess.PIPE,
            stderr=log,
            env=serve_env(workers=workers),
            cwd=ROOT,
        )
        ready_after = 0.0
        if delay is None:
            assert proc.stdout is not None
            proc.stdout.readline()
            ready_after = time.monotonic() - started
            delay = ready_after
        else:
            time.sleep(max(delay - (time.monotonic() - started), 0))
        signalled = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        try:
            code: int | None = proc.wait(GIVE_UP_SECONDS)
            took = time.monotonic() - signalled
        except subprocess.TimeoutExpired:
            code, took = None, GIVE_UP_SECONDS
            proc.kill()
            proc.wait(10)
        assert proc.stdout is not None
        ready = b'"listening"' in proc.stdout.read() or ready_after > 0
        proc.stdout.close()
        text = ""
        if code not in (0, -signal.SIGTERM):
            log.seek(0)
            text = log.read()[-4000:]
        return Start(delay, took, code, ready, text), ready_after


def sigterm_starts(count: int, workers: int = 1, grace: float = 1.0, seed: int = 34) -> list[Start]:
    """``count`` starts, each signalled at a random moment of its start-up."""
    first, ready_after = _one(workers, grace, None)
    rng = random.Random(seed)
    out = [first]
    for _ in range(count - 1):
        out.append(_one(workers, grace, rng.uniform(0, 1.3 * ready_after))[0])
    return out
