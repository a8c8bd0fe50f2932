"""ListLegalActions lists kept for their next pages: stored compactly (one buffer of the
serialized actions, canonical order, and their end offsets) and bounded by bytes.

A 149-card hand lists about 45,000 actions: as engine values they held about 12 MB, and
sixteen such lists kept by count took a worker past its memory limit. Serialized they take
about 1.7 MB, and the cache keeps at most LISTS_KEPT_BYTES of them, least recently used
first out; a list larger than the whole budget is not kept (its next pages list it again).
"""

from __future__ import annotations

import threading
from array import array
from collections import OrderedDict
from collections.abc import Sequence

from samba_adjudicator.engine.action_order import canonical
from samba_adjudicator.engine.deadline import checkpoint

from ..base import pb
from ..codec.actions import action_to_proto

#: Bytes of kept lists per process (docs/service.md#memory-budget).
LISTS_KEPT_BYTES = 32 * 1024 * 1024
#: Bytes an entry costs beside its buffers (the key, the objects around them).
ENTRY_OVERHEAD = 512
#: Actions serialized between two deadline checkpoints.
_CHECK_EVERY = 1000


class KeptList:
    """One list: ``blob[ends[i-1]:ends[i]]`` is action ``i``, serialized."""

    def __init__(self, blob: bytes, ends: array, complete: bool) -> None:
        self.blob = blob
        self.ends = ends
        self.complete = complete

    @classmethod
    def of(cls, actions: Sequence, complete: bool) -> KeptList:
        parts: list[bytes] = []
        ends = array("I")
        size = 0
        for i, action in enumerate(actions):
            if i % _CHECK_EVERY == 0:
                checkpoint()
            data = action_to_proto(canonical(action)).SerializeToString()
            parts.append(data)
            size += len(data)
            ends.append(size)
        return cls(b"".join(parts), ends, complete)

    def __len__(self) -> int:
        return len(self.ends)

    @property
    def nbytes(self) -> int:
        return len(self.blob) + self.ends.itemsize * len(self.ends) + ENTRY_OVERHEAD

    def page(self, start: int, end: int) -> list[pb.Action]:
        out: list[pb.Action] = []
        end = min(end, len(self.ends))
        for i in range(start, end):
            begin = self.ends[i - 1] if i else 0
            out.append(pb.Action.FromString(self.blob[begin : self.ends[i]]))
        return out


class KeptLists:
    """Lists by page binding, at most ``budget`` bytes of them (thread-safe)."""

    def __init__(self, budget: int = LISTS_KEPT_BYTES) -> None:
        self.budget = budget
        self.nbytes = 0
        self._items: OrderedDict[str, KeptList] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> KeptList | None:
        with self._lock:
            kept = self._items.get(key)
            if kept is not None:
                self._items.move_to_end(key)
            return kept

    def put(self, key: str, kept: KeptList) -> None:
        if kept.nbytes > self.budget:
            return
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self.nbytes -= old.nbytes
            self._items[key] = kept
            self.nbytes += kept.nbytes
            while self.nbytes > self.budget:
                _, out = self._items.popitem(last=False)
                self.nbytes -= out.nbytes

    def __len__(self) -> int:
        return len(self._items)
