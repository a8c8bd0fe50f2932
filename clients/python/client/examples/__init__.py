"""Example programs of the client, shipped in the package: run them with ``python -m``.

- ``samba_adjudicator.client.examples.play_deal``: a bot that plays a whole deal;
- ``samba_adjudicator.client.examples.redact``: what each seat may be sent (docs/guide.md).
"""
