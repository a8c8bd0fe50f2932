"""Which language an answer speaks: RFC 9110 ``Accept-Language`` with q-values.

Each language range is matched on its primary subtag (``es-AR`` is answered in ``es``); the
highest q wins, earlier ranges winning ties; ``q=0`` refuses a language; ``*`` and anything
unknown leave English, the default and the fallback.
"""

from __future__ import annotations

#: The languages the service speaks; the first is the default.
LANGUAGES = ("en", "es", "it", "sv")
DEFAULT = LANGUAGES[0]
#: Language ranges looked at in one header (a header is bounded by the transport, but a
#: thousand commas need not cost a thousand comparisons).
MAX_RANGES = 32


def _quality(params: list[str]) -> float:
    """The q-value of one range (1 when absent, 0 when malformed: ignored)."""
    for param in params:
        name, _, value = param.strip().partition("=")
        if name.strip().lower() == "q":
            try:
                q = float(value.strip())
            except ValueError:
                return 0.0
            return q if 0.0 <= q <= 1.0 else 0.0
    return 1.0


def choose(header: str | None) -> str:
    """The served language ``header`` (an Accept-Language value, or None) prefers."""
    if not header:
        return DEFAULT
    best, best_q = DEFAULT, 0.0
    for item in header.split(",", MAX_RANGES)[:MAX_RANGES]:
        tag, *params = item.split(";")
        primary = tag.strip().split("-", 1)[0].lower()
        q = _quality(params)
        if primary in LANGUAGES and q > best_q:
            best, best_q = primary, q
    return best


def supported(lang: str) -> str:
    """``lang`` when it is served (any case, regional tags allowed), else English."""
    return choose(lang)
