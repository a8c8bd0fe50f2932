"""The signature's cheap check over the bytes received (``Signer.signed_as_encoded``) finds
the signature field by walking the top-level fields in number order: any fields the schema
numbers after it (today the deal commitment; tomorrow another) are covered as they come,
with nothing in service/codec/signing.py to widen."""

from __future__ import annotations

import base64

from samba_adjudicator.service.base import pb
from samba_adjudicator.service.codec.signing import Signer
from samba_adjudicator.service.codec.snapshot_parts import varint

SIGNATURE = pb.Snapshot.DESCRIPTOR.fields_by_name["signature"].number
SIGNER = Signer.parse(f"k:{base64.b64encode(b'k' * 32).decode()}")


def _field(number: int, payload: bytes) -> bytes:
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def test_fields_numbered_after_the_signature_are_found_in_order_whatever_they_are():
    assert SIGNER is not None
    head = _field(1, b"ruleset") + _field(SIGNATURE - 1, b"before")
    tail = _field(SIGNATURE + 1, b"0" * 64) + _field(SIGNATURE + 2, b"a field added later")
    signature = SIGNER.signature_of_payload(head + tail)
    signed = _field(SIGNATURE, signature.encode())
    assert SIGNER.signed_as_encoded(head + signed + tail, signature)
    # the same fields, the signature out of its place in the number order: the full path
    assert not SIGNER.signed_as_encoded(signed + head + tail, signature)
    assert not SIGNER.signed_as_encoded(head + tail + signed, signature)
    # a field after the signature changed, or given twice
    assert not SIGNER.signed_as_encoded(head + signed + tail[:-1] + b"!", signature)
    assert not SIGNER.signed_as_encoded(head + signed + signed + tail, signature)
