"""Snapshot signatures (docs/api.md#trust-model).

With keys configured (``SAMBA_SNAPSHOT_KEYS=id1:base64,id2:base64``; the first signs, all
verify), every returned snapshot carries ``signature = "v1.<keyId>.<base64url HMAC-SHA256>"``
over the deterministic protobuf encoding of the canonicalised snapshot (the service's own
rendering of it, every output-only field filled) with ``signature`` cleared. Signing is off
by default (``Signer.parse`` of an empty setting is None; the keys come in the settings,
``service.ops.config``).
"""

from __future__ import annotations

import base64
import binascii
import hmac
import re
from dataclasses import dataclass

from ..base import pb
from ..base.errors import ApiError, api_error
from . import wire

ENV = "SAMBA_SNAPSHOT_KEYS"
VERSION = "v1"
_KEY_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


def decode_key(text: str) -> bytes:
    """Standard base64 (RFC 4648 section 4, what ``base64`` and ``openssl rand -base64``
    print), padded, in its one canonical form. Nothing else is decoded: a lenient decoder
    turns a passphrase such as ``my-long-secret-passphrase`` into some key, and a
    passphrase is not a key."""
    text = text.strip()
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as e:
        raise ValueError(f"not base64: {e}") from None
    if base64.b64encode(raw).decode("ascii") != text:
        raise ValueError("not canonical base64 (e.g. `head -c 32 /dev/urandom | base64`)")
    return raw


#: ``Snapshot.signature``'s number: the one top-level field a signature does not cover.
_SIGNATURE = pb.Snapshot.DESCRIPTOR.fields_by_name["signature"].number


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


@dataclass(frozen=True)
class Signer:
    """Signs and verifies snapshots with HMAC-SHA256 keys; ``keys[0]`` signs."""

    keys: tuple[tuple[str, bytes], ...]

    def __post_init__(self) -> None:
        if not self.keys:
            raise ValueError("at least one key is needed")

    @classmethod
    def parse(cls, spec: str) -> Signer | None:
        """``id1:base64,id2:base64`` -> Signer (None for an empty spec). ValueError on
        a malformed spec, a repeated id, or a key shorter than 16 bytes."""
        keys: list[tuple[str, bytes]] = []
        for part in (spec or "").split(","):
            part = part.strip()
            if not part:
                continue
            key_id, sep, secret = part.partition(":")
            key_id = key_id.strip()
            if not sep or not _KEY_ID.fullmatch(key_id):
                raise ValueError(
                    f"{ENV}: expected id:base64 with id [A-Za-z0-9_-]{{1,64}}, got {key_id!r}"
                )
            if any(k == key_id for k, _ in keys):
                raise ValueError(f"{ENV}: key id {key_id!r} repeated")
            try:
                raw = decode_key(secret)
            except ValueError as e:
                raise ValueError(f"{ENV}: key {key_id!r}: {e}") from None
            if len(raw) < 16:
                raise ValueError(f"{ENV}: key {key_id!r} must be at least 16 bytes")
            keys.append((key_id, raw))
        return cls(tuple(keys)) if keys else None

    # -- signing ---------------------------------------------------------------------------
    def signature_of_payload(self, payload: bytes) -> str:
        """The signature of a snapshot whose unsigned deterministic encoding is ``payload``."""
        key_id, secret = self.keys[0]
        digest = hmac.digest(secret, payload, "sha256")
        return f"{VERSION}.{key_id}.{_b64url(digest)}"

    def sign(self, snapshot) -> None:
        """Set ``snapshot.signature`` in place (a canonical pb.Snapshot built by a caller)."""
        snapshot.signature = ""
        snapshot.signature = self.signature_of_payload(
            snapshot.SerializeToString(deterministic=True)
        )

    # -- verifying -------------------------------------------------------------------------
    def check_present(self, signature: str, field: str = "snapshot.signature") -> None:
        """Cheap checks before the snapshot is even parsed: present, well-formed, known key."""
        if not signature:
            raise api_error(
                "PERMISSION_DENIED",
                "SNAPSHOT_SIGNATURE_MISSING",
                "{field} is required: snapshots must come from this service",
                field=field,
            )
        parts = signature.split(".")
        if len(parts) != 3 or parts[0] != VERSION or not parts[1] or not parts[2]:
            raise api_error(
                "PERMISSION_DENIED",
                "SNAPSHOT_SIGNATURE_INVALID",
                "{field} is not a valid signature",
                field=field,
            )
        if not any(k == parts[1] for k, _ in self.keys):
            raise api_error(
                "PERMISSION_DENIED",
                "SNAPSHOT_KEY_UNKNOWN",
                "{field} was made with key {key}, which is not configured",
                field=field,
                key=repr(parts[1]),
            )

    def signed_as_encoded(self, encoded: bytes, signature: str) -> bool:
        """Whether ``encoded``, a snapshot's protobuf bytes, is exactly what a configured key
        signed followed by ``signature`` (as ``check_present`` accepted it): the deterministic
        encoding of the service's own rendering, as the service answered it.

        One HMAC over the received bytes, no rendering: the bytes before the signature field
        are the ones the MAC covers, so a match means the snapshot read from ``encoded`` is,
        field for field, one the service signed. Anything else (bytes in another order, an
        output-only field left out, a forged MAC) is False, and ``verify`` decides. The
        signature field is found by walking the top-level fields in number order
        (``wire.split_field``), so the bytes left are whole fields, wherever the schema
        numbers the signature."""
        split = wire.split_field(encoded, _SIGNATURE, ordered=True)
        if split is None or split[0] != signature.encode():
            return False
        return self.signs(split[1], signature)

    def signs(self, payload: bytes, signature: str) -> bool:
        """Whether ``signature`` is a configured key's MAC of ``payload`` (``payload``: a
        snapshot's deterministic encoding without its signature). Never raises: a malformed
        signature is False (``check_present`` says why)."""
        parts = signature.split(".")
        if len(parts) != 3 or parts[0] != VERSION:
            return False
        secret = dict(self.keys).get(parts[1])
        if secret is None:
            return False
        digest = hmac.digest(secret, payload, "sha256")
        return hmac.compare_digest(_b64url(digest).encode(), parts[2].encode())

    @staticmethod
    def invalid(field: str = "snapshot.signature") -> ApiError:
        """The refusal of a signature that does not sign the snapshot it came with."""
        return api_error(
            "PERMISSION_DENIED",
            "SNAPSHOT_SIGNATURE_INVALID",
            "{field} does not match the snapshot",
            field=field,
        )
