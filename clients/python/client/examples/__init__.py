"""Example programs of the client, shipped in the package: run them with ``python -m``.

- ``samba_adjudicator.client.examples.play_deal``: a bot that plays a whole deal;
- ``samba_adjudicator.client.examples.redact``: what each seat may be sent (docs/guide.md).

Recipes a game server copies (docs/guide.md#recipes), each run by tests/test_recipes.py:
``match`` (a whole match across deals), ``turn_timer`` (a timed-out player's forced
move), ``undo`` (undo within a turn), ``reconnect`` (a player reconnecting),
``teaching_view`` (every hand open: a teaching table, a finished deal's review).
"""
