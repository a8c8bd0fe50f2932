"""Ruleset parameter values that would make the game unplayable (resolve refuses them).

Each problem is reported at the override that set it, its description a template
(engine.messages).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import TYPE_CHECKING, Any

from .messages import N_, problem
from .premium_kinds import PREMIUM_KINDS
from .problems import Problem

if TYPE_CHECKING:
    from .parameter_values import InitialMeldBand
    from .premium_kinds import ConcealedPremium

TARGET_TEXT = N_("the target score must be a positive multiple of 5")


def _valid_target(score: int) -> bool:
    """Any positive multiple of 5, for every profile (a profile's figures are defaults)."""
    return score > 0 and score % 5 == 0


#: Parameters with bounds, checked in this order: (name, lowest, highest or None, text).
_BOUNDS: tuple[tuple[str, int, int | None, str], ...] = (
    ("decks", 1, 4, N_("decks must be 1 to 4")),
    ("jokers", 0, 16, N_("jokers must be 0 to 16")),
)
_MINIMUMS: tuple[tuple[str, int, int | None, str], ...] = (
    ("group_max_wilds", 0, None, N_("must not be negative")),
    ("black_three_group_max", 3, None, N_("must be at least 3")),
    ("side_wild_limit", 0, None, N_("must not be negative (0 means no limit)")),
    ("max_deals", 0, None, N_("must not be negative (0 means no limit)")),
    ("hand_floor", 1, None, N_("must be at least 1 (a player keeps a card to discard)")),
)

#: Records a problem of the parameter named: (name, template, its parameters).
Bad = Callable[..., None]


def check_parameters(
    params: Mapping[str, Any], path: str, overrides: Mapping[str, Any] | None = None
) -> list[Problem]:
    """Parameter values that would make the game unplayable."""
    out = []

    def bad(name: str, template: str, /, **params: object) -> None:
        out.append(problem(f"{path}.overrides.{name}", "OUT_OF_RANGE", template, **params))

    # A scalar target override is reported once, where the client set it.
    scalar_target = overrides is not None and "target_score" in overrides
    if overrides is not None and scalar_target and not _valid_target(overrides["target_score"]):
        bad("target_score", TARGET_TEXT)
    _check_bounds(params, _BOUNDS, bad)
    _check_tables(params, scalar_target, bad)
    _check_bounds(params, _MINIMUMS, bad)
    _check_bands(params["initial_meld"], bad)
    _check_premiums(params["concealed_premiums"], bad)
    return out


def _check_bounds(
    params: Mapping[str, Any], bounds: tuple[tuple[str, int, int | None, str], ...], bad: Bad
) -> None:
    for name, lowest, highest, text in bounds:
        if params[name] < lowest or (highest is not None and params[name] > highest):
            bad(name, text)


def _check_tables(params: Mapping[str, Any], scalar_target: bool, bad: Bad) -> None:
    tables = params["table_sizes"]
    if not tables:
        bad("table_sizes", N_("at least one table size is needed"))
    pack = 52 * params["decks"] + params["jokers"]
    for i, t in enumerate(tables):
        if not 2 <= t.players <= 6:
            bad(f"table_sizes[{i}].players", N_("players must be 2 to 6"))
        if t.hand_size < 1 or t.draw_count < 1 or t.go_out_canastas < 0:
            bad(f"table_sizes[{i}]", N_("hand size and draw count must be positive"))
        if not scalar_target and not _valid_target(t.target_score):
            bad(f"table_sizes[{i}].target_score", TARGET_TEXT)
        if t.players * t.hand_size + 1 >= pack:
            bad(f"table_sizes[{i}].hand_size", N_("the hands do not fit in the pack"))
    if len({t.players for t in tables}) != len(tables):
        bad("table_sizes", N_("each player count may appear once"))


def _check_bands(bands: tuple[InitialMeldBand, ...], bad: Bad) -> None:
    if not bands:
        bad("initial_meld", N_("at least one band is needed"))
    elif [b.from_score for b in bands] != sorted(b.from_score for b in bands):
        bad("initial_meld", N_("bands must be in increasing from_score order"))


def _check_premiums(premiums: tuple[ConcealedPremium, ...], bad: Bad) -> None:
    """Each row names one of the four kinds, at most once, with points not negative."""
    seen: set[str] = set()
    for i, premium in enumerate(premiums):
        where = f"concealed_premiums[{i}]"
        if premium.kind not in PREMIUM_KINDS:
            bad(f"{where}.kind", N_("kind must be one of {kinds}"), kinds=", ".join(PREMIUM_KINDS))
        elif premium.kind in seen:
            bad(f"{where}.kind", N_("kind {kind} is listed twice"), kind=premium.kind)
        seen.add(premium.kind)
        if premium.points < 0:
            bad(f"{where}.points", N_("points must not be negative"))


def spec_problems(
    base: str,
    variations: list[str],
    path: str,
    profiles: Collection[str],
    known: Collection[str],
    samba_profiles: Collection[str],
) -> tuple[list[Problem], list[str]]:
    """Problems of ``profile+variation…`` (``profiles``, the ``known`` variations, which apply
    to ``samba_profiles`` only), and the variations named (once each)."""
    problems: list[Problem] = []
    if base not in profiles:
        problems.append(
            problem(
                f"{path}.profile",
                "UNKNOWN_PROFILE",
                "unknown profile {profile}; known: {known}",
                profile=repr(base),
                known=", ".join(profiles),
            )
        )
    seen: list[str] = []
    for v in variations:
        if v not in known:
            problems.append(
                problem(
                    f"{path}.profile",
                    "UNKNOWN_VARIATION",
                    "unknown variation {variation}; known: {known}",
                    variation=repr(v),
                    known=", ".join(known),
                )
            )
        elif v in seen:
            problems.append(
                problem(
                    f"{path}.profile",
                    "UNKNOWN_VARIATION",
                    "variation {variation} repeated",
                    variation=repr(v),
                )
            )
        else:
            seen.append(v)
    if seen and base in profiles and base not in samba_profiles:
        problems.append(
            problem(
                f"{path}.profile",
                "UNKNOWN_VARIATION",
                "variations apply to samba profiles only, not {profile}",
                profile=base,
            )
        )
    return problems, seen
