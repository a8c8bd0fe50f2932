"""``json_text.loads``: a key given twice in one object is refused at its path, as
protobuf's own reader (json_format.Parse) refuses the text, whichever reader read it."""

from __future__ import annotations

import json

import pytest
from google.protobuf import json_format
from hypothesis import given, settings
from hypothesis import strategies as st

from samba_adjudicator.engine.problems import InvalidInput
from samba_adjudicator.schema.v1 import adjudicator_pb2
from samba_adjudicator.service.codec.json_text import loads


def _refused_at(text: str | bytes) -> list[tuple[str, str]]:
    with pytest.raises(InvalidInput) as refused:
        loads(text)
    return [(p.field, p.reason) for p in refused.value.problems]


@pytest.mark.parametrize("as_bytes", [True, False], ids=["bytes", "str"])
def test_a_key_given_twice_is_refused_at_its_path(as_bytes):
    text = (
        '{"snapshot": {"seats": [], "dealNumber": 1, "seats": [{"seat": 0}],'
        ' "turn": {"seat": 1, "phase": "DRAW", "seat": 2}},'
        ' "action": {"seat": 0, "drawStock": {}}, "views": [{}, {"a": 1, "a": 1}]}'
    )
    assert _refused_at(text.encode() if as_bytes else text) == [
        ("snapshot.seats", "OUT_OF_RANGE"),
        ("snapshot.turn.seat", "OUT_OF_RANGE"),
        ("views[1].a", "OUT_OF_RANGE"),
    ]


def test_the_problem_says_which_key():
    with pytest.raises(InvalidInput) as refused:
        loads(b'{"seat": 1, "seat": 2}')
    assert refused.value.problems[0].description == "seat given twice (as 'seat' and 'seat')"


@pytest.mark.parametrize(
    "text",
    [
        b'{"a": 1, "a": 1}',  # the same value twice
        b'{"a": "x", "a": "\\u003a"}',  # the last copy's colon written as an escape
        b'{"a": "x:y", "b": {"c": 1, "c": 2}}',  # a colon in a string elsewhere
        b'{"a" : 1 , "a" : 2}',  # spaces around the colon
        b'{"n": 12345678901234567890, "n": 1}',  # read by json: a number orjson cannot hold
        '{"\u00e9": 1, "\\u00e9": 2}'.encode(),  # the same key, escaped once
    ],
)
def test_every_way_of_giving_a_key_twice_is_refused_as_protobuf_refuses_it(text):
    with pytest.raises(json_format.ParseError, match="duplicate key"):
        json_format.Parse(text, adjudicator_pb2.ValidateActionRequest())
    assert len(_refused_at(text)) == 1


@pytest.mark.parametrize(
    "text",
    [
        b'{"a": "x:y:z", "b": {"c": "\\u003a"}}',
        b'{"a": "\\\\u003a", "b": 1}',
        b'{"a": [{"b": 1}, {"b": 1}], "c": {"b": 1}}',  # the same key in other objects
        b'{"seat": 1, "SEAT": 2, "seat_": 3}',
    ],
)
def test_keys_given_once_are_read(text):
    assert isinstance(loads(text), dict)


@pytest.mark.parametrize(
    "text",
    [
        b'{"n":1234567890123456789,"m":12345678901234567890,"f":0.1,"l":[{"a":1},{"a":2}]}',
        '{"\u00e9":"\u00fc:x","a":[true,false,null],"s":"a\\"b"}'.encode(),
        b'{"big":123456789012345678901234567890,"e":1e5,"z":-0}',
        b'{"a":1,"b":{"a":1,"b":[]}}',
    ],
)
def test_a_compact_text_reads_as_the_reference_reads_it(text):
    """Compact text, as the project's clients send it, is taken as orjson read it when
    writing that again gives the text back (long integers, escapes and floats included):
    the same values as ``json``'s."""
    value = loads(text)
    assert value == json.loads(text) and type(value) is dict


def test_a_compact_text_with_a_key_given_twice_is_refused():
    """Writing back what orjson read loses the dropped copy: not the text, so counted."""
    assert _refused_at(b'{"a":1,"b":{"c":1,"c":1}}') == [("b.c", "OUT_OF_RANGE")]


_json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(_json_values, st.booleans())
def test_loads_reads_every_text_as_json_does_compact_or_not(value, compact):
    """The compact read (one orjson parse and one writing) against the reference reading,
    ``json``: the same value for every shape, written compactly or spaced and escaped."""
    if compact:
        text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    else:
        text = json.dumps(value, indent=1)
    assert loads(text.encode("utf-8", "surrogatepass")) == json.loads(text)
