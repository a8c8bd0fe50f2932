"""Ruleset parameter values that would make the game unplayable (resolve refuses them).

Each problem is a (field path, reason, description) triple at the override that set it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from .premium_kinds import PREMIUM_KINDS

if TYPE_CHECKING:
    from .parameter_values import InitialMeldBand
    from .premium_kinds import ConcealedPremium

TARGET_TEXT = "the target score must be a positive multiple of 5"


def _valid_target(score: int) -> bool:
    """Any positive multiple of 5, for every profile (a profile's figures are defaults)."""
    return score > 0 and score % 5 == 0


#: Parameters with bounds, checked in this order: (name, lowest, highest or None, text).
_BOUNDS: tuple[tuple[str, int, int | None, str], ...] = (
    ("decks", 1, 4, "decks must be 1 to 4"),
    ("jokers", 0, 16, "jokers must be 0 to 16"),
)
_MINIMUMS: tuple[tuple[str, int, int | None, str], ...] = (
    ("group_max_wilds", 0, None, "must not be negative"),
    ("black_three_group_max", 3, None, "must be at least 3"),
    ("side_wild_limit", 0, None, "must not be negative (0 means no limit)"),
    ("max_deals", 0, None, "must not be negative (0 means no limit)"),
    ("hand_floor", 1, None, "must be at least 1 (a player keeps a card to discard)"),
)

Bad = Callable[[str, str], None]


def check_parameters(
    params: Mapping[str, Any], path: str, overrides: Mapping[str, Any] | None = None
) -> list[tuple[str, str, str]]:
    """Parameter values that would make the game unplayable."""
    out = []

    def bad(name: str, text: str) -> None:
        out.append((f"{path}.overrides.{name}", "OUT_OF_RANGE", text))

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
        bad("table_sizes", "at least one table size is needed")
    pack = 52 * params["decks"] + params["jokers"]
    for i, t in enumerate(tables):
        if not 2 <= t.players <= 6:
            bad(f"table_sizes[{i}].players", "players must be 2 to 6")
        if t.hand_size < 1 or t.draw_count < 1 or t.go_out_canastas < 0:
            bad(f"table_sizes[{i}]", "hand size and draw count must be positive")
        if not scalar_target and not _valid_target(t.target_score):
            bad(f"table_sizes[{i}].target_score", TARGET_TEXT)
        if t.players * t.hand_size + 1 >= pack:
            bad(f"table_sizes[{i}].hand_size", "the hands do not fit in the pack")
    if len({t.players for t in tables}) != len(tables):
        bad("table_sizes", "each player count may appear once")


def _check_bands(bands: tuple[InitialMeldBand, ...], bad: Bad) -> None:
    if not bands:
        bad("initial_meld", "at least one band is needed")
    elif [b.from_score for b in bands] != sorted(b.from_score for b in bands):
        bad("initial_meld", "bands must be in increasing from_score order")


def _check_premiums(premiums: tuple[ConcealedPremium, ...], bad: Bad) -> None:
    """Each row names one of the four kinds, at most once, with points not negative."""
    seen: set[str] = set()
    for i, premium in enumerate(premiums):
        where = f"concealed_premiums[{i}]"
        if premium.kind not in PREMIUM_KINDS:
            bad(f"{where}.kind", f"kind must be one of {', '.join(PREMIUM_KINDS)}")
        elif premium.kind in seen:
            bad(f"{where}.kind", f"kind {premium.kind} is listed twice")
        seen.add(premium.kind)
        if premium.points < 0:
            bad(f"{where}.points", "points must not be negative")
