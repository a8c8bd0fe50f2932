"""Rulesets: every parameter of docs/rules.md#parameters as typed data, and the profile registry.

A profile is a named set of parameter values (docs/rules.md#profiles); a variation (``+uruguayan``,
``+open``) and a client's overrides replace single parameters. The engine never asks which
profile it plays: each axis where profiles differ is a parameter read by one small function.
The values a parameter takes (its enums, ``TableSize``, ``InitialMeldBand``) are
engine.parameter_values', re-exported here.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

from .messages import problem
from .parameter_values import BlockedTop as BlockedTop
from .parameter_values import ExtendTake as ExtendTake
from .parameter_values import FreezeModel as FreezeModel
from .parameter_values import GroupsPerRank as GroupsPerRank
from .parameter_values import InitialMeldBand as InitialMeldBand
from .parameter_values import RedThreePenalty as RedThreePenalty
from .parameter_values import RedThreePositiveIf as RedThreePositiveIf
from .parameter_values import RedThreeReplacement as RedThreeReplacement
from .parameter_values import SixPlayerLayout as SixPlayerLayout
from .parameter_values import TableSize as TableSize
from .parameter_values import UpcardRule as UpcardRule
from .parameter_values import WildRule as WildRule
from .premium_kinds import ConcealedPremium
from .problems import Problem
from .ruleset_checks import check_parameters, spec_problems
from .templates import N_

#: Part of every version: raised when the engine's adjudication changes for every profile
#: (revision 2: variations in any order, CheckMeld on black 3s alone, the stranded discard).
ENGINE_RULES_REVISION = "2"
INT32_MIN = -(2**31)


@dataclass(frozen=True)
class Ruleset:
    """Every parameter of docs/rules.md#parameters, resolved. Immutable; hashable."""

    profile: str
    decks: int
    jokers: int
    table_sizes: tuple[TableSize, ...]
    six_player_layout: SixPlayerLayout
    upcard_buried_if: UpcardRule
    runs_allowed: bool
    group_max_wilds: int
    group_wild_rule: WildRule
    wild_only_groups: bool
    wild_onto_canasta: bool
    groups_per_rank: GroupsPerRank
    wild_swap: bool
    freeze: FreezeModel
    take_natural_pair: bool
    take_natural_plus_wild: bool
    take_by_extending_meld: ExtendTake
    take_top_card_to_run: bool
    pair_take_merges: bool
    blocked_top: BlockedTop
    initial_meld: tuple[InitialMeldBand, ...]
    red_threes: RedThreeReplacement
    red_three_value: int
    red_three_all_value: int
    red_three_positive_if: RedThreePositiveIf
    red_three_penalty: RedThreePenalty
    black_three_group_max: int
    black_three_in_hand: int
    red_three_in_hand: int
    go_out_sambas: int
    go_out_bonus: int
    concealed_bonus: int
    concealed_premiums: tuple[ConcealedPremium, ...]
    samba_bonus: int
    open_samba_bonus: int
    runs_allow_wilds: bool
    side_wild_limit: int
    natural_canasta_bonus: int
    mixed_canasta_bonus: int
    bolivia_bonus: int
    max_deals: int
    ask_partner: bool
    penalties_enabled: bool
    penalty_points: int
    hand_floor: int
    version: str = field(default="", compare=False)
    #: ``profile`` read once: its base profile and its variations (VARIATIONS order)
    base: str = field(default="", compare=False)
    variations: tuple[str, ...] = field(default=(), compare=False)

    # -- derived views -----------------------------------------------------------------
    @property
    def players_allowed(self) -> tuple[int, ...]:
        return tuple(t.players for t in self.table_sizes)

    def table_size(self, players: int) -> TableSize:
        """The parameters of a table of ``players``; ValueError for a count the ruleset is
        not played by (snapshots and deal requests are checked against
        ``players_allowed`` before the engine plays them)."""
        for t in self.table_sizes:
            if t.players == players:
                return t
        raise ValueError(f"{self.profile} is not played by {players} players")

    @property
    def pack_size(self) -> int:
        return 52 * self.decks + self.jokers

    @property
    def red_threes_in_pack(self) -> int:
        return 2 * self.decks

    def initial_meld_requirement(self, match_score: int) -> int:
        need = 0
        for band in self.initial_meld:
            if match_score >= band.from_score:
                need = band.points
        return need

    def sides_for(self, players: int) -> int:
        """Number of sides: partnerships with 4 and 6 players, everyone alone otherwise."""
        if players == 4:
            return 2
        if players == 6:
            return 2 if self.six_player_layout is SixPlayerLayout.TWO_TRIOS else 3
        return players


#: Ruleset attributes that name the ruleset rather than set a rule.
NAMING = ("profile", "version", "base", "variations")
PARAMETER_NAMES: tuple[str, ...] = tuple(f.name for f in fields(Ruleset) if f.name not in NAMING)
#: Parameters the wire's Ruleset does not carry (the API contract has no field for them):
#: the same in every profile, they are rules written as data all the same, counted in the
#: ruleset's version, and left out of GetRuleset's answer.
ENGINE_ONLY_PARAMETERS = ("hand_floor",)
#: Overrides that apply to every table size at once (a set field replaces the profile's value).
TABLE_PARAMETERS = ("hand_size", "draw_count", "target_score", "go_out_canastas")


def _tables(*rows: tuple[int, int, int, int, int]) -> tuple[TableSize, ...]:
    return tuple(TableSize(*row) for row in rows)


def _bands(*rows: tuple[int, int]) -> tuple[InitialMeldBand, ...]:
    return tuple(InitialMeldBand(*row) for row in rows)


def _premiums(*rows: tuple[str, int]) -> tuple[ConcealedPremium, ...]:
    return tuple(ConcealedPremium(*row) for row in rows)


PAGAT_BANDS = _bands((INT32_MIN, 15), (0, 50), (1500, 90), (3000, 120), (7000, 150))

_CLASSIC = dict(
    decks=3,
    jokers=6,
    table_sizes=_tables((2, 15, 2, 10000, 2), (4, 15, 2, 10000, 2), (6, 13, 2, 10000, 2)),
    six_player_layout=SixPlayerLayout.THREE_PAIRS,
    upcard_buried_if=UpcardRule.BURY_WILD_OR_RED_THREE,
    runs_allowed=True,
    group_max_wilds=2,
    group_wild_rule=WildRule.MORE_NATURALS,
    wild_only_groups=False,
    wild_onto_canasta=True,
    groups_per_rank=GroupsPerRank.MANY,
    wild_swap=True,
    freeze=FreezeModel.PILE_HOLDS_WILD_OR_BLACK3,
    take_natural_pair=True,
    take_natural_plus_wild=False,
    take_by_extending_meld=ExtendTake.ANY_OWN_MELD,
    take_top_card_to_run=False,
    pair_take_merges=False,
    blocked_top=BlockedTop.WILD_OR_BLACK_THREE,
    initial_meld=_bands((INT32_MIN, 50), (1500, 90), (7000, 150)),
    red_threes=RedThreeReplacement.REPLACE_NOW,
    red_three_value=100,
    red_three_all_value=1000,
    red_three_positive_if=RedThreePositiveIf.INITIAL_MELD,
    red_three_penalty=RedThreePenalty.PER_CARD,
    black_three_group_max=4,
    black_three_in_hand=-5,
    red_three_in_hand=-500,
    go_out_sambas=0,
    go_out_bonus=100,
    concealed_bonus=200,
    concealed_premiums=(),
    samba_bonus=1500,
    open_samba_bonus=1000,
    runs_allow_wilds=False,
    side_wild_limit=0,
    natural_canasta_bonus=500,
    mixed_canasta_bonus=300,
    bolivia_bonus=2500,
    max_deals=0,
    ask_partner=True,
    penalties_enabled=False,
    penalty_points=-100,
    hand_floor=2,
)

_PAGAT = {
    **_CLASSIC,
    "table_sizes": _tables((2, 15, 2, 10000, 2), (3, 15, 2, 10000, 2), (4, 15, 2, 10000, 2)),
    "upcard_buried_if": UpcardRule.BURY_NOTHING,
    "group_wild_rule": WildRule.TWICE_NATURALS,
    "wild_swap": False,
    "freeze": FreezeModel.NEVER,
    "take_by_extending_meld": ExtendTake.NOT_ALLOWED,
    "take_top_card_to_run": True,
    "blocked_top": BlockedTop.WILD_OR_ANY_THREE,
    "initial_meld": PAGAT_BANDS,
    "red_three_positive_if": RedThreePositiveIf.TWO_CANASTAS,
    "red_three_penalty": RedThreePenalty.MIRROR,
    "black_three_group_max": 6,
    "go_out_bonus": 200,
    "concealed_bonus": 0,
    "max_deals": 60,
}

_SPANISH = {
    **_CLASSIC,
    "table_sizes": _tables(*[(n, 15, 2, 10000, 2) for n in (2, 3, 4, 5, 6)]),
    "upcard_buried_if": UpcardRule.BURY_WILD_OR_ANY_THREE,
    "group_wild_rule": WildRule.ONE_UNTIL_SEVEN,
    "wild_swap": False,
    "freeze": FreezeModel.NEVER,
    "take_by_extending_meld": ExtendTake.NOT_ALLOWED,
    "initial_meld": PAGAT_BANDS,
    "red_threes": RedThreeReplacement.REPLACE_AT_FIRST_TURN,
    "red_three_positive_if": RedThreePositiveIf.TWO_CANASTAS,
    "black_three_group_max": 6,
    "go_out_bonus": 200,
    "concealed_bonus": 0,
    # (kind, points): the seed-000 premiums for going out concealed (docs/rules.md#spanish)
    "concealed_premiums": _premiums(
        ("DEALT_HAND", 1000),
        ("DEALT_HAND_WITH_PARTNER", 500),
        ("DURING_PLAY", 500),
        ("DURING_PLAY_WITH_PARTNER", 200),
    ),
    "penalties_enabled": True,
}

_CANASTA = {
    **_CLASSIC,
    "decks": 2,
    "jokers": 4,
    "table_sizes": _tables((2, 15, 2, 5000, 2), (3, 13, 2, 7500, 1), (4, 11, 1, 5000, 1)),
    "runs_allowed": False,
    "group_max_wilds": 3,
    "wild_onto_canasta": True,
    "groups_per_rank": GroupsPerRank.ONE,
    "wild_swap": False,
    "freeze": FreezeModel.CANASTA,
    "take_natural_plus_wild": True,
    "take_by_extending_meld": ExtendTake.NOT_ALLOWED,
    "pair_take_merges": True,
    "initial_meld": _bands((INT32_MIN, 15), (0, 50), (1500, 90), (3000, 120)),
    "red_three_all_value": 800,
    "red_three_positive_if": RedThreePositiveIf.ANY_MELD,
    "red_three_penalty": RedThreePenalty.MIRROR,
    "concealed_bonus": 100,
    "samba_bonus": 0,
    "open_samba_bonus": 0,
    "bolivia_bonus": 0,
}

_BOLIVIA = {
    **_PAGAT,
    "table_sizes": _tables((4, 15, 2, 15000, 2)),
    "upcard_buried_if": UpcardRule.BURY_WILD_OR_RED_THREE,
    "wild_only_groups": True,
    "freeze": FreezeModel.CANASTA,
    "take_top_card_to_run": False,
    "take_by_extending_meld": ExtendTake.OWN_MELD_UNDER_SEVEN,
    "blocked_top": BlockedTop.WILD_OR_BLACK_THREE,
    "go_out_sambas": 1,
    "black_three_in_hand": -100,
    "max_deals": 0,
}

_OFFICIAL = {
    **_PAGAT,
    "table_sizes": _tables((4, 15, 2, 10000, 2)),
    "upcard_buried_if": UpcardRule.BURY_WILD_OR_RED_THREE,
    "group_wild_rule": WildRule.MIN_TWO_NATURALS,
    "wild_onto_canasta": False,
    "groups_per_rank": GroupsPerRank.MANY_MAY_MERGE,
    "freeze": FreezeModel.CANASTA,
    "take_top_card_to_run": False,
    "take_by_extending_meld": ExtendTake.OWN_MELD_UNDER_SEVEN,
    "pair_take_merges": True,
    "blocked_top": BlockedTop.WILD_OR_BLACK_THREE,
    "initial_meld": _bands((INT32_MIN, 15), (0, 50), (1500, 90), (3000, 120), (7000, 160)),
    "max_deals": 0,
}

PROFILES: dict[str, dict[str, Any]] = {
    "classic": _CLASSIC,
    "pagat": _PAGAT,
    "spanish": _SPANISH,
    "canasta": _CANASTA,
    "bolivia": _BOLIVIA,
    "official": _OFFICIAL,
}
PROFILE_DESCRIPTIONS = {
    "classic": N_("Seed 004 'How to Play' (English, Spanish and Italian texts): the default."),
    "pagat": N_(
        "Seed 003's Samba column: the published Pagat rules, with its three simplifications."
    ),
    "spanish": N_("Seed 000: traditional Spanish Samba, with its premiums and penalties."),
    "canasta": N_("Seed 003's Canasta column: classic two-deck Canasta."),
    "bolivia": N_("Bolivia (Bicycle's published rules): wild-only groups, escaleras, 15,000."),
    "official": N_("Official Canasta Laws Samba (Jacoby/Crawford; Bicycle/Hoyle text)."),
}
#: Variations in docs/rules.md#variations order; each is a set of parameter values.
VARIATIONS: dict[str, dict[str, Any]] = {
    "uruguayan": {"side_wild_limit": 2},
    "open": {"runs_allow_wilds": True},
}
#: Variations apply to samba profiles only (canasta has no runs and no sambas).
SAMBA_PROFILES = ("classic", "pagat", "spanish", "bolivia", "official")
#: The profile of a request that names none.
DEFAULT_PROFILE = "classic"


def profile_parts(spec: str) -> tuple[str, list[str]]:
    """A profile string ``base[+variation...]`` as (base, variations as written); an empty
    one is DEFAULT_PROFILE. The one reading of a profile string."""
    base, *variations = (spec or DEFAULT_PROFILE).split("+")
    return base, variations


class RulesetError(ValueError):
    """A ruleset reference that cannot be resolved; ``problems`` lists every ``Problem``
    (a (path, reason, text) triple is taken as one)."""

    def __init__(self, problems: Sequence[Problem | tuple[str, str, str]]):
        self.problems = [p if isinstance(p, Problem) else Problem(*p) for p in problems]
        super().__init__("; ".join(p.description for p in self.problems))


def ruleset_version(params: Mapping[str, Any]) -> str:
    """A version that changes whenever adjudication of the profile changes."""
    blob = json.dumps({k: _plain(v) for k, v in sorted(params.items())}, sort_keys=True)
    digest = hashlib.sha256((ENGINE_RULES_REVISION + blob).encode()).hexdigest()[:12]
    return f"{ENGINE_RULES_REVISION}.{digest}"


def _plain(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def _apply_overrides(params: dict[str, Any], overrides: Mapping[str, Any]) -> None:
    table_overrides = {k: v for k, v in overrides.items() if k in TABLE_PARAMETERS}
    for name, value in overrides.items():
        if name not in TABLE_PARAMETERS:
            params[name] = value
    if table_overrides:
        params["table_sizes"] = tuple(replace(t, **table_overrides) for t in params["table_sizes"])


def resolve(
    spec: str = DEFAULT_PROFILE,
    overrides: Mapping[str, Any] | None = None,
    path: str = "ruleset",
) -> Ruleset:
    """Resolve ``profile[+variation...]`` plus typed overrides into a Ruleset.

    Raises RulesetError listing every problem (unknown profile, unknown or repeated
    variation, unknown parameter).
    """
    if not overrides:
        return _resolve_plain(spec or DEFAULT_PROFILE, path)
    return _resolve(spec, overrides, path)


@functools.lru_cache(maxsize=256)
def _resolve_plain(spec: str, path: str) -> Ruleset:
    # Rulesets are immutable, so the common case (a profile name, no overrides) is shared;
    # a failure raises and is not cached.
    return _resolve(spec, None, path)


def _resolve(spec: str, overrides: Mapping[str, Any] | None, path: str) -> Ruleset:
    base, variations = profile_parts(spec)
    problems, seen = spec_problems(base, variations, path, PROFILES, VARIATIONS, SAMBA_PROFILES)
    problems += _unknown_parameters(overrides or {}, path)
    if problems:
        raise RulesetError(problems)
    # Variations may be named in any order; the profile is printed in VARIATIONS order.
    seen.sort(key=list(VARIATIONS).index)
    params = dict(PROFILES[base])
    for v in seen:
        params.update(VARIATIONS[v])
    _apply_overrides(params, overrides or {})
    problems.extend(check_parameters(params, path, overrides))
    if problems:
        raise RulesetError(problems)
    return Ruleset(
        profile="+".join([base, *seen]),
        version=ruleset_version(params),
        base=base,
        variations=tuple(seen),
        **params,
    )


def _unknown_parameters(overrides: Mapping[str, Any], path: str) -> list[Problem]:
    return [
        problem(
            f"{path}.overrides.{name}",
            "UNKNOWN_PARAMETER",
            "unknown ruleset parameter {name}",
            name=repr(name),
        )
        for name in overrides
        if name not in PARAMETER_NAMES and name not in TABLE_PARAMETERS
    ]


def profile_rulesets() -> list[Ruleset]:
    return [resolve(name) for name in PROFILES]
