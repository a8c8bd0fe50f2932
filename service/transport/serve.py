"""``samba-adjudicator serve``: the settings read once, the keys resolved once, then one
worker in this process (``service.transport.server.run_single``) or ``--workers N``
processes (``service.transport.supervisor``); the ready line once every server listens.

The whole, its shutdown and its workers are described in ``service.transport.server``.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import shutil
import sys

from samba_adjudicator.engine.build import CURRENT as BUILD

from ..ops import config, page_tokens
from ..ops.logs import setup_logging
from .listeners import PortUnavailable
from .server import run_single
from .supervisor import prepare_metrics_dir, run_supervisor

log = logging.getLogger("samba.server")

#: glibc's malloc arenas a server process may use (``MALLOC_ARENA_MAX`` when set wins).
MALLOC_ARENAS = 2
_M_ARENA_MAX = -8  # mallopt's parameter number (malloc.h)


def announce(line: dict, key_of_its_own: bool = False) -> None:
    """The ready line on stdout (JSON, for programs), and its log record, which says which
    build runs; then one plain line on stderr for the person who ran ``make run``, with the
    playground's URL. ``key_of_its_own``: the page-token key is this server's alone, which
    is warned of after the ready line, so that a start that fails (a taken port) still says
    one line only."""
    url = _playground_url(line["host"], line["httpPort"])
    line = {**line, "build": BUILD.name, "playground": url}
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()
    sys.stderr.write(
        f"samba-adjudicator ready: playground {url}, REST on port {line['httpPort']}, "
        f"gRPC on port {line['grpcPort']} ({BUILD.name} build; Ctrl-C stops)\n"
    )
    sys.stderr.flush()
    fields = {k: v for k, v in line.items() if k != "event"}
    log.info("listening", extra={"fields": {**fields, "buildReason": BUILD.reason}})
    if key_of_its_own:
        page_tokens.warn_per_process(line["host"])


def _playground_url(host: str, port: int) -> str:
    """The playground as a browser on this machine reaches it (a wildcard host: loopback)."""
    shown = {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "[::1]"}.get(host, host)
    if ":" in shown and not shown.startswith("["):
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/playground"


def limit_malloc_arenas() -> None:
    """Few malloc arenas, before any thread starts: glibc gives each thread that allocates
    under contention an arena of its own, and the offload threads decoding large requests
    at once left a loaded server 255-273 MB resident after 40 concurrent megabyte requests,
    past its 256 MiB budget; with two arenas 195-205 MB (docs/service.md). The environment
    variable is set too, so that worker processes started by exec inherit it."""
    wanted = os.environ.setdefault("MALLOC_ARENA_MAX", str(MALLOC_ARENAS))
    try:
        import ctypes  # glibc only

        libc = ctypes.CDLL(None)
        mallopt = getattr(libc, "mallopt", None)
        if mallopt is not None and wanted.isdigit():
            mallopt(_M_ARENA_MAX, int(wanted))
    except OSError:  # not glibc: nothing to limit
        pass


def serve_main(argv: list[str] | None = None) -> int:
    """Entry point of ``samba-adjudicator serve`` (flags: see ``serve --help``)."""
    limit_malloc_arenas()
    try:
        settings = config.load(argv)
    except config.ConfigError as e:
        print(f"samba-adjudicator serve: {e}", file=sys.stderr)
        return 2
    setup_logging(settings.log_level)
    try:
        # every worker gets the same page-token key (a random one is made here, once)
        settings, own = page_tokens.with_server_key(settings)
    except ValueError as e:
        print(f"samba-adjudicator serve: {e}", file=sys.stderr)
        return 2
    ready = functools.partial(announce, key_of_its_own=own)
    created = prepare_metrics_dir(default_temp=settings.workers > 1)
    try:
        if settings.workers == 1:
            return run_single(settings, ready)
        return run_supervisor(settings, ready)
    except PortUnavailable as e:
        print(f"samba-adjudicator serve: {e}", file=sys.stderr)  # one line, no log record
        return 1
    except OSError as e:
        log.error("cannot serve: %s", e)
        print(f"samba-adjudicator serve: {e}", file=sys.stderr)
        return 1
    finally:
        if created:
            shutil.rmtree(created, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(serve_main(sys.argv[1:]))
