"""RFC 9110 weighted lists (§12.4.2 quality values, §12.5.3 Accept-Encoding, §12.5.4
Accept-Language): the one reading of ``token;q=0.5, other`` the service makes.

Each member is a token (compared in lower case) and its weight: 1 without ``q``, the
``q`` parameter's value (its name case-insensitive) when it is a qvalue, ``0`` .. ``1``
with at most three decimals. A member whose weight is malformed (``q=2``, ``q=abc``,
``q=0.12345``) is left out, as if the client had not sent it; ``q=0`` means "not
acceptable" and is kept, since it refuses what ``*`` would allow.
"""

from __future__ import annotations

import re

#: Members looked at in one header (a header is bounded by the transport, but a thousand
#: commas need not cost a thousand comparisons).
MAX_MEMBERS = 32
#: RFC 9110 §12.4.2: qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )
QVALUE = re.compile(r"0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?")


def members(header: str | None) -> list[tuple[str, float]]:
    """The (token in lower case, weight) of each member of ``header``, in order; those
    with a malformed weight and empty ones left out."""
    out: list[tuple[str, float]] = []
    if not header:
        return out
    for item in header.split(",", MAX_MEMBERS)[:MAX_MEMBERS]:
        token, *params = item.split(";")
        token = token.strip().lower()
        weight = _weight(params)
        if token and weight is not None:
            out.append((token, weight))
    return out


def _weight(params: list[str]) -> float | None:
    """The weight the parameters give (1 without ``q``; None when malformed)."""
    for param in params:
        name, _, value = param.strip().partition("=")
        if name.strip().lower() == "q":
            value = value.strip()
            return float(value) if QVALUE.fullmatch(value) else None
    return 1.0
