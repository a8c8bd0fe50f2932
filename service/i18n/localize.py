"""Errors with every human text in the request's language (docs/i18n.md).

An answer's texts (violations, ruleset descriptions, suggestion reasons, VerifyDeal's
problems) are said once, in the caller's language, where the service turns the engine's
values into messages (``catalogs.word``). An error is said again here: its message and each
field problem's description from their templates (or, for a text built without parameters,
the text itself as the message id); an invalid argument's message, which is always the
summary of its problems (``service.base.errors.invalid_argument``), from those problems.
"""

from __future__ import annotations

from samba_adjudicator.engine.model import Problem
from samba_adjudicator.engine.violations import CODES

from ..base.errors import MAX_TEXT, ApiError, clip, summary
from .catalogs import say, say_plural
from .negotiation import DEFAULT


def violation_message(lang: str, code: str, details: dict[str, str]) -> str:
    """The message of a violation of ``code`` in ``lang`` from its code's template and
    ``details`` (a ``{reason}`` code: its reason, itself a message id); "" for no code."""
    template = CODES[code][1] if code in CODES else ""
    if template == "{reason}":
        return say(lang, details.get("reason", ""))
    return say(lang, template, details) if template else ""


def problem_text(lang: str, p: Problem) -> str:
    """A field problem's description in ``lang``."""
    if p.template:
        return clip(say(lang, p.template, p.params))
    return clip(say(lang, p.description))


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
    elif err.is_invalid_argument:
        message = summary(problems, err.omitted, lang, say, say_plural)
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
