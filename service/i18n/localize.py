"""Answers and errors with every human text in the request's language.

English answers are never touched (their bytes stay those of a request that names no
language). Another language gets a copy of the answer with:

- each ``Violation.message`` said again from its code's template and its ``details``;
- each ``Ruleset.description`` (ListRulesets, GetRuleset) from the profile's description,
  and each of its ``parameter_descriptions`` (GetRuleset) from its English text, which is
  its template (it has no placeholders);
- a ``SuggestionReason.message`` (SuggestAction) from the template of its code that made it;
- a ``VerifyDealProblem.description`` (VerifyDeal) from its reason's text;
- an error's message, and each field problem's description, from their templates (or, for a
  text built without parameters, the text itself as the message id).
"""

from __future__ import annotations

import functools
import re
import string

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from samba_adjudicator.engine.bots.choice import REASON_TEXTS
from samba_adjudicator.engine.deal_proof import TEXTS as DEAL_PROOF_TEXTS
from samba_adjudicator.engine.messages import NESTED
from samba_adjudicator.engine.model import Problem
from samba_adjudicator.engine.ruleset import PROFILE_DESCRIPTIONS, profile_parts
from samba_adjudicator.engine.violations import CODES, filled, said_as

from ..base.errors import MAX_TEXT, ApiError, clip, summary
from .catalogs import say, say_plural
from .negotiation import DEFAULT

VIOLATION = "samba.v1.Violation"
RULESET = "samba.v1.Ruleset"
SUGGESTION_REASON = "samba.v1.SuggestionReason"
DEAL_PROBLEM = "samba.v1.VerifyDealProblem"
_LOCALIZED = (VIOLATION, RULESET, SUGGESTION_REASON, DEAL_PROBLEM)


def violation_message(
    lang: str, code: str, details: dict[str, str], english: str | None = None
) -> str:
    """The message of a violation of ``code`` with ``details``, in ``lang``: said from the
    template that makes its ``english`` message (engine.violations.said_as), else from the
    code's."""
    template = CODES[code][1] if code in CODES else ""
    if not template:
        return ""
    if english is not None:
        for candidate, params in said_as(code, details):
            if filled(candidate, params) == english:
                return say(lang, candidate, params)
    if template == "{reason}":  # the engine's reason, itself an English message id
        return say(lang, details.get("reason", ""))
    return say(lang, template, details)


def ruleset_description(lang: str, profile: str) -> str:
    """A profile's description (with its ``+``-joined variations) in ``lang``."""
    base, variations = profile_parts(profile)
    english = PROFILE_DESCRIPTIONS.get(base, "")
    text = say(lang, english) if english else ""
    if variations:
        text += say(lang, " Variations: {variations}.", {"variations": ", ".join(variations)})
    return text


@functools.cache
def _pattern(template: str) -> re.Pattern[str]:
    """What ``template`` makes, each placeholder a named group."""
    parts = []
    for literal, name, _, _ in string.Formatter().parse(template):
        parts.append(re.escape(literal))
        if name is not None:
            parts.append(f"(?P<{name}>.+?)")
    return re.compile("".join(parts), re.S)


def _reason_params(code: str, english: str) -> tuple[str, dict[str, str]] | None:
    """The template of ``code`` that made ``english``, and its parameters (a ``reason``
    parameter, another reason's message, as a nested message)."""
    for template in REASON_TEXTS.get(code, ()):
        found = _pattern(template).fullmatch(english)
        if found is None:
            continue
        params = found.groupdict()
        inner = params.get("reason")
        if inner is not None:
            nested = next(
                (p for c in REASON_TEXTS if c != code for p in [_reason_params(c, inner)] if p),
                None,
            )
            if nested is not None:
                params["reason" + NESTED] = nested[0]
                params.update({f"reason.{k}": v for k, v in nested[1].items()})
        return template, params
    return None


def suggestion_message(lang: str, code: str, english: str) -> str:
    """A SuggestionReason's message in ``lang`` (its English when no template of its code
    made it)."""
    said = _reason_params(code, english)
    return english if said is None else say(lang, said[0], said[1])


@functools.cache
def _holds_text(desc: Descriptor) -> bool:
    """Whether messages of ``desc`` can hold a Violation or a Ruleset (snapshots cannot: the
    walk never enters them)."""
    return _reaches(desc, set())


def _reaches(desc: Descriptor, seen: set[str]) -> bool:
    if desc.full_name in _LOCALIZED:
        return True
    seen.add(desc.full_name)
    return any(
        f.message_type is not None
        and f.message_type.full_name not in seen
        and _reaches(f.message_type, seen)
        for f in desc.fields
    )


def _repeated(f: FieldDescriptor) -> bool:
    # protobuf 6 says ``is_repeated``; 5 only ``label``
    is_repeated = getattr(f, "is_repeated", None)
    if is_repeated is not None:
        return bool(is_repeated)
    return f.label == FieldDescriptor.LABEL_REPEATED


def _rewrite_leaf(msg: Message, name: str, lang: str) -> bool:
    """Say again a message that holds text and no further message with text; False for any
    other message."""
    if name == VIOLATION:
        text = violation_message(lang, msg.code, dict(msg.details), msg.message)
        if text:
            msg.message = text
    elif name == SUGGESTION_REASON:
        msg.message = suggestion_message(lang, msg.code, msg.message)
    elif name == DEAL_PROBLEM:  # VerifyDeal: the text of its reason
        if msg.reason in DEAL_PROOF_TEXTS:
            msg.description = say(lang, DEAL_PROOF_TEXTS[msg.reason], {"field": msg.field})
    else:
        return False
    return True


def _rewrite(msg: Message, lang: str) -> None:
    name = msg.DESCRIPTOR.full_name
    if _rewrite_leaf(msg, name, lang):
        return
    if name == RULESET:
        msg.description = ruleset_description(lang, msg.profile)
        for parameter in msg.parameter_descriptions:
            parameter.description = say(lang, parameter.description)
    for f, value in msg.ListFields():
        if f.message_type is None or not _holds_text(f.message_type):
            continue
        if f.message_type.GetOptions().map_entry:
            continue
        items = value if _repeated(f) else [value]
        for item in items:
            _rewrite(item, lang)


def localize_response(response: Message, lang: str) -> Message:
    """``response`` in ``lang``: itself for English, else a localized copy (answers may be
    shared: cached rulesets, remembered snapshots)."""
    if lang == DEFAULT or not _holds_text(response.DESCRIPTOR):
        return response
    copy = type(response)()
    copy.CopyFrom(response)
    _rewrite(copy, lang)
    return copy


def problem_text(lang: str, p: Problem) -> str:
    """A field problem's description in ``lang``."""
    if p.template:
        return clip(say(lang, p.template, p.params))
    return clip(say(lang, p.description))


def summary_in(lang: str, problems: list[Problem], omitted: int) -> str:
    """``service.base.errors.summary`` in ``lang``: the first problem, and how many more."""
    if not problems:
        return say(lang, "invalid request")
    first = problems[0]
    if first.field:
        text = say(
            lang, "{field}: {description}", {"field": first.field, "description": first.description}
        )
    else:
        text = first.description
    more = len(problems) - 1 + omitted
    if more and omitted:
        text += say_plural(
            lang,
            " (and {count} more problem; {omitted} not listed)",
            " (and {count} more problems; {omitted} not listed)",
            more,
            {"count": str(more), "omitted": str(omitted)},
        )
    elif more:
        text += say_plural(
            lang,
            " (and {count} more problem)",
            " (and {count} more problems)",
            more,
            {"count": str(more)},
        )
    return text


def localize_error(err: ApiError, lang: str) -> ApiError:
    """``err`` in ``lang``: itself for English, else a copy with every text translated."""
    if lang == DEFAULT:
        return err
    problems = [
        Problem(p.field, p.reason, problem_text(lang, p), p.template, p.params)
        for p in err.field_violations
    ]
    if err.template:
        message = say(lang, err.template, err.params)
    elif err.is_invalid_argument and err.message == clip(
        summary(err.field_violations, err.omitted), 2 * MAX_TEXT
    ):
        message = summary_in(lang, problems, err.omitted)
    else:
        message = say(lang, err.message)
    return ApiError(
        err.code,
        err.reason,
        clip(message, 2 * MAX_TEXT),
        problems,
        err.omitted,
        http=err.http,
        template=err.template,
        params=err.params,
    )
