"""An error's bodies on the wire: REST's JSON and gRPC's rich status."""

from __future__ import annotations

from google.rpc import code_pb2, error_details_pb2

from samba_adjudicator.engine.model import Problem
from samba_adjudicator.service.base import errors
from samba_adjudicator.service.base.errors import ApiError
from samba_adjudicator.service.codec import error_bodies


def test_error_bodies():
    err = errors.invalid_argument(
        [Problem("snapshot.seats[0].hand[3]", "UNKNOWN_CARD_CODE", "'ZZ' is not a card code")]
    )
    body = error_bodies.rest_body(err, "req-1")
    assert body == {
        "error": {
            "code": 400,
            "status": "INVALID_ARGUMENT",
            "message": "snapshot.seats[0].hand[3]: 'ZZ' is not a card code",
            "details": [
                {
                    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                    "reason": "INVALID_REQUEST",
                    "domain": "samba.v1",
                    "metadata": {"requestId": "req-1"},
                },
                {
                    "@type": "type.googleapis.com/google.rpc.BadRequest",
                    "fieldViolations": [
                        {
                            "field": "snapshot.seats[0].hand[3]",
                            "description": "'ZZ' is not a card code",
                            "reason": "UNKNOWN_CARD_CODE",
                        }
                    ],
                },
            ],
        }
    }
    st = error_bodies.grpc_status(err, "req-1")
    assert st.code == code_pb2.INVALID_ARGUMENT and len(st.details) == 2
    info, br = error_details_pb2.ErrorInfo(), error_details_pb2.BadRequest()
    assert st.details[0].Unpack(info) and st.details[1].Unpack(br)
    assert (
        info.metadata["requestId"] == "req-1"
        and br.field_violations[0].reason == "UNKNOWN_CARD_CODE"
    )
    nf = error_bodies.grpc_status(ApiError("NOT_FOUND", "UNKNOWN_PROFILE", "no"), "r")
    assert nf.code == code_pb2.NOT_FOUND and len(nf.details) == 1
    for code, http in [
        ("PERMISSION_DENIED", 403),
        ("RESOURCE_EXHAUSTED", 413),
        ("DEADLINE_EXCEEDED", 504),
        ("FAILED_PRECONDITION", 400),
        ("NOT_FOUND", 404),
    ]:
        assert ApiError(code, "X", "m").http_status == http
