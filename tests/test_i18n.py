"""Answers in the players' languages (docs/i18n.md): the catalogs are complete, every
violation code speaks every language, negotiation follows Accept-Language, and both
transports answer in the language asked for while English answers keep their bytes."""

from __future__ import annotations

import json
import re
import string
from collections import Counter

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po
from service_fixtures import ROOT, channel, grpc_call, http, rest_call, server, stub  # noqa: F401

from samba_adjudicator.engine.violations import CODES
from samba_adjudicator.service.i18n import catalogs, localize, texts
from samba_adjudicator.service.i18n.negotiation import LANGUAGES, choose

LOCALE = ROOT / "service" / "i18n" / "locale-data"
OTHERS = [lang for lang in LANGUAGES if lang != "en"]


def _keywords() -> dict:
    """The Makefile's BABEL_KEYWORDS (one statement of them), as Babel's keyword table."""
    text = (ROOT / "Makefile").read_text()
    block = re.search(r"^BABEL_KEYWORDS := (.*?)(?<!\\)\n", text, re.S | re.M).group(1)
    out = {}
    for spec in re.findall(r"-k (\S+)", block):
        name, _, args = spec.partition(":")
        out[name] = tuple(int(a) for a in args.split(",")) if args else None
    return out


def _extracted() -> set[str]:
    found = set()
    for folder in ("engine", "service"):
        for _, _, message, _, _ in extract_from_dir(
            ROOT / folder, [("**.py", "python")], keywords=_keywords()
        ):
            found.add(message if isinstance(message, str) else message[0])
    return found


def _placeholders(text: str) -> Counter:
    return Counter(name for _, name, _, _ in string.Formatter().parse(text) if name is not None)


def _catalog(lang: str):
    with (LOCALE / lang / "LC_MESSAGES" / "messages.po").open("rb") as f:
        return read_po(f, locale=lang)


def test_the_template_holds_every_message_of_the_code():
    """messages.pot is what `make messages` extracts now: no message was added unseen."""
    with (LOCALE / "messages.pot").open("rb") as f:
        pot = {m.id if isinstance(m.id, str) else m.id[0] for m in read_po(f) if m.id}
    assert _extracted() == pot


@pytest.mark.parametrize("lang", OTHERS)
def test_every_message_is_translated_with_the_same_placeholders(lang):
    with (LOCALE / "messages.pot").open("rb") as f:
        pot = [m for m in read_po(f) if m.id]
    po = _catalog(lang)
    for m in pot:
        entry = po.get(m.id)
        assert entry is not None, f"{lang}: {m.id!r} missing"
        forms = entry.string if isinstance(entry.string, tuple) else (entry.string,)
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        assert all(forms), f"{lang}: {m.id!r} untranslated"
        assert not entry.fuzzy, f"{lang}: {m.id!r} fuzzy"
        for form in forms:
            assert _placeholders(form) == _placeholders(ids[-1]), (lang, m.id, form)
    # the compiled catalog is the .po (the build ran Babel)
    assert catalogs.translations(lang).gettext(pot[-1].id) != ""


def test_every_violation_code_is_a_catalog_message():
    extracted = _extracted()
    assert {template for _, template in CODES.values()} <= extracted


def _details(template: str) -> dict[str, str]:
    return {name: f"<{name}>" for name in _placeholders(template)}


@pytest.mark.parametrize("lang", OTHERS)
def test_every_violation_code_renders_in_each_language_from_its_details(lang):
    for code, (_, template) in CODES.items():
        details = _details(template) if template != "{reason}" else {"reason": "?"}
        if template == "{reason}":
            reason = "this ruleset does not allow swapping a wild"
            said = localize.violation_message(lang, code, {"reason": reason})
            assert said and said != reason, code
            continue
        said = localize.violation_message(lang, code, details)
        assert said != template.format_map(details), (lang, code)
        for value in details.values():
            assert value in said, (lang, code, said)


def test_english_renders_the_engines_own_message():
    from samba_adjudicator.engine.violations import violation

    v = violation("INITIAL_MELD_TOO_LOW", required=50, actual=30)
    assert localize.violation_message("en", v.code, dict(v.details)) == v.message


@pytest.mark.parametrize(
    ("header", "lang"),
    [
        (None, "en"),
        ("", "en"),
        ("es", "es"),
        ("es-AR", "es"),
        ("ES-ar, en;q=0.5", "es"),
        ("fr, it;q=0.5, sv;q=0.6", "sv"),
        ("de, fr", "en"),
        ("*", "en"),
        ("sv;q=0, es;q=0.1", "es"),
        ("en, es", "en"),
        ("en;q=0.4, it", "it"),
        ("it;q=bogus, sv;q=0.2", "sv"),
        ("pt-BR;q=1.5", "en"),
    ],
)
def test_accept_language_is_negotiated_with_q_values_and_regional_tags(header, lang):
    assert choose(header) == lang


def test_page_texts_cover_every_event_type_in_every_language():
    from samba_adjudicator.service.base import pb

    names = {v.name for v in pb.Event.Type.DESCRIPTOR.values} - {"TYPE_UNSPECIFIED"}
    assert set(texts.EVENT_TEXTS) == names
    for lang in OTHERS:
        said = texts.page_texts(lang)
        assert said["events"]["DISCARDED"] != texts.EVENT_TEXTS["DISCARDED"]
        assert set(said["scoreLabels"]) == set(texts.SCORE_LABELS)


# -- end to end ----------------------------------------------------------------------------

#: What the initial meld below the requirement says in each language (50 required, 30 counted
#: for three tens, kings, … ; 15 for three of 4..7): the words of each language's sources.
OPENING_WORDS = {"es": "bajada", "it": "apertura", "sv": "första meldingen"}


def _opening_below_requirement(http) -> dict:
    """A ValidateAction request: the player to move melds three naturals of one rank 4..K,
    under the 50 points the first meld needs."""
    for n in range(40):
        deal = http.post("/v1/deals:deal", content=json.dumps({"players": 4, "seed": f"i18n-{n}"}))
        snap = deal.json()["snapshot"]
        seat = snap["turn"]["seat"]
        drawn = http.post(
            "/v1/actions:apply",
            content=json.dumps({"snapshot": snap, "action": {"seat": seat, "drawStock": {}}}),
        ).json()["snapshot"]
        hand = drawn["seats"][seat]["hand"]
        by_rank: dict[str, list[str]] = {}
        for card in hand:
            by_rank.setdefault(card[:-1], []).append(card)
        for rank, cards in by_rank.items():
            if rank in ("4", "5", "6", "7", "8", "9", "10", "T", "J", "Q", "K") and len(cards) >= 3:
                action = {"seat": seat, "meld": {"newMelds": [{"cards": cards[:3]}]}}
                return {"snapshot": drawn, "action": action}
    raise AssertionError("no deal gave a low opening")


@pytest.fixture(scope="module")
def low_opening(http):
    return _opening_below_requirement(http)


def _opening_violation(body: dict) -> dict:
    assert body["legal"] is False
    return next(v for v in body["violations"] if v["code"] == "INITIAL_MELD_TOO_LOW")


@pytest.mark.servers
@pytest.mark.parametrize("lang", OTHERS)
def test_rest_answers_a_low_opening_in_the_language_asked_for(http, low_opening, lang):
    region = {"es": "es-AR", "it": "it-IT;q=0.9, en;q=0.2", "sv": "sv-SE"}[lang]
    r = http.post(
        "/v1/actions:validate",
        content=json.dumps(low_opening),
        headers={"accept-language": region},
    )
    assert r.status_code == 200
    assert r.headers["content-language"] == lang
    assert "accept-language" in r.headers["vary"].lower()
    v = _opening_violation(r.json())
    english = _opening_violation(
        http.post("/v1/actions:validate", content=json.dumps(low_opening)).json()
    )
    assert OPENING_WORDS[lang] in v["message"]
    assert v["details"]["required"] in v["message"] and v["details"]["actual"] in v["message"]
    # machine fields are never translated
    assert {k: v[k] for k in ("code", "rule", "details", "field")} == {
        k: english[k] for k in ("code", "rule", "details", "field")
    }


@pytest.mark.servers
@pytest.mark.parametrize("header", [None, "en", "en-GB", "fr-FR", "de, pt;q=0.5"])
def test_english_and_unknown_languages_answer_the_bytes_of_no_header(http, low_opening, header):
    plain = http.post("/v1/actions:validate", content=json.dumps(low_opening))
    headers = {} if header is None else {"accept-language": header}
    asked = http.post("/v1/actions:validate", content=json.dumps(low_opening), headers=headers)
    assert asked.content == plain.content
    assert asked.headers["content-language"] == "en"
    assert "the initial meld needs" in _opening_violation(asked.json())["message"]


@pytest.mark.servers
@pytest.mark.parametrize("lang", OTHERS)
def test_grpc_answers_a_low_opening_in_the_language_of_its_metadata(stub, low_opening, lang):
    response = grpc_call(
        stub, "ValidateAction", low_opening, metadata=(("accept-language", lang + "-XX"),)
    )
    v = next(v for v in response.violations if v.code == "INITIAL_MELD_TOO_LOW")
    assert OPENING_WORDS[lang] in v.message
    assert v.details["required"] in v.message and v.details["actual"] in v.message


@pytest.mark.servers
def test_grpc_english_bytes_are_unchanged_and_content_language_is_sent(stub, low_opening):
    from google.protobuf import json_format

    from samba_adjudicator.service.pipeline.api import METHODS

    request = json_format.ParseDict(low_opening, METHODS["ValidateAction"][0]())
    plain = stub.ValidateAction(request)
    asked, call = stub.ValidateAction.with_call(request, metadata=(("accept-language", "fr"),))
    assert asked.SerializeToString(deterministic=True) == plain.SerializeToString(
        deterministic=True
    )
    assert ("content-language", "en") in tuple(call.trailing_metadata())


@pytest.mark.servers
@pytest.mark.parametrize("lang", OTHERS)
def test_errors_and_their_problems_speak_the_language_over_rest(http, lang):
    body = {"players": 4, "seed": "x", "dealer": 9}
    plain = http.post("/v1/deals:deal", content=json.dumps(body)).json()["error"]
    r = http.post("/v1/deals:deal", content=json.dumps(body), headers={"accept-language": lang})
    assert r.status_code == 400 and r.headers["content-language"] == lang
    error = r.json()["error"]
    problems = error["details"][1]["fieldViolations"]
    english = plain["details"][1]["fieldViolations"]
    assert [(p["field"], p["reason"]) for p in problems] == [
        (p["field"], p["reason"]) for p in english
    ]
    assert problems[0]["description"] != english[0]["description"]
    assert "9" in problems[0]["description"]
    assert error["message"] != plain["message"] and error["status"] == plain["status"]
    assert error["message"].startswith("dealer: ")


@pytest.mark.servers
@pytest.mark.parametrize("lang", OTHERS)
def test_errors_speak_the_language_over_grpc(stub, lang):
    import grpc
    from grpc_status import rpc_status

    with pytest.raises(grpc.RpcError) as info:
        grpc_call(
            stub,
            "Deal",
            {"players": 4, "seed": "x", "dealer": 9},
            metadata=(("accept-language", lang),),
        )
    status = rpc_status.from_call(info.value)
    assert status.code == 3  # INVALID_ARGUMENT
    english = "dealer must be a seat 0..3, not 9"
    assert english not in status.message and "9" in status.message


@pytest.mark.servers
@pytest.mark.parametrize("lang", OTHERS)
def test_ruleset_descriptions_speak_the_language(http, lang):
    plain = rest_call(http, "GetRuleset", {"profile": "spanish+uruguayan"}).json()
    r = rest_call(
        http, "GetRuleset", {"profile": "spanish+uruguayan"}, headers={"accept-language": lang}
    )
    said = r.json()
    assert said["description"] != plain["description"] and said["description"]
    assert "uruguayan" in said["description"]
    texts = ("description", "parameterDescriptions")  # tests/test_parameter_descriptions.py
    assert {k: v for k, v in said.items() if k not in texts} == {
        k: v for k, v in plain.items() if k not in texts
    }
    listed = http.get("/v1/rulesets", headers={"accept-language": lang}).json()["rulesets"]
    assert all(
        x["description"] != y["description"]
        for x, y in zip(listed, http.get("/v1/rulesets").json()["rulesets"], strict=True)
    )


@pytest.mark.parametrize("lang", OTHERS)
def test_the_cli_answers_in_the_language_of_its_lang_flag(lang):
    import subprocess
    import sys

    request = json.dumps({"players": 4, "seed": "x", "dealer": 9})
    command = [sys.executable, "-m", "samba_adjudicator.service.transport.cli", "deal"]

    def answer(*flags: str) -> dict:
        p = subprocess.run(
            command + list(flags), input=request, capture_output=True, text=True, timeout=60
        )
        return json.loads(p.stdout)["error"]

    plain, asked = answer(), answer("--lang", lang + "-XX")
    assert answer("--lang", "xx")["message"] == plain["message"]  # unknown: English
    assert plain["message"] == "dealer: dealer must be a seat 0..3, not 9"
    assert asked["message"] != plain["message"] and asked["message"].startswith("dealer: ")
    assert asked["status"] == plain["status"]


@pytest.mark.servers
@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_the_python_client_locale_option_chooses_the_language(server, low_opening, transport):
    from samba_adjudicator.client import Client

    target = server.grpc_target if transport == "grpc" else server.base_url
    with getattr(Client, transport)(target, locale="sv-SE") as client:
        answer = client.validate_action(low_opening)
    with getattr(Client, transport)(target) as client:
        english = client.validate_action(low_opening)
    said, plain = _opening_violation(answer), _opening_violation(english)  # dicts in, dicts out
    assert OPENING_WORDS["sv"] in said["message"]
    assert plain["message"].startswith("the initial meld")
