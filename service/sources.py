"""How a transport received a request's snapshot, so that a position sent again is not
parsed and checked again."""

from __future__ import annotations

from dataclasses import dataclass

from samba_adjudicator.engine.model import Snapshot


@dataclass(frozen=True, slots=True)
class SnapshotSource:
    """``key`` is the exact encoding of a request's ``snapshot`` (``("pb", bytes)``: its
    protobuf bytes as received; ``("json", bytes)``: its JSON object re-encoded compactly by
    orjson after parsing) and ``loaded`` the snapshot the service loaded and checked from that
    same key earlier, if any (``Adjudicator.loaded_snapshot``).

    With ``loaded`` set the transport has not parsed the snapshot at all and the request
    message has no ``snapshot``. Loading is a pure function of the key, and it is most of a
    call's cost when a client sends one position several times (candidate moves, pages)."""

    key: tuple
    loaded: Snapshot | None = None
