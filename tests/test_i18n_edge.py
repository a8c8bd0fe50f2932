"""Texts worded once, at the edge (docs/i18n.md#how-it-works): every violation code and
every suggestion reason is said in each language from the template and parameters the
engine keeps with it, never read back out of its English; service/i18n holds no pattern
over rendered text and does not know the bots; an answer in one language is never served
to another."""

from __future__ import annotations

import ast
import string

import pytest
from service_fixtures import ROOT

from samba_adjudicator.engine.bots.choice import REASON_TEXTS, reason
from samba_adjudicator.engine.messages import text
from samba_adjudicator.engine.model import GoOut
from samba_adjudicator.engine.violations import (
    CODES,
    SWAP_MISMATCHES,
    filled,
    not_your_turn,
    violation,
)
from samba_adjudicator.service.base import pb
from samba_adjudicator.service.codec.answers import reason_to_proto, violation_to_proto
from samba_adjudicator.service.i18n import catalogs
from samba_adjudicator.service.i18n.negotiation import LANGUAGES
from samba_adjudicator.service.pipeline.api import Adjudicator

OTHERS = [lang for lang in LANGUAGES if lang != "en"]
I18N = ROOT / "service" / "i18n"


def _names(template: str) -> list[str]:
    return [name for _, name, _, _ in string.Formatter().parse(template) if name]


def _every_violation():
    """A violation of every code, each placeholder a distinct value (a ``{reason}`` code: a
    nested reason of its own), and NOT_YOUR_TURN's two texts while "may I go out?" is open."""
    for code, (_, template) in CODES.items():
        if template == "{reason}":
            for mismatch in SWAP_MISMATCHES:
                nested = text(mismatch, **{n: f"<{n}>" for n in _names(mismatch)})
                yield violation(code, "action", reason=nested)
        else:
            yield violation(code, "action", **{n: f"<{n}>" for n in _names(template)})
    yield not_your_turn(0, (2,), 2, GoOut.ASKED)
    yield not_your_turn(0, (1, 3), 3 + 2, GoOut.ASKED)


def _every_reason():
    """A reason of every code and template, SEARCHED's holding each other reason."""
    for code, templates in REASON_TEXTS.items():
        for which, template in enumerate(templates):
            params: dict[str, object] = {n: f"<{n}>" for n in _names(template)}
            if code != "SEARCHED":
                yield reason(code, which, **params)
                continue
            for inner in ("TAKE_PILE", "SAFE_DISCARD", "OPEN"):
                yield reason(code, which, **{**params, "reason": reason(inner, cards=7).said()})


def _values(template: str, params) -> list[str]:
    """The values of the template's placeholders the reader must find again as given (a
    nested message is said anew)."""
    return [params[n] for n in _names(template) if n + ":" not in params]


@pytest.mark.parametrize("lang", OTHERS)
def test_every_violation_code_is_worded_in_each_language_from_its_template(lang):
    seen = set()
    for v in _every_violation():
        seen.add(v.code)
        assert v.template and filled(v.template, v.params) == v.message, v.code
        said = violation_to_proto(v, lang)
        assert said.message == catalogs.say(lang, v.template, v.params), v.code
        assert said.message != v.message, (lang, v.code, said.message)  # no English fallback
        for value in _values(v.template, v.params):
            assert value in said.message, (lang, v.code, said.message)
        assert violation_to_proto(v, "en").message == v.message
    assert seen == set(CODES)


@pytest.mark.parametrize("lang", OTHERS)
def test_every_suggestion_reason_is_worded_in_each_language_from_its_template(lang):
    seen = set()
    for r in _every_reason():
        seen.add(r.code)
        assert r.template in REASON_TEXTS[r.code]
        said = reason_to_proto(r, lang)
        assert said.code == r.code and said.message == catalogs.say(lang, r.template, r.params)
        assert said.message != r.message, (lang, r.code, said.message)  # no English fallback
        for value in _values(r.template, r.params):
            assert value in said.message, (lang, r.code, said.message)
        assert reason_to_proto(r, "en").message == r.message
    assert seen == set(REASON_TEXTS)


def test_a_searched_reason_words_the_reason_it_holds_in_the_same_language():
    inner = reason("TAKE_PILE", cards=9)
    outer = reason("SEARCHED", reason=inner.said(), count=3, worlds=40, mean="+12")
    assert outer.message.startswith(inner.message + ": best of 3 over 40")
    for lang in OTHERS:
        said = reason_to_proto(outer, lang).message
        assert said.startswith(catalogs.say(lang, inner.template, inner.params)), said


def _i18n_sources() -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(I18N.glob("*.py"))}


def test_service_i18n_parses_no_rendered_text_and_does_not_know_the_bots():
    for name, source in _i18n_sources().items():
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Import):
                modules = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                modules = [node.module or ""]
            else:
                continue
            for module in modules:
                assert module not in ("re", "regex", "fnmatch"), (name, module)
                assert ".bots" not in module and not module.endswith("bots"), (name, module)
        assert "localize_response" not in source, name  # no answer copied to be translated


@pytest.mark.parametrize("method", ["ListRulesets", "GetRuleset"])
def test_an_answer_in_one_language_is_never_served_to_another(method):
    """The parameter descriptions are kept one list per language: asked in turn, each
    language gets its own words, and English its own bytes."""
    adj = Adjudicator()
    request = pb.ListRulesetsRequest() if method == "ListRulesets" else pb.GetRulesetRequest()
    if method == "GetRuleset":
        request.profile = "spanish+uruguayan"
    english = adj.call(method, request).SerializeToString(deterministic=True)
    said = {}
    for lang in OTHERS + OTHERS:
        answer = adj.call(method, request, lang=lang).SerializeToString(deterministic=True)
        assert said.setdefault(lang, answer) == answer
        assert adj.call(method, request).SerializeToString(deterministic=True) == english
    assert len({english, *said.values()}) == len(LANGUAGES)
