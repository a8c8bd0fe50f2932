"""The required-field check: every field marked ``google.api.field_behavior = REQUIRED``
and every real ``oneof`` of a request.

It works on any message of the API, so gRPC (binary) requests get the same check as JSON
ones (``service.pipeline.decoding`` runs it on every request and reports it together with
the problems parsing found: ``with_required``). Each message's walk is written out at build
time from the field tables (``snapshot_code.WALKS``, by codegen/snapshot_code.py): it goes
down only into the message fields whose type holds a REQUIRED field or a oneof somewhere
below (of a snapshot, the sides' melds, the turn and the result).
"""

from __future__ import annotations

from collections.abc import Iterable

from google.protobuf.message import Message

from samba_adjudicator.engine.model import Problem

from ..base.errors import ProblemList
from .snapshot_code import WALKS


def missing_required(msg: Message, path: str = "", skip: tuple[str, ...] = ()) -> list[Problem]:
    """Every REQUIRED field left unset in ``msg`` and its set sub-messages, with JSON paths.

    Set means: a repeated field non-empty, a field with presence present, any other scalar
    or enum different from its default (an enum at ``*_UNSPECIFIED`` is unset). Every real
    ``oneof`` (``Action.kind``) needs one member set. ``skip``: a request's top-level fields
    (proto names) checked elsewhere, left out entirely. In field order: a message's REQUIRED
    fields, then the set message fields below, then its oneofs.
    """
    out: list[Problem] = []
    walk = WALKS.get(msg.DESCRIPTOR.full_name)
    if walk is not None:  # None: nothing REQUIRED in it or below it
        walk(msg, path, out, skip)
    return out


def with_required(
    msg: Message, problems: Iterable[Problem], skip: tuple[str, ...] = ()
) -> list[Problem]:
    """``problems`` plus every missing REQUIRED field not already explained by one
    (``skip``: as in ``missing_required``)."""
    out = ProblemList(problems)
    out.extend(unexplained(out, missing_required(msg, skip=skip)))
    return out


def unexplained(reported: Iterable[Problem], missing: Iterable[Problem]) -> list[Problem]:
    """The ``missing`` fields no problem in ``reported`` already explains (``_covers``), as
    ``with_required`` adds them; called alone for a field its handler requires only in some
    requests (ApplyAction's ``action`` without ``computer``, Deal's ``players`` without
    ``previous``)."""
    fields = [p.field for p in reported]
    return [p for p in missing if not any(_covers(r, p.field) for r in fields)]


def _covers(reported: str, path: str) -> bool:
    """A problem at ``reported`` already explains a missing field at ``path``."""
    if reported == path or not reported:
        return True
    return (
        path.startswith(reported + ".")
        or path.startswith(reported + "[")
        or reported.startswith(path + ".")
        or reported.startswith(path + "[")
    )
