"""English message templates, kept with their parameters so the service can translate them.

The engine speaks English only: a message is a ``str.format`` template with ``{name}``
placeholders and the text of each parameter. ``problem`` builds a ``model.Problem`` whose
description is the template filled in, byte for byte what an f-string made before, and keeps
template and parameters beside it. The service's catalogs (service/i18n) are extracted from
the templates given to ``problem`` and ``N_`` (babel.cfg), so a new message cannot be missed.

A parameter may itself be a message (``text``: an item of a list, a cause): it is kept as
flat parameters, ``name:`` holding its template and ``name.x`` its own parameters, so that
it is said again in the reader's language along with the message around it
(service/i18n/catalogs.say).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .problems import Problem
from .templates import N_ as N_

#: Ends the key of a parameter's own template (``allowed:``); its parameters are ``allowed.x``.
NESTED = ":"


@dataclass(frozen=True)
class Text:
    """A message given as another message's parameter: its English and how it was made."""

    english: str
    template: str
    params: Mapping[str, str]

    def __str__(self) -> str:
        return self.english


def flat(params: Mapping[str, object]) -> dict[str, str]:
    """The parameters as text, each nested message's template and parameters beside it."""
    out: dict[str, str] = {}
    for name, value in params.items():
        if isinstance(value, Text):
            out[name] = value.english
            out[name + NESTED] = value.template
            for key, sub in value.params.items():
                out[f"{name}.{key}"] = sub
        else:
            out[name] = str(value)
    return out


def english(params: Mapping[str, str]) -> dict[str, str]:
    """The parameters a template is filled from (nested messages as their English)."""
    return {k: v for k, v in params.items() if NESTED not in k and "." not in k}


def text(template: str, /, **params: object) -> Text:
    """A message to give as a parameter of another."""
    kept = flat(params)
    return Text(template.format_map(english(kept)), template, kept)


#: How ``joined`` joins the items of a list: each problem in turn, or alternatives.
EACH = N_("{first}; {rest}")
EITHER = N_("{first} or {rest}")
#: A text that is its parameter (a number, a code): the same in every language.
AS_GIVEN = N_("{value}")


def joined(texts: Sequence[Text], template: str) -> Text:
    """``texts`` said as one: ``template`` (``EACH``, ``EITHER``: ``{first}``, ``{rest}``)
    joins them pairwise."""
    out = texts[-1]
    for item in reversed(texts[:-1]):
        out = text(template, first=item, rest=out)
    return out


def said_again(p: Problem) -> Text:
    """A problem's description as a message to give as a parameter (one made without a
    template is its own: a message id with no placeholder)."""
    if p.template:
        return Text(p.description, p.template, dict(p.params))
    return Text(p.description, p.description.replace("{", "{{").replace("}", "}}"), {})


def problem(path: str, reason: str, template: str, /, **params: object) -> Problem:
    """A Problem described by ``template`` filled from ``params`` (each given as ``str``, or a
    ``Text``)."""
    kept = flat(params)
    return Problem(path, reason, template.format_map(english(kept)), template, kept)
