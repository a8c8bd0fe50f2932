"""JSON text <-> Python values: what the REST gateway and the CLI read and write.

``loads`` reads a request (orjson, with the ``json`` module as the reference for anything
orjson refuses) or refuses it: as MALFORMED_JSON, or, for a key given twice in one object,
at that key's path (protobuf's reader refuses such text; orjson and ``json`` would keep the
last copy, so that a proxy or a log reading the first would see other content).
``dumps`` / ``dumps_bytes`` are the one compact rendering of an answer.
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

from samba_adjudicator.engine.messages import problem
from samba_adjudicator.engine.problems import InvalidInput

from .json_keys import Twice, given_twice, none_given_twice, read_object

MALFORMED_JSON = "MALFORMED_JSON"


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def loads(text: str | bytes) -> Any:
    """JSON text -> Python values, or InvalidInput (MALFORMED_JSON; a key given twice, at
    its path).

    orjson reads well-formed input several times faster than ``json``, and what it read is
    taken (``_read_fast``) when it is what ``json`` reads; anything else is read again by
    ``json``, whose result and error messages are the reference."""
    if not isinstance(text, str):
        text = bytes(text)
    data = _read_fast(text)
    if data is not _UNSURE:
        return data
    twice: list[Twice] = []
    try:
        if not isinstance(text, str):
            text = text.decode("utf-8")
        data = json.loads(
            text,
            parse_constant=_reject_constant,
            object_pairs_hook=lambda pairs: read_object(pairs, twice),
        )
    except (ValueError, UnicodeDecodeError) as e:
        raise InvalidInput(
            [problem("", MALFORMED_JSON, "the request is not valid JSON: {error}", error=e)]
        ) from None
    except RecursionError:
        raise InvalidInput(
            [problem("", MALFORMED_JSON, "the request is nested too deeply")]
        ) from None
    if twice:
        raise InvalidInput(given_twice(data, twice))
    return data


#: ``_read_fast``'s answer when orjson's reading may differ from the reference's.
_UNSURE = object()


def _read_fast(text: str | bytes) -> Any:
    """What orjson reads from ``text``, when it is what ``json`` reads, else _UNSURE.

    The text written again compactly (one orjson call) proves it: when it is the text
    itself, as the project's clients send it, every key and value was read as written (a
    key given twice loses a copy, a number orjson made a float is written otherwise).
    Else orjson's reading stands when the text has no integer of 19 digits or more (which
    orjson would turn into a float) and no key it may have read twice
    (``service.codec.json_keys``): two scans of the text, as long as the writing."""
    try:
        data = orjson.loads(text)
        again = orjson.dumps(data)
    except (orjson.JSONDecodeError, TypeError):  # orjson.JSONEncodeError is a TypeError
        return _UNSURE
    if again == text:
        return data
    if _has_long_number(text) or not none_given_twice(text, again):
        return _UNSURE
    return data


def _has_long_number(text: str | bytes) -> bool:
    """Whether 19 digits follow each other somewhere (a regex takes ten times longer)."""
    if isinstance(text, str):
        return _LONG_NUMBER_TEXT.search(text) is not None
    return _NINETEEN_ZEROS in text.translate(_DIGITS_TO_ZERO)


_DIGITS_TO_ZERO = bytes.maketrans(b"123456789", b"000000000")
_NINETEEN_ZEROS = b"0" * 19
_LONG_NUMBER_TEXT = re.compile(r"[0-9]{19}")


def dumps(body: Any) -> str:
    """The one JSON text rendering shared by REST and CLI (compact, UTF-8)."""
    return json.dumps(body, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def dumps_bytes(body: Any) -> bytes:
    """``dumps(body)`` encoded as UTF-8 (orjson writes the same compact text faster; what it
    cannot write, e.g. a lone surrogate echoed in a message, goes through ``dumps``)."""
    try:
        return orjson.dumps(body)
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return dumps(body).encode("utf-8", "backslashreplace")
