"""Keys given twice in one JSON object (docs/api.md#json): how ``json_text.loads`` knows
that a text orjson read has none, and finds each one, with its path, when it may have.

orjson, like ``json``, keeps the last copy of a key given twice, while protobuf's reader
refuses the text: a proxy or a log reading the first copy would see other content than the
service. ``none_given_twice`` proves there is none by counting colons: every key of a text
is followed by one colon outside its strings, and writing the values read again keeps every
key read and every character of every string, so a dropped copy of a key leaves the text
with more colons than the writing (a colon written ``\\u003a`` in a string is counted on the
text's side too). The count costs a compact writing of the request, several times less than
a walk of the values in Python; when it cannot prove it, the text is read again by
``json``, whose hook, ``read_object``, sees every key of every object.
"""

from __future__ import annotations

from typing import Any

from samba_adjudicator.engine.messages import problem
from samba_adjudicator.engine.problems import Problem

from ..base.descriptors import join

#: An object read with a key given twice, and those keys in the order first given.
Twice = tuple[dict, list[str]]


def none_given_twice(text: str | bytes, again: bytes) -> bool:
    """Whether no object of ``text`` gives a key twice, ``again`` being orjson's compact
    writing of what it read from it (False: it may, read it again)."""
    if isinstance(text, str):
        text = text.encode("utf-8", "surrogatepass")  # the CLI's: counted as REST's bytes
    colons = text.count(b":")
    if b"\\u" in text:  # rare: one search in the common case instead of three
        colons += text.count(b"\\u003a") + text.count(b"\\u003A")
    return again.count(b":") == colons


def read_object(pairs: list[tuple[str, Any]], twice: list[Twice]) -> dict:
    """``json``'s ``object_pairs_hook``: the object (the last copy of a key, as orjson
    keeps), noted in ``twice`` when a key was given twice."""
    obj = dict(pairs)
    if len(obj) < len(pairs):
        seen: set[str] = set()
        keys: list[str] = []
        for key, _ in pairs:
            if key in seen and key not in keys:
                keys.append(key)
            seen.add(key)
        twice.append((obj, keys))
    return obj


def given_twice(data: Any, twice: list[Twice]) -> list[Problem]:
    """A problem at the path of each key given twice (``twice``: ``read_object``'s notes
    on reading ``data``), in the order of the text."""
    where = {id(obj): keys for obj, keys in twice}
    problems: list[Problem] = []
    todo: list[tuple[str, Any]] = [("", data)]
    while todo:  # depth first, in the order of the text, without recursion
        path, value = todo.pop()
        if type(value) is dict:
            for key in where.get(id(value), ()):
                field = join(path, key)
                problems.append(
                    problem(
                        field,
                        "OUT_OF_RANGE",
                        "{field} given twice (as {first} and {second})",
                        field=field,
                        first=repr(key),
                        second=repr(key),
                    )
                )
            inner = [(join(path, k), v) for k, v in value.items()]
        elif type(value) is list:
            inner = [(f"{path}[{i}]", v) for i, v in enumerate(value)]
        else:
            continue
        todo.extend(reversed([(p, v) for p, v in inner if type(v) is dict or type(v) is list]))
    return problems
