"""The extraction mark of English message templates (no imports: every engine module may
use it, ``ruleset`` included)."""

from __future__ import annotations


def N_(template: str) -> str:
    """Marks a message template for extraction into the catalogs (babel.cfg); returns it
    unchanged."""
    return template
