"""The texts issue #23 left English (docs/i18n.md): snapshot-consistency and ruleset problems,
JSON scalar errors, REST's own errors, WILD_SWAP_MISMATCH's reasons and SuggestAction's
reasons come back in the language asked for, over REST and gRPC against the real server,
with their placeholders filled; English keeps the bytes of a request that names none."""

from __future__ import annotations

import ast
import json

import pytest
from builders import make_snapshot
from google.protobuf import json_format
from service_fixtures import ROOT, channel, grpc_call, http, server, stub  # noqa: F401

from samba_adjudicator.engine.model import GoOut, Phase
from samba_adjudicator.service.codec import convert, jsonio

LANGS = ["es", "it", "sv"]


def _swap_position() -> dict:
    snap = make_snapshot(
        "classic",
        4,
        hands={0: "QD 5C 6D 7H 8S", 2: "9H"},
        melds={0: [("QH QS 2C", 2)]},
        turn_seat=0,
        phase=Phase.PLAY,
        has_melded=[2],
    )
    return jsonio.to_dict(convert.snapshot_to_proto(snap))


def _asked_position() -> dict:
    snap = make_snapshot("classic", 4, hands={0: "QD 5C", 2: "9H"}, turn_seat=0, go_out=GoOut.ASKED)
    return jsonio.to_dict(convert.snapshot_to_proto(snap))


def _requests(dealt: dict) -> dict:
    """(path, body, what to read, the English it says) of each group."""
    bad_count = json.loads(json.dumps(dealt))
    bad_count["seats"][0]["handCount"] = len(bad_count["seats"][0]["hand"]) + 1
    swap = _swap_position()
    return {
        "consistency": (
            "/v1/actions:validate",
            {"snapshot": bad_count, "action": {"seat": dealt["turn"]["seat"], "drawStock": {}}},
        ),
        "ruleset": (
            "/v1/deals:deal",
            {"players": 4, "seed": "x", "ruleset": {"profile": "nosuch"}},
        ),
        "scalar": ("/v1/deals:deal", {"players": "four", "seed": "x"}),
        "swap": (
            "/v1/actions:validate",
            {
                "snapshot": swap,
                "action": {"seat": 0, "swapWild": {"meldId": "m1", "natural": "QD", "wild": "JK"}},
            },
        ),
        "asked": (
            "/v1/actions:validate",
            {"snapshot": _asked_position(), "action": {"seat": 1, "drawStock": {}}},
        ),
        "suggest": (
            "/v1/actions:suggest",
            {"snapshot": swap, "seat": 0, "level": "STRONG", "seed": "s"},
        ),
    }


def _texts(body: dict) -> list[str]:
    """Every human text of an answer: error message and field problems, violation
    messages, a suggestion's reason."""
    if "error" in body:
        e = body["error"]
        found = [e["message"]]
        for d in e["details"]:
            found += [p["description"] for p in d.get("fieldViolations", [])]
        return found
    if "reason" in body:
        return [body["reason"]["message"]]
    return [v["message"] for v in body.get("violations", [])]


@pytest.fixture(scope="module")
def dealt(http):  # noqa: F811
    r = http.post("/v1/deals:deal", content=json.dumps({"players": 4, "seed": "texts"}))
    return r.json()["snapshot"]


EXPECTED = {  # a part of the English text, and values its translation must still hold
    "consistency": ("handCount says", ["snapshot.seats[0].handCount"]),
    "ruleset": ("unknown profile 'nosuch'", ["'nosuch'"]),
    "scalar": ("players must be an integer", ["players"]),
    "swap": ("meld m1 holds no JK", ["m1", "JK"]),
    "asked": ("seat 0 asked to go out: the deal waits for seat 2", ["0", "2", "1"]),
    "suggest": ("win a wild back from a meld", []),  # BASIC's rule, which STRONG keeps
}


@pytest.mark.servers
@pytest.mark.parametrize("group", list(EXPECTED))
def test_each_group_speaks_each_language_over_rest(http, dealt, group):  # noqa: F811
    path, body = _requests(dealt)[group]
    rid = {"x-request-id": "texts-same"}  # an error's body carries it
    plain = http.post(path, content=json.dumps(body), headers=rid)
    english = [t for t in _texts(plain.json()) if EXPECTED[group][0] in t]
    assert english, (group, _texts(plain.json()))
    asked_en = http.post(path, content=json.dumps(body), headers={"accept-language": "en", **rid})
    assert asked_en.content == plain.content or group == "suggest"
    for lang in LANGS:
        r = http.post(path, content=json.dumps(body), headers={"accept-language": lang})
        assert r.headers["content-language"] == lang
        said = _texts(r.json())
        assert len(said) == len(_texts(plain.json()))
        assert not any(EXPECTED[group][0] in t for t in said), (group, lang, said)
        for value in EXPECTED[group][1]:
            assert any(value in t for t in said), (group, lang, value, said)


@pytest.mark.servers
@pytest.mark.parametrize("group", ["consistency", "ruleset", "scalar", "swap", "suggest"])
def test_each_group_speaks_each_language_over_grpc(stub, dealt, group):  # noqa: F811
    import grpc
    from grpc_status import rpc_status

    path, body = _requests(dealt)[group]
    method = {
        "/v1/actions:validate": "ValidateAction",
        "/v1/deals:deal": "Deal",
        "/v1/actions:suggest": "SuggestAction",
    }[path]
    if group == "scalar":
        body = {
            "players": 4,
            "seed": "x",
            "ruleset": {"profile": "classic", "overrides": {"decks": 9}},
        }

    def texts(lang: str | None) -> list[str]:
        metadata = () if lang is None else (("accept-language", lang),)
        try:
            answer = grpc_call(stub, method, body, metadata=metadata)
        except grpc.RpcError as e:
            from google.rpc import error_details_pb2

            status = rpc_status.from_call(e)
            out = [status.message]
            for d in status.details:
                if d.Is(error_details_pb2.BadRequest.DESCRIPTOR):
                    br = error_details_pb2.BadRequest()
                    d.Unpack(br)
                    out += [v.description for v in br.field_violations]
            return out
        as_dict = json_format.MessageToDict(answer)
        return _texts(as_dict)

    english = texts(None)
    if group != "suggest":
        assert texts("en") == english
    for lang in LANGS:
        said = texts(lang + "-XX")
        assert said and len(said) == len(english)
        assert all(s != e for s, e in zip(said, english, strict=True) if e), (group, lang, said)


@pytest.mark.servers
@pytest.mark.parametrize("lang", LANGS)
def test_rest_own_errors_speak_the_language(http, lang):  # noqa: F811
    plain = http.put("/v1/deals:deal").json()["error"]["message"]
    assert plain == "PUT is not allowed on /v1/deals:deal; use POST"
    said = http.put("/v1/deals:deal", headers={"accept-language": lang}).json()["error"]
    assert said["message"] != plain and "PUT" in said["message"] and "POST" in said["message"]
    profile = http.get("/v1/rulesets/nosuch", headers={"accept-language": lang}).json()
    english = http.get("/v1/rulesets/nosuch").json()
    assert profile["error"]["message"] != english["error"]["message"]
    assert "'nosuch'" in profile["error"]["message"]


# -- completeness --------------------------------------------------------------------------

#: Constructors of a human text: the index of their template (or text) argument.
_TEMPLATE_ARG = {"problem": 2, "api_error": 2, "Problem": 2, "ApiError": 2, "Refused": 0, "text": 0}
#: Constructors allowed to take a text built at run time (none).
_KNOWN: set[tuple[str, str]] = set()


def _built_at_run_time(node: ast.AST, assigned: dict[str, list[ast.AST]]) -> bool:
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr in ("format", "join")
    if isinstance(node, ast.Name):
        return any(_built_at_run_time(v, {}) for v in assigned.get(node.id, []))
    return False


def _assigned(fn: ast.AST) -> dict[str, list[ast.AST]]:
    out: dict[str, list[ast.AST]] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    out.setdefault(t.id, []).append(node.value)
    return out


def _run_time_texts(rel: str, fn: ast.AST) -> list[str]:
    assigned = _assigned(fn)
    found = []
    for node in ast.walk(fn):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        name = f.id if isinstance(f, ast.Name) else getattr(f, "attr", None)
        i = _TEMPLATE_ARG.get(name or "")
        known = (rel, name) in _KNOWN
        if (
            i is not None
            and not known
            and i < len(node.args) <= 3
            and _built_at_run_time(node.args[i], assigned)
        ):
            found.append(f"{rel}:{node.lineno} {name}")
        for k in node.keywords:
            texts = k.arg in ("message", "reason", "description")
            if texts and _built_at_run_time(k.value, assigned):
                found.append(f"{rel}:{node.lineno} {name} {k.arg}=")
    return found


def test_no_human_text_is_built_at_run_time():
    """engine/ and service/: every template given to a constructor of a human text (and
    every message= / reason= given to a Violation or Reason) is a literal or a marked
    constant, never an f-string, a concatenation or a join, which no catalog can hold."""
    found = []
    for folder in ("engine", "service"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = str(path.relative_to(ROOT))
            for fn in ast.walk(ast.parse(path.read_text())):
                if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    found += _run_time_texts(rel, fn)
    assert found == []


def test_no_placeholder_takes_the_name_of_a_positional_argument():
    """``problem(path, reason, template, /, **params)`` and ``Refused(template, /,
    **params)``: the compiled build refuses a keyword of the same name as a positional-only
    argument (a ``{path}`` placeholder passed as ``path=`` answered 500 there), so no
    placeholder may be called path, reason or template."""
    taken = {"problem": {"path", "reason", "template"}, "Refused": {"template"}}
    found = []
    for folder in ("engine", "service"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                if not isinstance(node, ast.Call):
                    continue
                f = node.func
                name = f.id if isinstance(f, ast.Name) else getattr(f, "attr", "")
                bad = {k.arg for k in node.keywords} & taken.get(name, set())
                if bad:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} {name} {sorted(bad)}")
    assert found == []
