"""The ``samba-adjudicator`` command (docs/api.md#server).

``samba-adjudicator <method> [--input FILE]``: one JSON request on stdin (or FILE), the
REST answer body on stdout. Exit 0 where REST answers 200 (``legal: false`` included), 2
for an invalid argument (REST's 400 body), 1 for any other error (its REST body). Never a
traceback. ``samba-adjudicator serve ...`` delegates to ``service.transport.serve.serve_main``.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys

EXIT_OK, EXIT_ERROR, EXIT_INVALID = 0, 1, 2


def _commands() -> dict[str, str]:
    from ..pipeline.api import METHODS, kebab

    return {kebab(name): name for name in METHODS}


def _parser(commands: dict[str, str]) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="samba-adjudicator",
        description="Stateless Samba rules adjudicator. Each method reads one JSON request "
        "(proto3 JSON of samba.v1.<Method>Request) and prints the REST answer.",
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.add_parser(
        "serve", help="start the gRPC and REST servers (see `serve --help`)", add_help=False
    )
    for cmd, method in commands.items():
        s = sub.add_parser(cmd, help=f"{method}: request JSON on stdin, answer on stdout")
        s.add_argument(
            "--input",
            "-i",
            metavar="FILE",
            help="read the request from FILE instead of stdin ('-': stdin)",
        )
        s.add_argument(
            "--lang",
            metavar="LANG",
            default=os.environ.get("SAMBA_LANG", ""),
            help="language of the answer's messages: en (default), es, it, sv; regional tags "
            "and Accept-Language lists allowed (default: $SAMBA_LANG). docs/i18n.md",
        )
    return p


def _read(path: str | None) -> bytes:
    if path in (None, "-"):
        return sys.stdin.buffer.read()
    with open(path, "rb") as f:
        return f.read()


def run(
    method: str, data: bytes, adjudicator=None, request_id: str | None = None, lang: str = ""
) -> tuple[int, dict]:
    """One CLI call without I/O: (exit status, JSON body). It is answered like a REST call
    (``Runtime.answer``: the same decoding and error boundary), without metrics, its texts
    in ``lang`` (an Accept-Language value; English when empty or unknown)."""
    from ..base.errors import ApiError, internal_error, new_request_id
    from ..codec.error_bodies import rest_body
    from ..codec.jsonio import to_dict
    from ..i18n.localize import localize_error
    from ..i18n.negotiation import choose
    from ..pipeline.call import Call
    from ..pipeline.runtime import Runtime

    request_id = request_id or new_request_id()
    language = choose(lang)
    try:
        if adjudicator is None:
            from ..ops import config, page_tokens
            from ..pipeline.api import Adjudicator

            # the server's settings and environment; the page-token key the CLI's own
            settings = page_tokens.with_cli_key(config.load([], os.environ), os.environ)
            adjudicator = Adjudicator.from_settings(settings)
        runtime = Runtime(None, adjudicator, count_calls=False)
        call = Call(method, data, request_id=request_id, json=True, lang=language)
        response = runtime.answer(call).whole()
    except ApiError as e:
        body = rest_body(localize_error(e, language), request_id)
        return (EXIT_INVALID if e.is_invalid_argument else EXIT_ERROR), body
    except (ValueError, OSError) as e:  # a malformed setting, or no local key file
        logging.getLogger("samba.cli").error("%s", e)
        return EXIT_ERROR, rest_body(internal_error(), request_id)
    return EXIT_OK, to_dict(response)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "serve":
        from .serve import serve_main  # lazily: the servers pull in grpc and FastAPI

        return serve_main(argv[1:]) or 0
    logging.basicConfig(
        level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s"
    )
    try:
        commands = _commands()
    except Exception as e:  # noqa: BLE001 - e.g. generated code missing: no traceback
        print(f"samba-adjudicator: cannot start: {e} (run `make install`)", file=sys.stderr)
        return EXIT_ERROR
    parser = _parser(commands)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_INVALID
    try:
        data = _read(args.input)
    except OSError as e:
        print(f"samba-adjudicator: cannot read {args.input}: {e.strerror}", file=sys.stderr)
        return EXIT_ERROR
    from ..codec.jsonio import dumps

    status, body = run(commands[args.command], data, lang=args.lang)
    sys.stdout.write(dumps(body) + "\n")
    sys.stdout.flush()
    return status


if __name__ == "__main__":
    sys.exit(main())
