"""Computer players: one legal action for a seat, chosen from that seat's view only
(docs/bots.md).

``suggest(snapshot, seat, level, seed, budget_ms)`` redacts the snapshot to the seat's
player view before any level sees it, so no level can use a hidden card. Levels:
``RANDOM`` (uniform over what the levels choose from: the draw's and the play's few
choices, engine.bots.draws and engine.bots.plays), ``BASIC`` (a club player's rules of thumb, no
search) and ``STRONG`` (determinized sampling of the hidden cards, each candidate played on
in every sampled world by BASIC for a round and the position judged). Pure functions over
the engine's public functions; the same request and seed always give the same action.

Compiled with mypyc when the compiled build is chosen (engine/build.py).
"""

from samba_adjudicator.engine import build as _build

__path__ = _build.search_path(__path__)

from .choice import DEFAULT_BUDGET_MS, MAX_BUDGET_MS, Level, Reason, Suggestion  # noqa: E402
from .suggest import suggest  # noqa: E402

__all__ = ["DEFAULT_BUDGET_MS", "MAX_BUDGET_MS", "Level", "Reason", "Suggestion", "suggest"]
