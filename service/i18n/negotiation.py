"""Which language an answer speaks: RFC 9110 ``Accept-Language`` with q-values.

Each language range is matched on its primary subtag (``es-AR`` is answered in ``es``); the
highest q wins, earlier ranges winning ties; ``q=0`` refuses a language; ``*`` and anything
unknown leave English, the default and the fallback.
"""

from __future__ import annotations

from ..base import weighted

#: The languages the service speaks; the first is the default.
LANGUAGES = ("en", "es", "it", "sv")
DEFAULT = LANGUAGES[0]


def choose(header: str | None) -> str:
    """The served language ``header`` (an Accept-Language value, or None) prefers (its
    ranges read by ``service.base.weighted``, as Accept-Encoding is)."""
    best, best_q = DEFAULT, 0.0
    for tag, q in weighted.members(header):
        primary = tag.split("-", 1)[0]
        if primary in LANGUAGES and q > best_q:
            best, best_q = primary, q
    return best
