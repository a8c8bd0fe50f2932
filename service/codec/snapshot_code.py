"""The snapshot's codec, the required walks and the enum checks, written out of the field
tables at build time by codegen/snapshot_code.py: ``read``, ``write_head`` /
``write_tail`` (and ``SIGNATURE``, the field between them), ``missing``, ``disagreements``,
``WALKS`` and ``ENUM_CHECKS`` (their contracts: that generator's ``source``). The set-up
(proto/generate.sh) writes the module beside the generated protobuf code; the compiled
build's staging (setup.py) compiles that same text in this module's place.
"""

from __future__ import annotations

from samba_adjudicator.schema.v1.snapshot_code import (
    ENUM_CHECKS,
    SIGNATURE,
    WALKS,
    disagreements,
    missing,
    read,
    write_head,
    write_tail,
)

__all__ = [
    "ENUM_CHECKS",
    "SIGNATURE",
    "WALKS",
    "disagreements",
    "missing",
    "read",
    "write_head",
    "write_tail",
]
