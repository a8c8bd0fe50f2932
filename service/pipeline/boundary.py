"""The one error boundary: whatever goes wrong answering a call becomes an ``ApiError``.

Every transport (gRPC, REST) and the CLI answer through ``Runtime.answer``, which runs the
whole call (decoding included) inside ``as_api_error``; nothing else translates exceptions.
The REST middleware applies the same translation to failures of the web framework itself,
outside any call.

- ``ApiError``: as it is;
- engine ``InvalidInput``: INVALID_ARGUMENT, the engine's kind as ErrorInfo reason, field
  paths in JSON names;
- ``RulesetError`` (a ruleset reference that cannot be resolved): INVALID_ARGUMENT;
- anything else: logged with its traceback, answered INTERNAL (never UNKNOWN, never a
  crash).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from samba_adjudicator.engine.model import InvalidInput, Problem
from samba_adjudicator.engine.ruleset import RulesetError

from ..base.errors import (
    ApiError,
    ProblemList,
    internal_error,
    invalid_argument,
)
from ..codec.paths import json_path

log = logging.getLogger("samba.api")


def as_api_error(exc: Exception, where: str) -> ApiError:
    """The answer for ``exc`` raised while answering ``where`` (an RPC name)."""
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, InvalidInput):
        return invalid_argument(_json_paths(exc.problems), reason=exc.kind or "INVALID_REQUEST")
    if isinstance(exc, RulesetError):
        return invalid_argument(_json_paths(exc.problems))
    log.error("unexpected error in %s", where, exc_info=exc)
    return internal_error()


def _json_paths(problems: Iterable[Problem]) -> list[Problem]:
    out = ProblemList()
    for p in problems:  # one at a time: the list keeps a bounded number of them
        out.append(Problem(json_path(p.field), p.reason, p.description, p.template, p.params))
    out.omitted += getattr(problems, "omitted", 0)  # a ProblemList's uncounted rest
    return out
