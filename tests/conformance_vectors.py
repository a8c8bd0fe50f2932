"""Writes conformance/exchanges.json (`make conformance`): golden exchanges of every RPC,
errors included, on both transports, recorded from a real server started with the settings
the file names (conformance/README.md says how a client in any language reads them).

Each case is a request (proto3 JSON) with the metadata it is sent with; the server's answer
is recorded as REST gives it (the HTTP status and the JSON body, proto3 JSON) and as gRPC
gives it (the status, the protobuf answer in base64, or the `google.rpc.Status` of the
`grpc-status-details-bin` trailer in base64 and as JSON). A case a transport cannot carry
(a body that is not JSON, bytes that are not protobuf) is recorded on that transport alone.

The service's test (tests/test_conformance.py) records them anew against a real server and
compares with the file, so the file is current; it also replays the file's bytes on both
transports. Both clients' tests call every case through the client (tests/
test_client_conformance.py, clients/typescript/test/conformance.test.ts).

Run it again when an answer changes on purpose (the rules, a message, an RPC) and review the
diff.
"""

from __future__ import annotations

import base64
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import grpc
import httpx
from google.protobuf import json_format
from google.rpc import status_pb2

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from service_fixtures import REST, ServerProcess  # noqa: E402

from samba_adjudicator.client.rpcs import RPCS  # noqa: E402

OUT = HERE.parent / "conformance" / "exchanges.json"
SERVICE = "samba.v1.Adjudicator"
#: The settings the answers were recorded under: a fixed signing key (snapshots come back
#: signed, and the page-token key is derived from it), so the answers are the same on every
#: run. A test key, published here on purpose: never a production key.
SERVER_ENV = {
    "SAMBA_SNAPSHOT_KEYS": "conformance:"
    + base64.b64encode(b"samba-conformance-vectors-key-01").decode("ascii")
}
#: The keys a reader leaves out, at any depth, before comparing a transport-only case's
#: answer (conformance/README.md#masking).
MASKED_PARSER_TEXTS = ["message", "description"]
#: The deal every snapshot of the cases comes from: 2 seats of classic, signed.
DEAL = {"players": 2, "seed": "conformance", "seedContributions": ["ana", "bo"], "dealer": 1}


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _case(name: str, rpc: str, request: dict, *, lang: str = "", only: str = "") -> dict:
    case: dict = {"name": name, "rpc": rpc, "request": request}
    metadata = {"x-request-id": "conformance-" + name.split(":")[0].replace(" ", "-").lower()}
    if lang:
        metadata["accept-language"] = lang
    case["metadata"] = metadata
    if only:
        case["only"] = only
        # the texts of a refused payload quote the parser, whose words are its library's
        case["masked"] = MASKED_PARSER_TEXTS
    return case


def _forged(snapshot: dict) -> dict:
    """The snapshot with its signature's last character changed."""
    sig = snapshot["signature"]
    return {**snapshot, "signature": sig[:-1] + ("A" if sig[-1] != "A" else "B")}


def cases(call: Callable[[str, dict], dict]) -> Iterator[dict]:
    """The cases, in order; ``call(rpc, request)`` gives the answer (proto3 JSON) of a
    request the cases build on (the deal, its legal actions)."""
    deal = call("Deal", DEAL)["snapshot"]
    legal = call("ListLegalActions", {"snapshot": deal})["actions"]
    first = legal[0]
    page = call("ListLegalActions", {"snapshot": deal, "pageSize": 2})
    mover = first["seat"]
    yield _case("ListRulesets", "ListRulesets", {})
    yield _case("GetRuleset", "GetRuleset", {"profile": "classic+open"})
    yield _case("GetRuleset unknown profile", "GetRuleset", {"profile": "bridge"})
    yield _case("Deal signed", "Deal", DEAL)
    yield _case(
        "Deal with views and legal actions",
        "Deal",
        {**DEAL, "includeViews": True, "includeLegalActions": True},
    )
    yield _case("Deal two problems", "Deal", {"players": 5, "dealer": -1, "seed": "x"})
    yield _case(
        "Deal pinned version another",
        "Deal",
        {**DEAL, "ruleset": {"profile": "classic", "version": "0.other"}},
    )
    yield _case("CheckMeld", "CheckMeld", {"cards": ["7H", "7D", "7C"]})
    yield _case("CheckMeld unknown card", "CheckMeld", {"cards": ["7H", "XX"]})
    yield _case("CheckMeld unknown card in Spanish", "CheckMeld", {"cards": ["XX"]}, lang="es")
    yield _case("ValidateAction", "ValidateAction", {"snapshot": deal, "action": first})
    yield _case(
        "ValidateAction illegal",
        "ValidateAction",
        {"snapshot": deal, "action": {**first, "seat": 1 - mover}},
    )
    yield _case(
        "ValidateAction forged signature",
        "ValidateAction",
        {"snapshot": _forged(deal), "action": first},
    )
    yield _case(
        "ApplyAction one call per move",
        "ApplyAction",
        {
            "snapshot": deal,
            "action": first,
            "includeViews": True,
            "includeLegalActions": True,
        },
    )
    yield _case(
        "ApplyAction computer move",
        "ApplyAction",
        {"snapshot": deal, "computer": {"seat": mover, "level": "BASIC", "seed": "c"}},
    )
    yield _case("ApplyAction no snapshot", "ApplyAction", {"action": first})
    yield _case("ListLegalActions", "ListLegalActions", {"snapshot": deal})
    yield _case(
        "ListLegalActions second page",
        "ListLegalActions",
        {"snapshot": deal, "pageSize": 2, "pageToken": page["nextPageToken"]},
    )
    yield _case(
        "ListLegalActions bad page token",
        "ListLegalActions",
        {"snapshot": deal, "pageToken": "not-a-token"},
    )
    yield _case("ScoreDeal provisional", "ScoreDeal", {"snapshot": deal, "provisional": True})
    yield _case("ScoreDeal no snapshot", "ScoreDeal", {})
    yield _case("GetPlayerView", "GetPlayerView", {"snapshot": deal, "seat": 0})
    yield _case("GetPlayerView spectator", "GetPlayerView", {"snapshot": deal})
    yield _case("GetPlayerView no such seat", "GetPlayerView", {"snapshot": deal, "seat": 9})
    yield _case("ReplayDeal", "ReplayDeal", {"snapshot": deal, "actions": [first, first]})
    yield _case("ReplayDeal no snapshot", "ReplayDeal", {"actions": [first]})
    yield _case(
        "SuggestAction",
        "SuggestAction",
        {"snapshot": deal, "seat": mover, "level": "BASIC", "seed": "s"},
    )
    yield _case(
        "SuggestAction no such seat", "SuggestAction", {"snapshot": deal, "seat": 7, "seed": "s"}
    )
    yield _case(
        "VerifyDeal",
        "VerifyDeal",
        {"deal": deal, "seed": DEAL["seed"], "seedContributions": DEAL["seedContributions"]},
    )
    yield _case(
        "VerifyDeal wrong seed",
        "VerifyDeal",
        {"deal": deal, "seed": "other", "seedContributions": DEAL["seedContributions"]},
    )
    yield _case("VerifyDeal no seed", "VerifyDeal", {"deal": deal})
    yield _case("CheckMeld body not JSON", "CheckMeld", {"cards": ["7H"]}, only="rest")
    yield _case("CheckMeld unknown field", "CheckMeld", {"cards": ["7H"]}, only="rest")
    yield _case("CheckMeld bytes not protobuf", "CheckMeld", {"cards": ["7H"]}, only="grpc")


#: What the transport-only cases send instead of their request: REST, the body's text;
#: gRPC, the request bytes.
REST_BODIES = {
    "CheckMeld body not JSON": '{"cards": ["7H"',
    "CheckMeld unknown field": '{"cards": ["7H"], "kards": ["7D"]}',
}
GRPC_BYTES = {"CheckMeld bytes not protobuf": b"\x12\x05\x37\x48"}


def rest_request(case: dict) -> dict:
    """The REST request of a case: verb, path and the body's text (none for a GET)."""
    verb, path = REST[case["rpc"]]
    request = case["request"]
    if "{profile}" in path:
        return {"method": verb, "path": path.format(profile=request["profile"])}
    if verb == "GET":
        return {"method": verb, "path": path}
    body = REST_BODIES.get(case["name"], json.dumps(request, ensure_ascii=False))
    return {"method": verb, "path": path, "body": body}


def grpc_request(case: dict) -> bytes:
    if case["name"] in GRPC_BYTES:
        return GRPC_BYTES[case["name"]]
    request_class = RPCS[case["rpc"]].request_class
    return json_format.ParseDict(case["request"], request_class()).SerializeToString()


def send_rest(http: httpx.Client, case: dict) -> dict:
    sent = rest_request(case)
    r = http.request(
        sent["method"],
        sent["path"],
        content=sent.get("body", "").encode("utf-8") or None,
        headers={"content-type": "application/json", **case["metadata"]},
    )
    return {"status": r.status_code, "answer": r.json()}


def send_grpc(channel: grpc.Channel, case: dict) -> dict:
    """The answer to the case's request bytes, sent and received as bytes (the generic call a
    client in any language makes)."""
    method = channel.unary_unary(f"/{SERVICE}/{case['rpc']}")
    try:
        answer = method(grpc_request(case), metadata=list(case["metadata"].items()), timeout=60)
    except grpc.RpcError as e:
        details = dict(e.trailing_metadata() or ()).get("grpc-status-details-bin", b"")
        status = status_pb2.Status.FromString(details)
        return {
            "status": e.code().name,
            "code": e.code().value[0],
            "message": e.details(),
            "details": json_format.MessageToDict(status),
            "detailsBinary": _b64(details),
        }
    # its proto3 JSON is the REST answer's: not written twice
    return {"status": "OK", "code": 0, "answerBinary": _b64(answer)}


def record(http: httpx.Client, channel: grpc.Channel) -> dict:
    """Every case with the server's answers on both transports."""

    def call(rpc: str, request: dict) -> dict:
        r = send_rest(http, {"rpc": rpc, "name": rpc, "request": request, "metadata": {}})
        assert r["status"] == 200, r
        return r["answer"]

    exchanges = []
    for case in cases(call):
        only = case.get("only")
        if only != "grpc":
            case["rest"] = {**rest_request(case), **send_rest(http, case)}
        if only != "rest":
            case["grpc"] = {
                "method": f"/{SERVICE}/{case['rpc']}",
                "request": _b64(grpc_request(case)),
                **send_grpc(channel, case),
            }
        exchanges.append(case)
    return {
        "about": "Golden exchanges of samba.v1.Adjudicator: conformance/README.md",
        "server": {"env": SERVER_ENV},
        "exchanges": exchanges,
    }


def load() -> dict:
    return json.loads(OUT.read_text())


def masked(value, keys: list[str]):
    """``value`` without the keys ``keys`` names, at any depth (conformance/README.md#masking)."""
    if isinstance(value, dict):
        return {k: masked(v, keys) for k, v in value.items() if k not in keys}
    if isinstance(value, list):
        return [masked(v, keys) for v in value]
    return value


def write(document: dict) -> str:
    # keys sorted: a map's order (ErrorInfo.metadata) is not the same on every run
    return json.dumps(document, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def main() -> None:
    server = ServerProcess(env=SERVER_ENV)
    try:
        with (
            httpx.Client(base_url=server.base_url, timeout=60) as http,
            grpc.insecure_channel(server.grpc_target) as channel,
        ):
            OUT.parent.mkdir(exist_ok=True)
            OUT.write_text(write(record(http, channel)))
    finally:
        server.close()
    print(f"wrote {OUT.relative_to(HERE.parent)}")


if __name__ == "__main__":
    main()
