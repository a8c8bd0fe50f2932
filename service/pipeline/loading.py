"""The snapshot's one owner: looked up, loaded, written into the answer and remembered
here, its cache key made here, once per call. A request's ``snapshot`` becomes an engine
Snapshot the service trusts, or every problem is reported together.

Steps, in order (``SnapshotLoader.load``):

1. the signature is present and names a configured key (cheap, before any parsing);
2. convert: protobuf -> engine values, every unparseable value a problem at its path (the
   REQUIRED fields left unset are the request's problems already: decoding found them);
3. the request's actions are converted against it (seat range, meld ids);
4. consistency (``engine.check_snapshot``) and the client-given derived (output-only) fields;
5. the signature is verified over the service's own rendering;
6. remember: the loaded snapshot is kept under its cache key, so the same encoding sent
   again skips steps 1-5 (and the transport does not even parse it: ``SnapshotSource``).

After loading, cached or not: the ruleset version pin and, for apply/replay/score, the
view check. ``answer`` is the way out: written once, signed, handed on as those bytes
(``Answer``) and, with ``remember``, kept as loaded under them (REST: under its JSON too).
A key is the encoding (``"pb"``, ``"json"``) and the exact bytes in it (``received``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson
from google.protobuf.message import Message

from samba_adjudicator import engine
from samba_adjudicator.engine import ruleset as er
from samba_adjudicator.engine.messages import problem
from samba_adjudicator.engine.model import Action, InvalidInput, Snapshot

from ..base import pb
from ..base.errors import (
    ApiError,
    Problems,
    api_error,
    echo,
    invalid_argument,
)
from ..base.lru import Lru
from ..codec import (
    convert,
    jsonio,
    paths,
    snapshot_bytes,
    snapshot_code,
    wire,
)
from ..codec.actions import action_from_proto, meld_ids
from ..codec.signing import Signer
from ..codec.snapshot_code import SIGNATURE
from ..ops.config import Settings

if TYPE_CHECKING:
    from .decoding import Request

#: Loaded snapshots kept: the default of ``--snapshot-cache-size`` (about 5-10 KB each).
SNAPSHOT_CACHE_SIZE: int = Settings.model_fields["snapshot_cache_size"].default
SNAPSHOT = "snapshot"  # the field (and path) of every request that carries one


def _json_text(obj: dict) -> bytes | None:
    """A snapshot's JSON object written compactly, its cache key (None when orjson cannot
    write it, e.g. a lone surrogate: the snapshot then takes the ordinary path).

    orjson writes an infinite number (``1e400`` read by ``json``) as ``null``: such a key
    would stand for a different request, so an object with one has no key either."""
    try:
        encoded = orjson.dumps(obj)
    except TypeError:
        return None
    if b"null" in encoded and _has_non_finite(obj):
        return None
    return encoded


def _has_non_finite(value: Any) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, dict):
        return any(_has_non_finite(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_non_finite(v) for v in value)
    return False


@dataclass(frozen=True, slots=True)
class SnapshotSource:
    """How a transport received a request's snapshot: ``key`` and ``loaded``, the snapshot
    loaded earlier from that same key, if any.

    With ``loaded`` set the transport has not parsed the snapshot at all and the request
    message has no ``snapshot``. Loading is a pure function of the key, and it is most of a
    call's cost when a client sends one position several times (candidate moves, pages)."""

    key: tuple[str, bytes]
    loaded: Snapshot | None = None


class Answer:
    """An RPC's ``message`` as its handler left it, and the snapshots it carries as written
    (``rendered``: their fields' bytes; ``remembered``: the position kept). gRPC sends them
    as written (``wire``); the other ways parse them into the message once (``whole``)."""

    def __init__(self, message: Message, request: Request, owner: SnapshotLoader) -> None:
        self.message = message
        self.rendered = b"".join(request.rendered)
        self.remembered = request.remembered
        self.owner = owner

    def wire(self) -> bytes:
        # deterministic: map entries (violation details) sorted, the same bytes on every replica
        return self.message.SerializeToString(deterministic=True) + self.rendered

    def whole(self) -> Message:
        if self.rendered:
            self.message.MergeFromString(self.rendered)
            self.rendered = b""
        return self.message

    def json(self) -> bytes:
        """The JSON body; a remembered snapshot's text is written once: its key, and a
        fragment of the body."""
        body = jsonio.to_dict(self.whole())
        given = body.get(SNAPSHOT)
        text = None
        if self.remembered is not None and isinstance(given, dict):
            text = _json_text(given)
        if text is None:
            return jsonio.dumps_bytes(body)
        self.owner.cache.put(("json", text), self.remembered)
        body[SNAPSHOT] = orjson.Fragment(text)
        try:
            return orjson.dumps(body)
        except TypeError:  # something else orjson cannot write (a lone surrogate echoed)
            body[SNAPSHOT] = given
            return jsonio.dumps_bytes(body)


class SnapshotLoader:
    """The pipeline and its cache; one per Adjudicator."""

    def __init__(self, signer: Signer | None = None, cache_size: int = SNAPSHOT_CACHE_SIZE) -> None:
        self.signer = signer
        self.cache = Lru(cache_size)

    def received(self, encoded: bytes | dict) -> SnapshotSource | None:
        """A snapshot as received, looked up before it is read: protobuf bytes keyed by
        them, a JSON object by its compact text (None: it has none, and is read)."""
        text = encoded if isinstance(encoded, bytes) else _json_text(encoded)
        if text is None:
            return None
        key = ("pb" if isinstance(encoded, bytes) else "json", text)
        return SnapshotSource(key, self.cache.get(key))

    def load(
        self,
        request: Request,
        actions: Iterable[tuple[pb.Action, str]] = (),
        check_meld_ids: bool = True,
        allow_view: bool = True,
        field: str = SNAPSHOT,
    ) -> tuple[Snapshot, list[Action]]:
        """(engine snapshot, engine actions) of a request, or InvalidInput / ApiError with
        every problem (the request's own problems reported first).

        ``field``: the request's field holding the snapshot (``previous`` for Deal, ``deal``
        for VerifyDeal), the prefix of every problem's path; only ``snapshot`` may have been
        loaded before (``request.snapshot.loaded``, used as it is). ``actions``:
        (pb.Action, path) pairs."""
        msg: pb.Snapshot = getattr(request.message, field)
        problems = request.problems
        source = request.snapshot if field == SNAPSHOT else None
        snap = source.loaded if source is not None else None
        fresh = snap is None
        if fresh:
            self._check_signature_present(msg, problems, field)
            snap = convert.snapshot_from_proto(msg, field, problems)
        converted = self._actions(snap, actions, problems, check_meld_ids)
        if problems or snap is None:
            raise InvalidInput(
                problems or [problem(field, "REQUIRED", "{field} is required", field=field)]
            )
        if fresh:
            self._trust(msg, snap, field, source)
            if source is not None:
                self.cache.put(source.key, snap)
        pin_version(snap.ruleset_ref.version, snap.ruleset, f"{field}.ruleset.version")
        if not allow_view and snap.is_view:
            raise _view_refused(snap, field)
        return snap, converted

    def _check_signature_present(self, msg: pb.Snapshot, problems: Problems, field: str) -> None:
        """Signing on, nothing wrong with the request so far (a snapshot missing a REQUIRED
        field is refused for that instead): the signature must be there and name a key,
        checked before the snapshot is read."""
        if problems or self.signer is None:
            return
        self.signer.check_present(msg.signature, f"{field}.signature")

    @staticmethod
    def _actions(
        snap: Snapshot | None,
        actions: Iterable[tuple[pb.Action, str]],
        problems: Problems,
        check_meld_ids: bool,
    ) -> list[Action]:
        players = len(snap.seats) if snap is not None else None
        ids = meld_ids(snap) if (snap is not None and check_meld_ids) else None
        out = []
        for a, path in actions:
            read = action_from_proto(a, path, problems, players, ids)
            if read is not None:  # None only without a kind, a problem the request reports
                out.append(read)
        return out

    def _trust(
        self, msg: pb.Snapshot, snap: Snapshot, field: str, source: SnapshotSource | None
    ) -> None:
        """Signature, consistency, derived fields: what a freshly converted snapshot must
        pass before it is used or remembered (docs/api.md#trust).

        Signing on, a snapshot that is, field for field, the service's own signed rendering
        was made by the service, which checked it before signing: its consistency and
        derived fields are not checked again. The cheap test comes first: one HMAC over the
        bytes received (gRPC) or over the message's deterministic encoding (JSON). Only when
        it fails is the snapshot checked for consistency (an inconsistent one, a count that
        disagrees with its cards included, was never signed: SNAPSHOT_SIGNATURE_INVALID, and
        its sender learns nothing more), then rendered the service's way and its signature
        verified over that rendering, then its given output-only fields compared with the
        derived ones unless it is that rendering exactly. Unsigned: consistency, then the
        output-only fields."""
        if self.signer is None:
            paths.raise_if(paths.prefixed(engine.check_snapshot(snap), field))
        else:
            if self.signer.signed_as_encoded(_encoding_of(msg, source), msg.signature):
                return
            # Only a consistent snapshot has a rendering (the derived fields assume it), and
            # the service signs none other: an inconsistent one is not ours, and its sender
            # learns nothing more about it.
            if engine.check_snapshot(snap):
                raise self.signer.invalid(f"{field}.signature")
            unsigned = snapshot_bytes.encode(snap)
            if not self.signer.signs(unsigned, msg.signature):
                raise self.signer.invalid(f"{field}.signature")
            given = wire.split_field(msg.SerializeToString(deterministic=True), SIGNATURE, True)
            if given is not None and given[1] == unsigned:
                return
        paths.raise_if(snapshot_code.disagreements(msg, snap, field))

    # -- the way out -----------------------------------------------------------------------
    def written(
        self, snap: Snapshot, remember: bool = False, signed: bool = True
    ) -> tuple[bytes, Snapshot]:
        """(the snapshot's bytes as answered, signed when keys are set; what loading them
        gives), written once (``snapshot_bytes.rendering``). ``remember``: a position just
        produced is what the client sends next; it is kept as loaded under those bytes
        (Snapshot has no map fields: the same bytes inside the answer or alone)."""
        sign = None if self.signer is None or not signed else self.signer.signature_of_payload
        answered, signature = snapshot_bytes.rendering(snap, sign)
        loaded = dataclasses.replace(snap, signature=signature)
        if remember:
            self.cache.put(("pb", answered), loaded)
        return answered, loaded

    def answer(
        self, r: Request, response: Message, snap: Snapshot, remember=False, signed=True
    ) -> None:
        """``response.snapshot`` is ``snap`` as written (unsigned: a view revealed for
        display); ``remember``: kept as loaded, for REST under its JSON text too (``Answer``)."""
        number = response.DESCRIPTOR.fields_by_name[SNAPSHOT].number
        answered, loaded = self.written(snap, remember, signed)
        r.rendered.append(snapshot_bytes.as_field(number, answered))
        if remember:
            r.remembered = loaded


def _encoding_of(msg: pb.Snapshot, source: SnapshotSource | None) -> bytes:
    """The snapshot's protobuf bytes: as received when the transport kept them (its cache
    key), else its deterministic encoding."""
    if source is not None and source.key[0] == "pb":
        return source.key[1]
    return msg.SerializeToString(deterministic=True)


def pin_version(pinned: str, rules: er.Ruleset, field: str) -> None:
    """A request may pin the ruleset version it expects: FAILED_PRECONDITION on mismatch."""
    if pinned and pinned != rules.version:
        raise api_error(
            "FAILED_PRECONDITION",
            "RULESET_VERSION_MISMATCH",
            "{field} pins ruleset version {pinned}; this service "
            "adjudicates {profile} at version {version}",
            field=field,
            pinned=echo(pinned),
            profile=rules.profile,
            version=repr(rules.version),
        )


def _view_refused(snap: Snapshot, field: str) -> ApiError:
    hidden = [
        problem(
            f"{field}.seats[{i}].hand",
            "SNAPSHOT_IS_VIEW",
            "seat {seat}'s hand is hidden: a player's view cannot be applied, replayed or scored",
            seat=i,
        )
        for i, s in enumerate(snap.seats)
        if s.hand_hidden
    ]
    return invalid_argument(hidden, reason="SNAPSHOT_IS_VIEW")
