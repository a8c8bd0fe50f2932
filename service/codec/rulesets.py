"""Rulesets: protobuf RulesetRef / RulesetOverrides / Ruleset <-> engine (docs/api.md#resources).

An unknown profile or parameter is a Problem at its path; answers name the variations in
their documented order."""

from __future__ import annotations

import dataclasses
import enum
import functools
from typing import Any

from google.protobuf.message import Message

from samba_adjudicator.engine import model as m
from samba_adjudicator.engine import ruleset as er
from samba_adjudicator.engine.messages import EACH, N_, joined, problem, said_again
from samba_adjudicator.engine.model import Problem
from samba_adjudicator.engine.parameter_descriptions import PARAMETER_DESCRIPTIONS
from samba_adjudicator.engine.premium_kinds import ConcealedPremium

from ..base import pb
from ..base.errors import MAX_ECHO, ApiError, Problems, api_error, echo
from ..i18n.catalogs import say
from ..i18n.negotiation import DEFAULT
from .paths import camel, json_path

# -- generic enum / dataclass helpers -----------------------------------------------------


def _enum_name(f, number: int) -> str | None:
    v = f.enum_type.values_by_number.get(number)
    return None if v is None or v.number == 0 else v.name


def _set(msg: Message, name: str, value: Any) -> None:
    """Set proto field ``name`` from an engine value (enum, dataclass tuple, scalar)."""
    f = msg.DESCRIPTOR.fields_by_name[name]
    if f.is_repeated:
        target = getattr(msg, name)
        for item in value:
            if dataclasses.is_dataclass(item) and not isinstance(item, type):
                sub = target.add()
                for k, v in dataclasses.asdict(item).items():
                    setattr(sub, k, v)
            else:
                target.append(item)
    elif isinstance(value, enum.Enum):
        setattr(msg, name, f.enum_type.values_by_name[value.name].number)
    else:
        setattr(msg, name, value)


# -- rulesets -----------------------------------------------------------------------------

_ROW_TYPES = {
    "TableSize": er.TableSize,
    "InitialMeldBand": er.InitialMeldBand,
    "ConcealedPremium": ConcealedPremium,
}


def overrides_from_proto(msg: pb.RulesetOverrides, path: str, problems: Problems) -> dict[str, Any]:
    """The engine's overrides dict: only the fields set (lists: non-empty)."""
    out: dict[str, Any] = {}
    if not msg.ListFields():  # the common case: no override, nothing to look at
        return out
    for f in msg.DESCRIPTOR.fields:
        fpath = f"{path}.{f.json_name}"
        if f.is_repeated:
            rows = getattr(msg, f.name)
            if rows:
                cls = _ROW_TYPES[f.message_type.name]
                out[f.name] = tuple(
                    cls(**{g.name: getattr(r, g.name) for g in r.DESCRIPTOR.fields}) for r in rows
                )
        elif msg.HasField(f.name):
            value = getattr(msg, f.name)
            if f.enum_type is not None:
                name = _enum_name(f, value)
                if name is None:
                    problems.append(
                        problem(
                            fpath,
                            "OUT_OF_RANGE",
                            "{field} must name a {type}",
                            field=fpath,
                            type=f.enum_type.name,
                        )
                    )
                    continue
                value = getattr(er, f.enum_type.name)[name]
            out[f.name] = value
    return out


def overrides_to_proto(overrides: dict[str, Any]) -> pb.RulesetOverrides:
    msg = pb.RulesetOverrides()
    for name, value in overrides.items():
        _set(msg, name, value)
    return msg


def ruleset_ref_from_proto(
    msg: pb.RulesetRef, path: str, problems: Problems
) -> tuple[er.Ruleset | None, m.RulesetRef]:
    """Resolve a RulesetRef; problems (unknown profile, parameter, …) are appended.

    The version pin is *not* checked here (it is FAILED_PRECONDITION, not invalid input):
    the caller compares ``ref.version`` with ``ruleset.version``.
    """
    local: list[Problem] = []
    overrides = overrides_from_proto(msg.overrides, f"{path}.overrides", local)
    profile = msg.profile or er.DEFAULT_PROFILE
    ref = m.RulesetRef(profile=profile, overrides=overrides, version=msg.version)
    problems.extend(local)
    if local:
        return None, ref
    try:
        rules = er.resolve(profile, overrides, path=path)
    except er.RulesetError as e:
        problems.extend(
            [
                Problem(json_path(p.field), p.reason, p.description, p.template, p.params)
                for p in e.problems
            ]
        )
        return None, ref
    # Answers name the variations in their documented order, however the request put them.
    if rules.profile == profile:
        return rules, ref
    return rules, m.RulesetRef(profile=rules.profile, overrides=overrides, version=msg.version)


def ruleset_ref_to_proto(ref: m.RulesetRef) -> pb.RulesetRef:
    msg = pb.RulesetRef(profile=ref.profile, version=ref.version)
    if ref.overrides:
        msg.overrides.CopyFrom(overrides_to_proto(dict(ref.overrides)))
    return msg


#: How a description names the ruleset's variations.
VARIATIONS = N_(" Variations: {variations}.")


def ruleset_description(rules: er.Ruleset, lang: str) -> str:
    """The profile's description, and its variations, in ``lang``."""
    english = er.PROFILE_DESCRIPTIONS.get(rules.base, "")
    text = say(lang, english) if english else ""
    if rules.variations:
        text += say(lang, VARIATIONS, {"variations": ", ".join(rules.variations)})
    return text


@functools.cache
def parameter_descriptions(lang: str) -> tuple[pb.ParameterDescription, ...]:
    """Ruleset.parameter_descriptions in ``lang`` (one of the served languages: the cache is
    one tuple per language), in the fields' order, the same for every profile."""
    return tuple(
        pb.ParameterDescription(field=camel(name), description=say(lang, text), rule=rule)
        for name, (text, rule) in PARAMETER_DESCRIPTIONS.items()
    )


def ruleset_to_proto(
    rules: er.Ruleset, lang: str = DEFAULT, *, with_descriptions: bool = False
) -> pb.Ruleset:
    """The wire's Ruleset, its texts in ``lang``; ``with_descriptions`` adds what each
    parameter means (GetRuleset)."""
    msg = pb.Ruleset(
        profile=rules.profile, version=rules.version, description=ruleset_description(rules, lang)
    )
    for f in dataclasses.fields(rules):
        if f.name in er.PARAMETER_NAMES and f.name not in er.ENGINE_ONLY_PARAMETERS:
            _set(msg, f.name, getattr(rules, f.name))
    if with_descriptions:
        msg.parameter_descriptions.extend(parameter_descriptions(lang))
    return msg


def unknown_profile(profile: str, error: er.RulesetError) -> ApiError:
    """GetRuleset's NOT_FOUND: the engine's problems, which quote the name whole, for a
    name of up to MAX_ECHO characters; for a longer one a message quoting its prefix."""
    if len(profile) <= MAX_ECHO:
        said = [said_again(p) for p in error.problems]
        return api_error(
            "NOT_FOUND",
            "UNKNOWN_PROFILE",
            "{problems}",
            problems=joined(said, EACH),
        )
    return api_error(
        "NOT_FOUND",
        "UNKNOWN_PROFILE",
        "no profile {profile}; known: {known}, with variations joined by +: {variations}",
        profile=echo(profile),
        known=", ".join(er.PROFILES),
        variations=", ".join(er.VARIATIONS),
    )
