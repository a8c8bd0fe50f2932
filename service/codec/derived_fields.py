"""Client-given output-only snapshot fields against ``engine.derived`` (docs/api.md#cards).

Output-only fields may be omitted; when given (non-default: proto3 cannot tell an omitted
``false``/``0`` from a given one) they must agree with what the engine derives, or the
snapshot is refused with DERIVED_FIELD_DISAGREES at the field's path. Checked only once the
snapshot is consistent (the derivations assume it). Which fields, and how each is derived,
is the field table's (codegen/fields.py, written out by codegen/snapshot_code.py): every
OUTPUT_ONLY field (and ``fields.AGREES``), and every field of an output-only message
(``pile``).
"""

from __future__ import annotations

from samba_adjudicator.engine import model as m
from samba_adjudicator.engine.model import Problem

from ..base import pb
from .snapshot_code import compare


def disagreements(msg: pb.Snapshot, snap: m.Snapshot, path: str) -> list[Problem]:
    """Every given output-only field of ``msg`` that disagrees with ``snap`` (loaded from
    it, consistent), at its JSON path under ``path``. A default value stands for "not
    given" (proto3 cannot tell an omitted ``false``/``0`` from a given one)."""
    out: list[Problem] = []
    compare(msg, snap, path, out)
    return out
