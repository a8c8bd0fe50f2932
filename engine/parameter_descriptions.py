"""What each ruleset parameter means: one sentence stating the rule it sets, as
docs/rules.md says it, and the section that says it (GetRuleset answers them, in the
caller's language: docs/i18n.md). The same for every profile, whatever the value.

Keyed by the parameter's name (engine.ruleset.Ruleset's field, the proto field's name);
every parameter the wire's Ruleset carries has one (tests/test_i18n.py).
"""

from __future__ import annotations

from .templates import N_

RULES = "docs/rules.md"

#: parameter name -> (English description, a template with no placeholders; rule anchor)
PARAMETER_DESCRIPTIONS: dict[str, tuple[str, str]] = {
    "decks": (N_("Standard 52-card decks in the pack."), f"{RULES}#cards"),
    "jokers": (
        N_("Jokers in the pack; jokers and all 2s are wild cards."),
        f"{RULES}#cards",
    ),
    "table_sizes": (
        N_(
            "One row per number of players allowed: the cards dealt to each player, the "
            "cards a draw takes from the stock, the match score that ends the match and "
            "the canastas a side needs to go out."
        ),
        f"{RULES}#parameters",
    ),
    "six_player_layout": (
        N_("How six players sit: three sides of two partners, or two sides of three."),
        f"{RULES}#seating",
    ),
    "upcard_buried_if": (
        N_(
            "Which upcards are covered with the next card at the deal, until one that is "
            "not buried shows."
        ),
        f"{RULES}#dealing",
    ),
    "runs_allowed": (
        N_("Whether runs, three or more naturals of one suit in unbroken order, may be melded."),
        f"{RULES}#runs",
    ),
    "group_max_wilds": (
        N_("The most wild cards one group may hold, whatever the wild rule."),
        f"{RULES}#groups",
    ),
    "group_wild_rule": (
        N_("How many wild cards a group may hold against its naturals."),
        f"{RULES}#wild-rules",
    ),
    "wild_only_groups": (
        N_("Whether groups of wild cards only are allowed; seven of them are a closed bolivia."),
        f"{RULES}#bolivia",
    ),
    "wild_onto_canasta": (
        N_("Whether a wild card may be added to a completed canasta."),
        f"{RULES}#groups",
    ),
    "groups_per_rank": (
        N_(
            "How many groups of one rank a side may hold: any number, only one (cards of "
            "a rank the side holds join its group), or any number that a pair take may merge."
        ),
        f"{RULES}#one-group-per-rank",
    ),
    "wild_swap": (
        N_(
            "Whether a player holding the natural that a wild card stands for in an "
            "incomplete group of the side may put it in and take the wild card into the hand."
        ),
        f"{RULES}#wild-swap",
    ),
    "freeze": (
        N_("When the pile is frozen, so that only a natural pair of the top card's rank takes it."),
        f"{RULES}#freeze",
    ),
    "take_natural_pair": (
        N_("Whether two naturals of the top card's rank from the hand take the pile."),
        f"{RULES}#take-with-pair",
    ),
    "take_natural_plus_wild": (
        N_(
            "Whether one natural of the top card's rank plus one wild card from the hand "
            "take the pile when it is not frozen."
        ),
        f"{RULES}#natural-plus-wild",
    ),
    "take_by_extending_meld": (
        N_(
            "Whether, when the pile is not frozen, the top card alone takes it by extending "
            "one of the side's melds: any of them, or one of fewer than seven cards."
        ),
        f"{RULES}#take-by-extending",
    ),
    "take_top_card_to_run": (
        N_(
            "Whether a player may, instead of drawing, take only the top card to extend one "
            "of the side's runs of fewer than seven cards."
        ),
        f"{RULES}#take-top-card",
    ),
    "pair_take_merges": (
        N_(
            "Whether the cards of a natural pair take join the side's group of that rank "
            "instead of starting a new group."
        ),
        f"{RULES}#take-with-pair",
    ),
    "blocked_top": (
        N_(
            "The top cards that make the pile untakeable while they are on top; a black 3 "
            "blocks only until the next discard covers it."
        ),
        f"{RULES}#blocked-top",
    ),
    "initial_meld": (
        N_(
            "The points a side's initial meld needs, by the side's match score before the "
            "deal, lowest band first."
        ),
        f"{RULES}#initial-meld",
    ),
    "red_threes": (
        N_(
            "When the red 3s dealt are replaced from the stock: at once at the deal, or "
            "when the seat's turn first comes."
        ),
        f"{RULES}#dealing",
    ),
    "red_three_value": (N_("Points of each red 3 laid out."), f"{RULES}#red-threes"),
    "red_three_all_value": (
        N_("Points a side scores instead when it holds every red 3 of the pack."),
        f"{RULES}#red-threes",
    ),
    "red_three_positive_if": (
        N_("What a side needs at the end of the deal for its red 3s to count for it."),
        f"{RULES}#red-threes",
    ),
    "red_three_penalty": (
        N_(
            "How the red 3s count against a side that fails that condition: minus the value "
            "of each, or their positive figure negated."
        ),
        f"{RULES}#red-threes",
    ),
    "black_three_group_max": (
        N_("The most black 3s in a black-3 group, which is melded only when going out."),
        f"{RULES}#black-three-groups",
    ),
    "black_three_in_hand": (
        N_("Points of a black 3 left in a hand at the end of the deal (negative)."),
        f"{RULES}#card-values",
    ),
    "red_three_in_hand": (
        N_("Points of a red 3 left in a hand at the end of the deal (negative)."),
        f"{RULES}#card-values",
    ),
    "go_out_sambas": (
        N_("How many of the canastas a side needs to go out must be sambas."),
        f"{RULES}#going-out",
    ),
    "go_out_bonus": (N_("Bonus of the side that goes out."), f"{RULES}#scoring"),
    "concealed_bonus": (
        N_(
            "Extra bonus for going out concealed: nothing laid on the table in an earlier "
            "turn of the deal, and the pile not taken this turn."
        ),
        f"{RULES}#concealed",
    ),
    "concealed_premiums": (
        N_(
            "The premiums for going out concealed with a seven-card meld formed in the "
            "hand, one per kind paid."
        ),
        f"{RULES}#spanish-premiums",
    ),
    "samba_bonus": (N_("Bonus of a samba, a run of seven cards."), f"{RULES}#scoring"),
    "open_samba_bonus": (
        N_("Bonus of a samba holding a wild card (the +open variation)."),
        f"{RULES}#variations",
    ),
    "runs_allow_wilds": (
        N_("Whether a run may hold one wild card, standing for a rank it lacks (+open)."),
        f"{RULES}#variations",
    ),
    "side_wild_limit": (
        N_("The most wild cards in all of a side's groups together; 0: no limit."),
        f"{RULES}#uruguayan",
    ),
    "natural_canasta_bonus": (
        N_("Bonus of a natural canasta: seven or more cards, none of them wild."),
        f"{RULES}#scoring",
    ),
    "mixed_canasta_bonus": (
        N_("Bonus of a mixed canasta: seven or more cards, wild cards among them."),
        f"{RULES}#scoring",
    ),
    "bolivia_bonus": (N_("Bonus of a bolivia, a group of seven wild cards."), f"{RULES}#bolivia"),
    "max_deals": (
        N_("Deals after which a match with no side at the target score ends drawn; 0: no limit."),
        f"{RULES}#match-end",
    ),
    "ask_partner": (
        N_(
            'Whether a player may ask the partner "may I go out?"; after a no the player '
            "may not go out this turn."
        ),
        f"{RULES}#may-i-go-out",
    ),
    "penalties_enabled": (
        N_("Whether the spanish penalties apply: fixed minus points for the offending side."),
        f"{RULES}#spanish-penalties",
    ),
    "penalty_points": (
        N_("Points of one spanish penalty (negative)."),
        f"{RULES}#spanish-penalties",
    ),
}
