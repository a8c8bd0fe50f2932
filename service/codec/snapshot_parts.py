"""What the generated codec (``snapshot_code``, written at build time by
codegen/snapshot_code.py from the field tables) calls at run time: the problems it reports,
the reads it does not write out field by field, the writer's varint, and the refusal of an
enum value the schema does not define (service/codec/enums.py)."""

from __future__ import annotations

from typing import Any

from google.protobuf import descriptor as _d
from google.protobuf import descriptor_pool

from samba_adjudicator.engine import model as m
from samba_adjudicator.engine.deal_seed import commitment_problems
from samba_adjudicator.engine.melds import infer_kind
from samba_adjudicator.engine.messages import problem

from ..base import pb
from ..base.errors import Problems
from .json_scalars import not_a_value

#: What a read answers for a message that is left out (a meld of no known kind).
DROP: Any = object()


def meld_kind(
    number: int, cards: tuple[str, ...], path: str, problems: Problems, start: int
) -> Any:
    """A given kind (output-only, but taken when given), else the one its cards can only be;
    a number the schema or the engine does not know is a problem, and the meld is left out."""
    if not number:
        return infer_kind(cards) if len(problems) == start else DROP
    kind = _MELD_KINDS.get(number)
    if kind is None:
        problems.append(
            problem(f"{path}.kind", "OUT_OF_RANGE", "{kind} is not a meld kind", kind=number)
        )
        return DROP
    return kind


def commitment(given: str, path: str, problems: Problems) -> str:
    problems.extend(commitment_problems(given, f"{path}.dealCommitment"))
    return str(given)


def missing_field(fpath: str) -> m.Problem:
    """The problem of a REQUIRED field left unset at ``fpath``."""
    return problem(fpath, "REQUIRED", "{field} is required", field=fpath)


def needs_one_of(path: str, names: str) -> m.Problem:
    """The problem of a real oneof of the message at ``path`` with no member set."""
    where = path or "request"
    return problem(path, "REQUIRED", "{field} needs one of: {names}", field=where, names=names)


def disagrees(where: str, given: Any, actual: Any) -> m.Problem:
    """A client-given output-only field at ``where`` that is not what the engine derives."""
    return problem(
        where,
        "DERIVED_FIELD_DISAGREES",
        "{field} is {actual}, not {given}",
        field=where,
        actual=repr(actual),
        given=repr(given),
    )


def varint(n: int) -> bytes:
    """A non-negative integer as a varint; a negative one as its 64-bit two's complement."""
    if n < 0:
        n += 1 << 64
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def enum_descriptor(full_name: str) -> _d.EnumDescriptor:
    return descriptor_pool.Default().FindEnumTypeByName(full_name)


def refuse(value: int, enum: _d.EnumDescriptor, path: str, problems: Problems) -> None:
    """A value that ``enum`` does not define, at ``path`` (as the JSON walk words it)."""
    refused = not_a_value(value, enum)
    problems.append(problem(path, "OUT_OF_RANGE", refused.template, **refused.params))


def refuse_items(
    msg: Any,
    name: str,
    path: str,
    known: frozenset[int],
    enum: _d.EnumDescriptor,
    problems: Problems,
    clear: bool,
) -> None:
    """Each value of the repeated enum field ``name`` that ``enum`` does not define, at
    its index; ``clear``: the field keeps the others."""
    values = getattr(msg, name)
    kept = []
    for i, value in enumerate(values):
        if value in known:
            kept.append(value)
        else:
            refuse(value, enum, f"{path}[{i}]", problems)
    if clear:
        del values[:]
        values.extend(kept)


_MELD_KINDS: dict[int, m.MeldKind] = {
    v.number: m.MeldKind[v.name]
    for v in pb.Meld.Kind.DESCRIPTOR.values
    if v.name in m.MeldKind.__members__
}
