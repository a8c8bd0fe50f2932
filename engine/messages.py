"""English message templates, kept with their parameters so the service can translate them.

The engine speaks English only: a message is a ``str.format`` template with ``{name}``
placeholders and the text of each parameter. ``problem`` builds a ``model.Problem`` whose
description is the template filled in, byte for byte what an f-string made before, and keeps
template and parameters beside it. The service's catalogs (service/i18n) are extracted from
the templates given to ``problem`` and ``N_`` (babel.cfg), so a new message cannot be missed.
"""

from __future__ import annotations

from .problems import Problem
from .templates import N_ as N_


def fill(template: str, params: dict[str, str]) -> str:
    """The template with every ``{name}`` replaced by its parameter."""
    return template.format_map(params)


def problem(path: str, reason: str, template: str, /, **params: object) -> Problem:
    """A Problem described by ``template`` filled from ``params`` (each given as ``str``)."""
    text = {k: str(v) for k, v in params.items()}
    return Problem(path, reason, template.format_map(text), template, text)
