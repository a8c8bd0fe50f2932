"""The Samba rules engine: pure functions over immutable values (no I/O, no transports).

Vocabulary:
- ``Ruleset`` (engine.ruleset): every rules parameter, resolved from a profile.
- ``Snapshot`` (engine.model): one instant of a deal; ``Action``: one move.
- ``deal`` starts a deal; ``validate``/``apply`` are the only ways a state changes;
  ``legal_actions`` lists the atomic actions; ``score`` scores a deal; ``player_view``
  redacts a snapshot for one seat; ``check_meld`` judges a meld; ``check_snapshot``
  reports every inconsistency of a client-given snapshot.

Where a rule lives (docs/rules.md#where-it-lives has the full table): the words of melds
in ``vocabulary``, a meld's content in ``melds``, a side's rules in ``table_rules``, the
turn in ``game``, laying melds in ``laying``, takes in ``takes``, going out in
``going_out``, the premiums it earns in ``premiums``, spanish penalties in ``penalties``, the
pile in ``pile``, the checks of a snapshot in ``consistency`` and ``outcome_checks``;
``work`` is the working copy ``apply`` plays on.
"""

from . import build as _build

# The compiled build, when chosen, is found before the sources (engine/build.py).
__path__ = _build.search_path(__path__)

from . import model as _model
from .cards import parse_card, sort_cards
from .consistency import check_snapshot
from .deal_proof import verify as verify_deal
from .dealing import deal
from .game import apply, check_meld, replay, validate
from .legal import legal_actions
from .model import *  # noqa: F403 - the value types (model.__all__) are the vocabulary
from .ruleset import PROFILES, Ruleset, RulesetError, profile_rulesets, resolve
from .scoring import score
from .view import events_seen_by, player_view

__all__ = [
    "parse_card",
    "sort_cards",
    "PROFILES",
    "Ruleset",
    "RulesetError",
    "resolve",
    "profile_rulesets",
    "check_snapshot",
    "deal",
    "verify_deal",
    "apply",
    "check_meld",
    "replay",
    "validate",
    "legal_actions",
    "score",
    "player_view",
    "events_seen_by",
]
__all__ += _model.__all__
