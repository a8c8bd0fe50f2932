"""What every codec shares: JSON field paths (engine snake_case camelised) and card codes
read at their exact paths (docs/api.md#cards); problems collected, never repaired."""

from __future__ import annotations

import re
from collections.abc import Iterable

from samba_adjudicator.engine.cards import ORDER, parse_card
from samba_adjudicator.engine.deadline import checkpoint
from samba_adjudicator.engine.messages import problem
from samba_adjudicator.engine.model import InvalidInput, Problem

from ..base.errors import ProblemList, Problems

# -- paths --------------------------------------------------------------------------------

_SEGMENT = re.compile(r"^([^\[]*)(.*)$")


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def json_path(path: str) -> str:
    """``ruleset.overrides.table_sizes[0].hand_size`` -> ``…tableSizes[0].handSize``."""
    if not path or "_" not in path:
        return path
    out = []
    for seg in path.split("."):
        match = _SEGMENT.match(seg)
        assert match is not None  # the pattern matches any text
        name, index = match.groups()
        out.append(camel(name) + index)
    return ".".join(out)


def prefixed(problems: Iterable[Problem], prefix: str) -> list[Problem]:
    """Engine problems relative to a sub-message, re-rooted at ``prefix`` (``snapshot``)."""
    out = []
    for p in problems:
        f = json_path(p.field)
        if prefix:
            f = prefix if not f else (f"{prefix}{f}" if f.startswith("[") else f"{prefix}.{f}")
        out.append(Problem(f, p.reason, p.description, p.template, p.params))
    return out


def raise_if(problems: Problems, kind: str = "INVALID_REQUEST") -> None:
    if problems:
        raise InvalidInput(ProblemList(problems), kind)


# -- cards --------------------------------------------------------------------------------


def card(text: str, path: str, problems: Problems) -> str | None:
    code = parse_card(text)
    if code is None:
        problems.append(
            problem(
                path,
                "UNKNOWN_CARD_CODE",
                "{card} is not a card code (rank A 2 3 4 5 6 7 8 9 10 J Q K"
                " or T, then suit S H D C; or JK)",
                card=repr(text),
            )
        )
    return code


CARD_CODES = frozenset(ORDER)


def cards(texts: Iterable[str], path: str, problems: Problems) -> tuple[str, ...]:
    """Canonical codes of ``texts``; bad ones reported (``path[i]``) and left out."""
    texts = tuple(texts)
    if CARD_CODES.issuperset(texts):  # the common case: already canonical
        return texts
    out = []
    for i, t in enumerate(texts):
        if not i & 1023:
            checkpoint()  # a request can hold a hundred thousand bad codes
        code = card(t, f"{path}[{i}]", problems)
        if code is not None:
            out.append(code)
    return tuple(out)
