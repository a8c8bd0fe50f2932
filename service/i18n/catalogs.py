"""The compiled gettext catalogs (``locale-data/<lang>/LC_MESSAGES/messages.mo``), read with the
standard library: Babel compiles them from the ``.po`` sources when the project is built.

English has no catalog: a template is its own English text.
"""

from __future__ import annotations

import functools
import gettext
from collections.abc import Mapping
from pathlib import Path

from samba_adjudicator.engine.messages import NESTED

from .negotiation import DEFAULT

# "locale-data" is no importable name, so setuptools packs it as data, not as packages
LOCALE_DIR = Path(__file__).resolve().parent / "locale-data"
DOMAIN = "messages"


class MissingCatalog(RuntimeError):
    """A served language whose compiled catalog is absent (the build did not run Babel)."""


@functools.cache
def translations(lang: str) -> gettext.NullTranslations:
    """The catalog of ``lang`` (a served language); English is the templates themselves."""
    if lang == DEFAULT:
        return gettext.NullTranslations()
    try:
        return gettext.translation(DOMAIN, LOCALE_DIR, languages=[lang])
    except OSError as e:
        raise MissingCatalog(
            f"no compiled catalog for {lang!r} in {LOCALE_DIR} (make install compiles them)"
        ) from e


class _Unknown(dict[str, str]):
    """Parameters, with a placeholder that names none shown as ``?`` (engine.violations)."""

    def __missing__(self, key: str) -> str:
        return "?"


def say(lang: str, template: str, params: Mapping[str, str] | None = None) -> str:
    """``template`` in ``lang``, its ``{name}`` placeholders filled from ``params``."""
    text = translations(lang).gettext(template)
    return text.format_map(_Unknown(_said(lang, params))) if params is not None else text


def word(lang: str, english: str, template: str, params: Mapping[str, str]) -> str:
    """A text the engine made in English from ``template`` and ``params``, in ``lang``: for
    English (or a text made without a template) its own bytes, else said from its template."""
    if lang == DEFAULT or not template:
        return english
    return say(lang, template, params)


def _said(lang: str, params: Mapping[str, str]) -> Mapping[str, str]:
    """The parameters in ``lang``: each one that is itself a message (engine.messages.Text,
    its template at ``name:``, its parameters at ``name.x``) said again from its template."""
    if not any(k.endswith(NESTED) for k in params):
        return params
    out = {k: v for k, v in params.items() if NESTED not in k and "." not in k}
    for name in out:
        template = params.get(name + NESTED)
        if template is not None:
            prefix = name + "."
            own = {k[len(prefix) :]: v for k, v in params.items() if k.startswith(prefix)}
            out[name] = say(lang, template, own)
    return out


def say_plural(lang: str, singular: str, plural: str, n: int, params: Mapping[str, str]) -> str:
    """The form of ``singular``/``plural`` that ``n`` takes in ``lang``, filled in."""
    return (
        translations(lang).ngettext(singular, plural, n).format_map(_Unknown(_said(lang, params)))
    )
