"""Every parameter of a Ruleset says what it means (Ruleset.parameter_descriptions): one
sentence and the section of docs/rules.md that says it, per parameter field, in the
language asked for (docs/i18n.md); GetRuleset answers them, ListRulesets does not."""

from __future__ import annotations

import pytest
from service_fixtures import channel, cli_call, grpc_call, http, rest_call, server, stub  # noqa: F401
from test_docs import resolves

from samba_adjudicator.engine.parameter_descriptions import PARAMETER_DESCRIPTIONS
from samba_adjudicator.engine.ruleset import resolve
from samba_adjudicator.service.base import pb
from samba_adjudicator.service.codec.rulesets import ruleset_to_proto
from samba_adjudicator.service.i18n import catalogs
from samba_adjudicator.service.i18n.negotiation import LANGUAGES

OTHERS = [lang for lang in LANGUAGES if lang != "en"]
#: Ruleset fields that are no parameter: the resolved profile, its version and the texts.
NOT_PARAMETERS = {"profile", "version", "description", "parameter_descriptions"}
PARAMETER_FIELDS = [f for f in pb.Ruleset.DESCRIPTOR.fields if f.name not in NOT_PARAMETERS]
#: The wild rule's sentence holds each language's word for a wild card (docs/i18n.md).
WILD = {"es": "comodines", "it": "jolly", "sv": "jokrar"}


def test_every_parameter_field_has_one_description_and_one_rule_of_the_docs():
    said = ruleset_to_proto(resolve("classic"), with_descriptions=True).parameter_descriptions
    # one entry per parameter field, in the fields' order, named as field paths are
    assert [d.field for d in said] == [f.json_name for f in PARAMETER_FIELDS]
    assert len(PARAMETER_FIELDS) == 43
    for d in said:
        assert d.description.endswith(".") and "{" not in d.description, d.field
        assert d.rule.startswith("docs/rules.md#") and resolves(d.rule), (d.field, d.rule)
    # the texts are the engine's English templates
    assert [d.description for d in said] == [t for t, _ in PARAMETER_DESCRIPTIONS.values()]


@pytest.mark.parametrize("lang", OTHERS)
def test_every_description_is_said_in_each_language(lang):
    for text, _ in PARAMETER_DESCRIPTIONS.values():
        assert catalogs.say(lang, text) != text, (lang, text)


def _by_field(descriptions) -> dict[str, tuple[str, str]]:
    return {d["field"]: (d["description"], d["rule"]) for d in descriptions}


@pytest.mark.servers
def test_get_ruleset_answers_the_english_descriptions_by_default(http):
    plain = rest_call(http, "GetRuleset", {"profile": "pagat"}).json()
    english = rest_call(
        http, "GetRuleset", {"profile": "pagat"}, headers={"accept-language": "en-GB"}
    ).json()
    assert plain == english
    said = _by_field(plain["parameterDescriptions"])
    assert said["groupWildRule"] == (
        "How many wild cards a group may hold against its naturals.",
        "docs/rules.md#wild-rules",
    )
    assert set(said) == {f.json_name for f in PARAMETER_FIELDS}
    # the values are the profile's (the descriptions do not depend on them)
    assert plain["groupWildRule"] == "TWICE_NATURALS"


@pytest.mark.servers
@pytest.mark.parametrize("lang", OTHERS)
def test_get_ruleset_over_rest_answers_the_descriptions_in_the_language_asked_for(http, lang):
    plain = rest_call(http, "GetRuleset", {"profile": "classic+open"}).json()
    r = rest_call(
        http, "GetRuleset", {"profile": "classic+open"}, headers={"accept-language": lang + "-XX"}
    )
    assert r.status_code == 200 and r.headers["content-language"] == lang
    said = _by_field(r.json()["parameterDescriptions"])
    english = _by_field(plain["parameterDescriptions"])
    assert set(said) == set(english)
    for field, (text, rule) in said.items():
        assert rule == english[field][1]  # rule anchors are never translated
        assert text == catalogs.say(lang, english[field][0]) != english[field][0]
    assert WILD[lang] in said["groupWildRule"][0]


@pytest.mark.servers
@pytest.mark.parametrize("lang", OTHERS)
def test_get_ruleset_over_grpc_answers_the_descriptions_in_the_language_of_its_metadata(stub, lang):
    plain = grpc_call(stub, "GetRuleset", {"profile": "spanish"})
    asked = grpc_call(
        stub, "GetRuleset", {"profile": "spanish"}, metadata=(("accept-language", lang),)
    )
    assert [(d.field, d.rule) for d in asked.parameter_descriptions] == [
        (d.field, d.rule) for d in plain.parameter_descriptions
    ]
    for d, english in zip(asked.parameter_descriptions, plain.parameter_descriptions, strict=True):
        assert d.description == catalogs.say(lang, english.description) != english.description
    wild_rule = next(d for d in asked.parameter_descriptions if d.field == "groupWildRule")
    assert WILD[lang] in wild_rule.description


@pytest.mark.servers
def test_list_rulesets_leaves_the_descriptions_out(http):
    listed = http.get("/v1/rulesets").json()["rulesets"]
    assert listed and all(not r.get("parameterDescriptions") for r in listed)


def test_the_cli_says_the_descriptions_in_the_language_of_samba_lang():
    code, answer = cli_call("GetRuleset", {"profile": "classic"}, env={"SAMBA_LANG": "it"})
    assert code == 0
    decks = answer["parameterDescriptions"][0]
    assert decks == {
        "field": "decks",
        "description": catalogs.say("it", PARAMETER_DESCRIPTIONS["decks"][0]),
        "rule": "docs/rules.md#cards",
    }
    assert decks["description"] != PARAMETER_DESCRIPTIONS["decks"][0]
